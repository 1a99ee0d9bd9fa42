package finance_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
)

// An expired lease whose update may have landed, and whose evidence cannot be read, is
// never settled by a guess; but it does not stay applying for good (no approve, no
// reject): once the evidence cannot be read at all (no connector, access denied) or has
// not been readable for a day, the sweep returns it to pending, saying that the outcome
// is unverified and the ERP record must be checked before approving again, with an audit
// record and a metric for the alarm. Before, the row stayed applying under the expired
// lease for good.
func TestSweepHandsAnUnverifiableApproveBackToAPerson(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		err          error
		// stays is a sweep time, after the lease expired, at which the row still waits.
		stays, returns time.Duration
	}{
		{name: "no connector", reason: "connector_not_configured",
			err: fmt.Errorf("read vendorBill/VB-1: tenant acme has no hosterp connector: %w", connector.ErrNotConfigured), returns: time.Minute},
		{name: "access denied", reason: "access_denied",
			err: &connector.Error{Op: connector.OpGet, Status: http.StatusForbidden, Err: connector.ErrUnauthorized}, returns: time.Minute},
		{name: "unreadable for a day", reason: "unreadable_24h",
			err:   &connector.Error{Op: connector.OpGet, Status: http.StatusServiceUnavailable, Err: connector.ErrUnavailable, Retryable: true},
			stays: finance.UnverifiedAfter - time.Minute, returns: finance.UnverifiedAfter},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var metrics bytes.Buffer
			prev := emf.Out
			emf.Out = &metrics
			t.Cleanup(func() { emf.Out = prev })
			erp := &financetest.ERP{ReadErr: tc.err}
			f := newFixture(t, erp)
			a := f.mustCreate("FA-1", "VB-1")
			lease := finance.NewLease(t0, time.Minute)
			lease.Holder = "alice"
			if _, err := f.mem.BeginAccept(t.Context(), tenantID, a.ID, lease, t0); err != nil {
				t.Fatal(err)
			}
			expired := lease.ExpiresAt
			if tc.stays > 0 {
				if _, err := f.svc.SweepExpiredLeases(t.Context(), tenantID, expired.Add(tc.stays)); err == nil {
					t.Fatal("a sweep that could not read the evidence reported no error")
				}
				if got := f.row(a.ID); got.Status != finance.StatusApplying {
					t.Fatalf("returned before the evidence had been unreadable for a day: %+v", got)
				}
			}
			if _, err := f.svc.SweepExpiredLeases(t.Context(), tenantID, expired.Add(tc.returns)); err != nil {
				t.Fatal(err)
			}
			got := f.row(a.ID)
			if got.Status != finance.StatusPending || got.Lease != nil || !strings.Contains(got.LastError, "could not be verified") ||
				!strings.Contains(got.LastError, "alice") || !strings.Contains(got.LastError, "before approving again") {
				t.Fatalf("row %+v", got)
			}
			recs := f.auditsOf(finance.ActionOutcomeUnverified)
			if len(recs) != 1 || recs[0].Result != "failure" || details(t, recs[0])["reason"] != tc.reason {
				t.Fatalf("audit %+v", recs)
			}
			if len(f.auditsOf(finance.ActionLeaseExpired)) != 0 {
				t.Fatal("an unverified outcome was audited as a plain expired lease")
			}
			if !strings.Contains(metrics.String(), `"OutcomesUnverified"`) || !strings.Contains(metrics.String(), tc.reason) {
				t.Fatalf("metrics %s", metrics.String())
			}
			// The way out: an approver can now reject it (or approve it after checking).
			if w := f.call(approverBob, http.MethodPost, base+"/"+a.ID+"/reject", `{"reason":"already paid in the ERP"}`); w.Code != http.StatusOK {
				t.Fatalf("reject: %d %s", w.Code, w.Body)
			}
			if n := len(erp.Calls()); n != 0 {
				t.Fatalf("the sweep wrote the ERP %d times", n)
			}
		})
	}
}
