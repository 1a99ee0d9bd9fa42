package wire

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// The retry script re-applies an inbound error's stored payload before it saves the
// record; the approved fix rides on the request, so the script applies it after the
// payload and the payload cannot undo it. A request without a fix carries none, and a
// later request does not keep an earlier one's.
func TestTheRetryRequestCarriesTheApprovedFix(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	c := e.hostError(t, "SO-2", "value", nil)
	if got := e.rt.Deliver.Rerun(ctx, "alice", c, "k-none"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("retry without a fix: %+v", got)
	}
	if stored, _ := e.host.Get(hostSyncErrors, hostSyncError(c)); stored.Fields[HostRetryFix] != "" {
		t.Fatalf("a request without a fix carries %q", stored.Fields[HostRetryFix])
	}
	e.script(c, "failed", "INVALID_FLD_VALUE")
	approved := e.row(t, c.ID)
	approved.Applied = &syncerror.AppliedWrite{Key: syncerror.FixKey(c.ID, approved.Proposal.Fix), At: e.now}
	if got := e.rt.Deliver.Rerun(ctx, "alice", approved, "k-read"); got.Code != "RETRY_FAILED_AT_HOST" {
		t.Fatalf("reading the failed re-run: %+v", got)
	}
	if got := e.rt.Deliver.Rerun(ctx, "alice", approved, "k-fix"); got.Result != syncerror.DeliveryRequested {
		t.Fatalf("retry with the approved fix: %+v", got)
	}
	stored, _ := e.host.Get(hostSyncErrors, hostSyncError(c))
	raw, _ := stored.Fields[HostRetryFix].(string)
	var fix map[string]any
	if err := json.Unmarshal([]byte(raw), &fix); err != nil || len(fix) != 1 || fix["shipcountry"] != "DE" {
		t.Fatalf("the request's fix %q (%v); want the approved {\"shipcountry\":\"DE\"}", raw, err)
	}
}
