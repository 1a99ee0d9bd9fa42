package wire

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert known not to have landed takes its mark back, so the fix it did not take back
// is still the approved fix: when the host ERP's own sync loses it later, a retry writes it
// again. Where the mark could not be taken back, the retry writes nothing instead.

// refusedReverts is the guarded write-back with every revert (RevertKey) answered err
// and not sent; the approve's writes go through.
type refusedReverts struct {
	fixWriter
	err error
}

func (r refusedReverts) WriteFix(ctx context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key, ifVersion string) error {
	if key == syncerror.RevertKey(c) {
		return r.err
	}
	return r.fixWriter.WriteFix(ctx, who, c, fix, key, ifVersion)
}

func TestARevertThatDidNotLandLeavesALostFixToBeWrittenAgain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		clearFails bool
		rewritten  bool
	}{
		{name: "the host ERP refused it", err: &syncerror.TargetError{Reason: "refused", Err: errors.New("HTTP 400")}, status: http.StatusBadGateway, rewritten: true},
		{name: "the guard refused it", err: &syncerror.RefusedError{Status: http.StatusConflict, Code: "ownership_rejected", Reason: "owned by the CRM"},
			status: http.StatusConflict, rewritten: true},
		{name: "no connector", err: syncerror.ErrWriterNotConfigured, status: http.StatusServiceUnavailable, rewritten: true},
		{name: "refused, its mark not taken back", err: &syncerror.TargetError{Reason: "refused", Err: errors.New("HTTP 400")},
			status: http.StatusBadGateway, clearFails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newHostEnv(t)
			c := e.approvedOnHost(t, "E-refused", map[string]any{"shipcountry": "Deutschland"}, ``)
			e.op.Fixes = refusedReverts{fixWriter: fixWriter{e.guard}, err: tc.err}
			e.claims.clearFails = tc.clearFails
			if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != tc.status {
				t.Fatalf("revert: %d %s", w.Code, w.Body)
			}
			if row := e.row(t, c.ID); row.Status != syncerror.StatusApproved || (len(row.Applied.RevertMarks) == 0) != tc.rewritten {
				t.Fatalf("after the revert that did not land: row %s, marks %+v", row.Status, row.Applied.RevertMarks)
			}
			e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // the ERP's sync lost the fix
			l, a := e.countedReads()
			row, got := e.retry(t, c.ID)
			rec, _ := e.host.Get("salesOrder", "SO-10042")
			switch {
			case a.reads != 0 || (l.reads > 0) != tc.rewritten:
				// The ledger is asked for a revert of the version before marks only where no
				// mark tells (revertmark_mixeddeploy_test.go); the audit log never.
				t.Fatalf("%d ledger and %d audit reads", l.reads, a.reads)
			case tc.rewritten && (rec.Fields["shipcountry"] != "DE" || got.Result != syncerror.DeliveryRequested):
				t.Fatalf("the lost fix was not written again: attempt %+v, the record holds %v", got, rec.Fields["shipcountry"])
			case !tc.rewritten && (rec.Fields["shipcountry"] != "Deutschland" || got.Code != "RETRY_FIX_REVERTED" || row.Status != syncerror.StatusReverted):
				t.Fatalf("with the mark left, the retry: attempt %+v, the record holds %v, row %s", got, rec.Fields["shipcountry"], row.Status)
			}
		})
	}
}
