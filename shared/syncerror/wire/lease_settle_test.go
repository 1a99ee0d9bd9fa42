package wire

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// unreadable is a record reader whose every read fails (the connector removed, a 403).
type unreadable struct{ err error }

func (u unreadable) ReadFields(context.Context, syncerror.Claim) (map[string]any, string, error) {
	return nil, "", u.err
}

// crashedApprove leaves c applying under a lease with its fix and key, as an approve whose
// Lambda died before (or while) writing leaves it; the lease expires at f.now+TTL.
func crashedApprove(t *testing.T, f *fixture, id string) syncerror.Lease {
	t.Helper()
	fix := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
	lease := syncerror.NewLease(f.now, syncerror.DefaultLeaseTTL)
	lease.Fix, lease.Key = fix, syncerror.FixKey(id, fix)
	if _, err := f.claims.BeginApply(context.Background(), "acme", id, syncerror.StatusPending, lease, nil,
		syncerror.HistoryEntry{At: f.now, Actor: "alice", Action: "approve"}, f.now); err != nil {
		t.Fatal(err)
	}
	return lease
}

// An approve that died before writing, on a tenant whose record cannot be read: the row
// does not stay applying for ever. An approve meanwhile says the last one stopped and when
// its outcome is settled; after syncerror.UnverifiedAfter the reconcile returns the row,
// saying the outcome was not verified, with an audit record; then it can be approved.
func TestAnUnreadableOutcomeIsSettledUnverifiedAfterADay(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	lease := crashedApprove(t, f, c.ID)
	gone := ledgerWrites{ledger: f.ledger, records: unreadable{fmt.Errorf("%w: no connector", syncerror.ErrWriterNotConfigured)}}
	f.rc.Writes, f.op.Evidence = gone, gone
	f.now = lease.ExpiresAt.Add(time.Minute)
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if w.Code != http.StatusConflict || code(w) != "lease_expired" || !strings.Contains(w.Body.String(), lease.ExpiresAt.Format(time.RFC3339)) ||
		!strings.Contains(w.Body.String(), lease.ExpiresAt.Add(syncerror.UnverifiedAfter).Format(time.RFC3339)) {
		t.Fatalf("approve while the outcome cannot be read: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, f.op.RejectHandler(), c.ID, `{"reason":"wrong"}`); code(w) != "lease_expired" {
		t.Fatalf("reject while the outcome cannot be read: %d %s", w.Code, w.Body)
	}
	var unverified int
	for run := 0; run < 49; run++ { // a day of 30-minute reconciles, and one
		f.now = f.now.Add(30 * time.Minute)
		rep, _ := f.rc.Run(context.Background())
		unverified += rep.LeasesUnverified
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusPending || row.Lease != nil || unverified != 1 || !strings.Contains(row.ApplyError, "could not be verified") ||
		row.History[len(row.History)-1].Action != "lease_unverified" {
		t.Fatalf("after a day of reconciles the row is %s (lease %+v), error %q, %d unverified", row.Status, row.Lease, row.ApplyError, unverified)
	}
	var audited bool
	for _, r := range f.audits.All() {
		audited = audited || r.ActionKey == "syncerror.lease_unverified" && r.Result == "failure"
	}
	if !audited {
		t.Fatal("no syncerror.lease_unverified audit record")
	}
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusOK || f.conns.Count() != 1 {
		t.Fatalf("approve after the unverified return: %d %s, %d writes", w.Code, w.Body, f.conns.Count())
	}
}

// An approve that meets the lease of an approve that stopped settles it at once, as the
// reconcile would, and answers: its write is found in the ledger, so the row is approved
// with no second write; nothing was written, so the lease ends and this approve writes.
func TestAnApproveAfterACrashSettlesTheLeaseAtOnce(t *testing.T) {
	t.Run("the write landed", func(t *testing.T) {
		f := newFixture(t)
		c := f.ready(t, "E-1")
		f.claims.finishFails, f.claims.markFails = 9, 9 // the write lands; nothing records it
		if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusAccepted {
			t.Fatalf("first approve: %d %s", w.Code, w.Body)
		}
		f.claims.finishFails, f.claims.markFails = 0, 0
		if row := f.row(t, c.ID); row.Status != syncerror.StatusApplying || row.Applied != nil {
			t.Fatalf("row %s applied %+v", row.Status, row.Applied)
		}
		f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
		w := f.call(t, f.op.ApproveHandler(), c.ID, "")
		row := f.row(t, c.ID)
		if w.Code != http.StatusOK || row.Status != syncerror.StatusApproved || row.Applied == nil || f.conns.Count() != 1 {
			t.Fatalf("approve after the crash: %d %s; row %s applied %+v, %d writes", w.Code, w.Body, row.Status, row.Applied, f.conns.Count())
		}
		if w := f.call(t, f.op.RejectHandler(), c.ID, `{"reason":"wrong"}`); w.Code != http.StatusConflict {
			t.Fatalf("reject of the approved row: %d %s", w.Code, w.Body)
		}
	})
	t.Run("nothing was written", func(t *testing.T) {
		f := newFixture(t)
		c := f.ready(t, "E-1")
		lease := crashedApprove(t, f, c.ID)
		f.now = lease.ExpiresAt.Add(time.Minute)
		w := f.call(t, f.op.ApproveHandler(), c.ID, "")
		row := f.row(t, c.ID)
		if w.Code != http.StatusOK || row.Status != syncerror.StatusApproved || f.conns.Count() != 1 {
			t.Fatalf("approve after the crash: %d %s; row %s, %d writes", w.Code, w.Body, row.Status, f.conns.Count())
		}
		var expired bool
		for _, h := range row.History {
			expired = expired || h.Action == "lease_expired" && h.Actor == "alice"
		}
		if !expired {
			t.Fatalf("history does not say the last approve's lease ended: %+v", row.History)
		}
	})
}

// A live lease says when it ends.
func TestALiveLeaseSaysWhenItEnds(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	lease := crashedApprove(t, f, c.ID)
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if code(w) != "lease_held" || !strings.Contains(w.Body.String(), lease.ExpiresAt.Format(time.RFC3339)) {
		t.Fatalf("approve under a live lease: %d %s", w.Code, w.Body)
	}
}
