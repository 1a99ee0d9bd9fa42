package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// heldFixEnv is a host env whose fix writer and retry write through a guard that, once
// own is called, holds salesOrder.shipcountry for an ownership approval (the CRM owns it
// under require_approval), with the governance API over the same approvals.
type heldFixEnv struct {
	*hostEnv
	overrides *governancetest.Overrides
	recs      *governancetest.Store
	gov       *governance.Service
}

func newHeldFixEnv(t *testing.T) heldFixEnv {
	t.Helper()
	e := newHostEnv(t)
	overrides, recs := &governancetest.Overrides{}, &governancetest.Store{}
	log := e.op.Audit.(*audit.Log)
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Ledger:    e.ledger, Records: recs, Connectors: guardClients{e.clients}, Scanner: dlp.NewScanner(),
		Audit: log, Now: func() time.Time { return e.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.guard = g
	e.op.Fixes = fixWriter{g}
	e.rt.Deliver = deliverer{guard: g, hosts: e.clients, ledger: e.ledger, audits: log}
	e.op.Assist = &policy.Assist{Store: e.claims, Reader: recordReader{e.clients}}
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	return heldFixEnv{hostEnv: e, overrides: overrides, recs: recs,
		gov: &governance.Service{Records: recs, Guard: g, Audit: log, Now: func() time.Time { return e.now }}}
}

// own gives salesOrder.shipcountry to the CRM under require_approval: from now on the
// host ERP's writes of it are held.
func (e heldFixEnv) own(t *testing.T) {
	t.Helper()
	if err := e.overrides.PutOverrides(context.Background(), "acme", []governance.Entry{
		{Entity: "salesOrder", Field: "shipcountry", Owner: connector.SystemCRM, Policy: governance.PolicyRequireApproval},
	}); err != nil {
		t.Fatal(err)
	}
}

// release approves the one held write in governance as victor.
func (e heldFixEnv) release(t *testing.T) *httptest.ResponseRecorder {
	t.Helper()
	held := e.recs.Approvals()
	if len(held) != 1 {
		t.Fatalf("holds %+v", held)
	}
	r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+held[0].ID+"/approve", nil)
	r.SetPathValue("id", held[0].ID)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "victor", TenantID: "acme", Roles: []string{identity.RoleApprover}}))
	w := httptest.NewRecorder()
	e.gov.ApproveHandler().ServeHTTP(w, r)
	return w
}

// A sync-error approve whose write is held for an ownership approval returns the row to
// pending (409 ownership_approval_required). The operator then rejects the sync error.
// Releasing the hold in governance must not write the fix: the row decides whether it is
// written, and it was rejected (the release used to write DE to the host ERP at once,
// leaving a rejected row with nothing applied to revert).
func TestAReleaseDoesNotWriteTheFixOfARejectedSyncError(t *testing.T) {
	e := newHeldFixEnv(t)
	e.own(t)
	c := e.hostError(t, "E-held", "value", nil)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusConflict {
		t.Fatalf("approve: %d %s, want 409 ownership_approval_required", w.Code, w.Body)
	}
	if w := e.call(t, e.op.RejectHandler(), c.ID, `{"reason":"DE is wrong for this customer"}`); w.Code != http.StatusOK {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	w := e.release(t)
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	row := e.row(t, c.ID)
	if w.Code != http.StatusOK {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	if row.Status != syncerror.StatusRejected || rec.Fields["shipcountry"] != "Deutschland" || len(writesTo(e.host, "salesOrder")) != 0 {
		t.Fatalf("the sync error was rejected, yet releasing its held write wrote to the host ERP: row %s, shipcountry %v",
			row.Status, rec.Fields["shipcountry"])
	}
}

// The release of a held fix says it wrote nothing and who writes it now; approving the
// sync error again then writes the fix once, under the released approval.
func TestAReleasedFixIsWrittenByTheNextApprove(t *testing.T) {
	e := newHeldFixEnv(t)
	e.own(t)
	c := e.hostError(t, "E-held", "value", nil)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "approve this fix again") {
		t.Fatalf("approve: %d %s, want 409 ownership_approval_required", w.Code, w.Body)
	}
	w := e.release(t)
	var item struct {
		Status         string `json:"status"`
		ReleaseByRetry bool   `json:"releaseByRetry"`
		Message        string `json:"message"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &item); err != nil || w.Code != http.StatusOK {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	if item.Status != string(governance.StatusApproved) || !item.ReleaseByRetry || !strings.Contains(item.Message, "wrote nothing") {
		t.Fatalf("the release's answer does not say it wrote nothing: %s", w.Body)
	}
	if n := len(writesTo(e.host, "salesOrder")); n != 0 {
		t.Fatalf("the release wrote %d times to the host ERP; the next approve writes", n)
	}
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve after the release: %d %s", w.Code, w.Body)
	}
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	if row := e.row(t, c.ID); row.Status != syncerror.StatusApproved || row.Applied == nil ||
		rec.Fields["shipcountry"] != "DE" || len(writesTo(e.host, "salesOrder")) != 1 {
		t.Fatalf("after the approve: row %s (applied %v), shipcountry %v, %d writes", row.Status, row.Applied,
			rec.Fields["shipcountry"], len(writesTo(e.host, "salesOrder")))
	}
}

// The retry writes an approved fix the record lost again (retryfix.go). Held for an
// ownership approval, that write is released by retry as well: the release writes nothing
// (the row may have been reverted meanwhile), and the next retry writes it under the
// released approval, then asks for the re-run.
func TestARetrysHeldFixIsWrittenByTheNextRetryNotTheRelease(t *testing.T) {
	e := newHeldFixEnv(t)
	c := e.hostError(t, "E-retry", "value", nil)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	e.own(t)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // the ERP's sync undid the fix
	writes := len(writesTo(e.host, "salesOrder"))
	_, held := e.retry(t, c.ID)
	if held.Code != "RETRY_REFUSED" {
		t.Fatalf("the held retry: %+v", held)
	}
	w := e.release(t)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); len(writesTo(e.host, "salesOrder")) != writes || rec.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("the release wrote the retry's fix: %+v", writesTo(e.host, "salesOrder")[writes:])
	}
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"releaseByRetry":true`) || !strings.Contains(held.Reason, "then retry") {
		t.Fatalf("the hold's attempt (%q) and its release (%d %s) do not say the next retry writes it", held.Reason, w.Code, w.Body)
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the held retry asked the host ERP for a re-run")
	}
	_, got := e.retry(t, c.ID)
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	if got.Result != syncerror.DeliveryRequested || rec.Fields["shipcountry"] != "DE" || len(writesTo(e.host, "salesOrder")) != writes+1 {
		t.Fatalf("the retry after the release: %+v; the record holds %v", got, rec.Fields["shipcountry"])
	}
}
