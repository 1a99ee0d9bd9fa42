package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
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
	approved.Applied = &syncerror.AppliedWrite{Key: syncerror.FixKey(c.ID, approved.Proposal.Fix), At: e.now, Fix: approved.Proposal.Fix}
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

// An edit whose write the host ERP refused is not the row's fix: a later approve of the
// AI's fix writes shipcountry=DE, and a retry of the approved row writes DE again with
// the re-run, never the abandoned edit (XX).
func TestARetryWritesTheFixThatWasWrittenNotAnAbandonedEdit(t *testing.T) {
	e := newHostEnv(t)
	e.op.Fixes = fixWriter{e.guard}
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	c := e.hostError(t, "E-stale", "value", nil)
	e.down.Store(400) // the host refuses the edit
	if w := e.call(t, e.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipcountry","after":"XX"}]}`); w.Code != http.StatusBadGateway {
		t.Fatalf("edited approve: %d %s", w.Code, w.Body)
	}
	e.down.Store(0)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve of the AI fix: %d %s", w.Code, w.Body)
	}
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "DE" {
		t.Fatalf("after approve host holds %v", rec.Fields["shipcountry"])
	}
	if w := e.call(t, e.op.RetryHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("retry: %d %s", w.Code, w.Body)
	}
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "DE" {
		t.Fatalf("the approved (and written) fix was shipcountry=DE; after the retry the host holds %v", rec.Fields["shipcountry"])
	}
}

// The AI proposed shipzip as the number 1067 for a text field; the approve typed it and
// wrote the text "1067". A retry of the approved row writes that text again, not the
// untyped proposal's number.
func TestARetryKeepsTheTypeTheApproveWrote(t *testing.T) {
	e := newHostEnv(t)
	e.op.Fixes = fixWriter{e.guard}
	e.op.Fields = newFieldCatalog(e.clients, func() time.Time { return e.now })
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipzip": "10115"})
	e.syncN++
	e.host.Seed(hostSyncErrors, "77", map[string]any{"custrecord_sea_error_id": "E-zip"})
	rec := syncerrortest.SampleRecord("acme", "E-zip")
	rec.Context = json.RawMessage(`{"hostRecord":{"type":"` + hostSyncErrors + `","id":"77"}}`)
	c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "wh-1", e.now)
	ctx := context.Background()
	if _, err := e.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	held, _ := e.claims.BeginDiagnosis(ctx, "acme", c.ID, e.now, e.now)
	p := syncerrortest.SampleProposal("inf-1", e.now)
	p.Fix = []syncerror.FieldChange{{Path: "shipzip", Before: "10115", After: 1067.0}}
	if err := e.claims.CompleteDiagnosis(ctx, "acme", c.ID, held.DiagnosisAttempts, p, e.now); err != nil {
		t.Fatal(err)
	}
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if r, _ := e.host.Get("salesOrder", "SO-10042"); r.Fields["shipzip"] != "1067" {
		t.Fatalf("approve wrote %#v", r.Fields["shipzip"])
	}
	if w := e.call(t, e.op.RetryHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("retry: %d %s", w.Code, w.Body)
	}
	if r, _ := e.host.Get("salesOrder", "SO-10042"); r.Fields["shipzip"] != "1067" {
		t.Fatalf("approve wrote the text \"1067\"; after the retry the host holds %T %v", r.Fields["shipzip"], r.Fields["shipzip"])
	}
}

// A retry of an approved row (its fix written) that fails for good (no host sync-error
// record to re-run from) returns the row to approved, never to pending: the host holds
// the fix, so the row may not be rejected, nor approved and written again.
func TestAFailedRetryNeverReopensAnApprovedRow(t *testing.T) {
	e := newHostEnv(t)
	e.op.Fixes = fixWriter{e.guard}
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	c := e.hostError(t, "E-noctx", "value", func(r *syncerror.Record) { r.Context = json.RawMessage(`{}`) })
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if w := e.call(t, e.op.RetryHandler(), c.ID, ``); e.row(t, c.ID).Status != syncerror.StatusApproved {
		t.Fatalf("retry answered %d; the row is %s, want approved", w.Code, e.row(t, c.ID).Status)
	}
	if w := e.call(t, e.op.RejectHandler(), c.ID, `{"reason":"wrong"}`); w.Code == http.StatusOK {
		r, _ := e.host.Get("salesOrder", "SO-10042")
		t.Fatalf("the host holds the approved fix (shipcountry=%v) yet the row was reopened by a failed retry and is now %s", r.Fields["shipcountry"], e.row(t, c.ID).Status)
	}
}

// Rows the retrier before 8e9d9c8 left pending with their fix marked applied (a failed
// retry of an approved row went to pending) are refused by BeginApply and Decide; the
// operator is told why and what is left (retry or resolve), not "no proposal yet".
func TestAPendingRowWhoseFixWasWrittenSaysSo(t *testing.T) {
	src := newFixture(t)
	c := src.ready(t, "E-1")
	row := src.row(t, c.ID)
	fix := row.Proposal.Fix
	row.Applied = &syncerror.AppliedWrite{Key: syncerror.FixKey(c.ID, fix), At: src.now,
		Prior: []syncerror.PriorValue{{Path: fix[0].Path, Value: fix[0].Before, Wrote: fix[0].After}}}
	row.Retry.Attempts, row.Retry.LastError = 1, "host ERP refused the re-run"
	f := newFixture(t)
	if _, err := f.claims.Claim(context.Background(), row); err != nil { // as the old retrier left it
		t.Fatal(err)
	}
	for _, h := range []struct{ name, body string }{{"approve", ""}, {"reject", `{"reason":"wrong"}`}} {
		handler := f.op.ApproveHandler()
		if h.name == "reject" {
			handler = f.op.RejectHandler()
		}
		w := f.call(t, handler, c.ID, h.body)
		if w.Code != http.StatusConflict || code(w) != "fix_applied" || !strings.Contains(w.Body.String(), "Retry") {
			t.Errorf("%s of a pending row whose fix is in the record: %d %s", h.name, w.Code, w.Body)
		}
	}
}
