package storecontract

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runSystemListContract covers the listing's system filter: the external system matched
// exactly as the host sent it (no prefix, no case folding, rows without one never match),
// alone and with the other filters, paged one row at a time across rows it leaves out.
func runSystemListContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, base time.Time) {
	ctx := context.Background()
	t.Run("list filters by external system, exactly, with the other filters", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		systems := []string{"webshop", "shipstation", "", "webshop", "Webshop", "webshop-eu", "webshop", "Lager Süd", "webshop"}
		var rows []syncerror.Claim
		for i, sys := range systems {
			at := base.Add(time.Duration(i) * time.Minute)
			r := syncerrortest.SampleRecord("t1", fmt.Sprintf("sys-%d", i))
			r.ExternalSystem, r.RecordID = sys, fmt.Sprintf("SO-%d", i)
			c := syncerror.NewClaim(r, syncerror.SourceWebhook, "", at)
			mustClaim(t, s, c)
			got, err := s.BeginDiagnosis(ctx, "t1", c.ID, at, at)
			if err != nil {
				t.Fatal(err)
			}
			p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), at)
			if i == 6 {
				p.Class = "missing"
			}
			if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, at); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, c)
		}
		// The same system in another tenant and in another status is never listed.
		other := syncerrortest.SampleRecord("t2", "sys-0")
		other.ExternalSystem = "webshop"
		mustClaim(t, s, syncerror.NewClaim(other, syncerror.SourceWebhook, "", base))
		if err := s.Decide(ctx, "t1", rows[8].ID, syncerror.StatusPending, syncerror.StatusRejected,
			syncerror.HistoryEntry{At: base, Actor: "alice", Action: "rejected"}, base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Assign(ctx, "t1", rows[3].ID, "", "bob", syncerror.HistoryEntry{At: base, Actor: "alice", Action: "assigned"}, base); err != nil {
			t.Fatal(err)
		}
		ids := func(is ...int) []string {
			var out []string
			for _, i := range is {
				out = append(out, rows[i].ID)
			}
			return out
		}
		for _, c := range []struct {
			name string
			q    syncerror.ListQuery
			want []string
		}{
			{"webshop", syncerror.ListQuery{System: "webshop"}, ids(6, 3, 0)},
			{"webshop oldest first", syncerror.ListQuery{System: "webshop", Oldest: true}, ids(0, 3, 6)},
			{"other case", syncerror.ListQuery{System: "Webshop"}, ids(4)},
			{"longer name", syncerror.ListQuery{System: "webshop-eu"}, ids(5)},
			{"space and accent", syncerror.ListQuery{System: "Lager Süd"}, ids(7)},
			{"a prefix matches nothing", syncerror.ListQuery{System: "web"}, nil},
			{"unknown", syncerror.ListQuery{System: "nowhere"}, nil},
			{"with class", syncerror.ListQuery{System: "webshop", Class: "missing"}, ids(6)},
			{"with since", syncerror.ListQuery{System: "webshop", Since: base.Add(2 * time.Minute)}, ids(6, 3)},
			{"with assignee", syncerror.ListQuery{System: "webshop", Assignee: "bob"}, ids(3)},
			{"with unassigned", syncerror.ListQuery{System: "webshop", Unassigned: true}, ids(6, 0)},
			{"with search", syncerror.ListQuery{System: "webshop", Search: "so-3"}, ids(3)},
		} {
			c.q.Status, c.q.Limit = syncerror.StatusPending, 1
			if got := listEvery(t, s, "t1", c.q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s = %v, want %v", c.name, got, c.want)
			}
		}
	})

	// Systems (the names resolving to one system, tenant.Config.NamesOf) matches each
	// name trimmed and without case, and nothing that only starts like one.
	t.Run("list filters by every name of one system", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		systems := []string{"Business Central", "ShipStation", " business central ", "erp2", "BC", "Business Centrals", "", "ERP2"}
		var ids []string
		for i, sys := range systems {
			r := syncerrortest.SampleRecord("t1", fmt.Sprintf("names-%d", i))
			r.ExternalSystem = sys
			c := syncerror.NewClaim(r, syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Minute))
			mustClaim(t, s, c)
			ids = append(ids, c.ID)
		}
		q := syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 1, System: "erp2",
			Systems: []string{"erp2", "BC", "Business Central", "Dynamics 365 Business Central"}}
		if got, want := listEvery(t, s, "t1", q), []string{ids[7], ids[4], ids[3], ids[2], ids[0]}; !reflect.DeepEqual(got, want) {
			t.Errorf("erp2 by its names = %v, want %v", got, want)
		}
	})
}

// listEvery follows q's cursors to the end and returns the ids listed, in order.
func listEvery(t *testing.T, s syncerror.ClaimStore, tenantID string, q syncerror.ListQuery) []string {
	t.Helper()
	var got []string
	for page := 0; page < 50; page++ {
		p, err := s.List(context.Background(), tenantID, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, claimIDs(p.Claims)...)
		if q.Cursor = p.NextCursor; q.Cursor == "" {
			return got
		}
	}
	t.Fatal("listing did not end")
	return nil
}
