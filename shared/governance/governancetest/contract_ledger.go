package governancetest

// The ledger's and the override store's contracts, beside the record store's (contract.go).

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// SampleLedgerEntry returns a complete ledger entry of tenant for one record at base+i
// seconds.
func SampleLedgerEntry(tenant, entity, recordID string, i int) governance.LedgerEntry {
	return governance.LedgerEntry{
		ID: fmt.Sprintf("led-%s-%03d", tenant, i), Time: base.Add(time.Duration(i) * time.Second), Tenant: tenant,
		Source: connector.SystemCRM, Target: connector.SystemHostERP, Entity: entity, RecordID: recordID,
		Fields: []string{"email", "phone"}, PayloadHash: fmt.Sprintf("%064d", i), IdempotencyKey: "idem-" + fmt.Sprint(i),
		CorrelationID: "corr-" + fmt.Sprint(i),
	}
}

// RunLedgerContract runs the cases every governance.Ledger must pass; newLedger returns
// an empty ledger for each case, its own: the cases run side by side (t.Parallel).
func RunLedgerContract(t *testing.T, newLedger func(t *testing.T) governance.Ledger) {
	ctx := context.Background()

	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		want := SampleLedgerEntry("t1", "contact", "C-1", 0)
		if err := l.Append(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := l.Recent(ctx, "t1", "contact", "C-1", base)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
		}
	})

	// The SDK sends a put again when its answer was lost, although the first one may have
	// been stored: the entry is stored once and neither append fails.
	t.Run("an append sent again", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		e := SampleLedgerEntry("t1", "contact", "C-1", 0)
		for i := range 2 {
			if err := l.Append(ctx, e); err != nil {
				t.Fatalf("append %d: %v", i+1, err)
			}
		}
		if got, err := l.Recent(ctx, "t1", "contact", "C-1", base); err != nil || len(got) != 1 {
			t.Fatalf("%d entries after an append sent twice (err %v), want 1", len(got), err)
		}
	})

	t.Run("one record, since inclusive, oldest first", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		for _, e := range []governance.LedgerEntry{
			SampleLedgerEntry("t1", "contact", "C-1", 5), SampleLedgerEntry("t1", "contact", "C-1", 1),
			SampleLedgerEntry("t1", "contact", "C-1", 3), SampleLedgerEntry("t1", "contact", "C-2", 4),
			SampleLedgerEntry("t1", "account", "C-1", 4), SampleLedgerEntry("t2", "contact", "C-1", 4),
			// Keys are built from entity and record id; these must not meet.
			SampleLedgerEntry("t1", "contact#C", "1", 4), SampleLedgerEntry("t1", "contact", "C-1#x", 4),
		} {
			if err := l.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := l.Recent(ctx, "t1", "contact", "C-1", base.Add(3*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range got {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(ids, []string{"led-t1-003", "led-t1-005"}) {
			t.Fatalf("got %v, want led-t1-003 then led-t1-005", ids)
		}
		got, err = l.Recent(ctx, "t1", "contact#C", "1", base)
		if err != nil || len(got) != 1 || got[0].Entity != "contact#C" {
			t.Fatalf("entity with #: %+v, %v", got, err)
		}
	})

	// Entities and record ids compare without case, as the manifest and the hop check
	// compare them, so a return leg spelled "Vendor"/"v-1" finds "vendor"/"V-1"; the
	// subjects of trails and links ('~' entities) are built normalised by the guard and
	// compare exactly. Entries keep the spelling they were appended with.
	t.Run("records compare without case, subjects exactly", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		for _, e := range []governance.LedgerEntry{
			SampleLedgerEntry("t1", "Vendor", "V-1", 1), SampleLedgerEntry("t1", "vendor", "v-1", 2),
			SampleLedgerEntry("t1", "~trail", "crm/account/AbC", 3), SampleLedgerEntry("t1", "~trail", "crm/account/abc", 4),
		} {
			if err := l.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		got, err := l.Recent(ctx, "t1", "VENDOR", "v-1", base)
		if err != nil || len(got) != 2 || got[0].Entity != "Vendor" || got[0].RecordID != "V-1" || got[1].RecordID != "v-1" {
			t.Fatalf("vendor V-1 in other cases: %+v, %v", got, err)
		}
		got, err = l.Recent(ctx, "t1", "~trail", "crm/account/AbC", base)
		if err != nil || len(got) != 1 || got[0].ID != "led-t1-003" {
			t.Fatalf("a trail subject matched without case: %+v, %v", got, err)
		}
	})

	t.Run("trail round trip", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		want := SampleLedgerEntry("t1", "~trail", "crm/Account/C-1", 0)
		want.Trail = map[string]governance.FieldTrail{
			"Phone": {Hash: strings.Repeat("a", 64), Hops: []governance.Hop{
				{System: connector.SystemHostERP, Entity: "customer", Record: "C-1", Field: "phone"},
				{System: connector.SystemCRM, Entity: "Account", Record: "C-1", Field: "Phone"}}},
			"Email": {Hash: strings.Repeat("b", 64)},
		}
		if err := l.Append(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := l.Recent(ctx, "t1", "~trail", "crm/Account/C-1", base)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
		}
	})

	// A sent mark (governance's supersede.go) keeps, per target field, the change a write
	// carried from the record, to the nanosecond the source stamped it with.
	t.Run("sent mark round trip", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		want := SampleLedgerEntry("t1", "~trail", "crm/account/C-1", 0)
		want.Fields = []string{"phone"}
		want.Sent = map[string]governance.SentMark{
			"hosterp/customer/phone": {Changed: base.Add(-time.Minute + 7*time.Nanosecond), Received: base.Add(-time.Second), Key: "run_X"},
			"hosterp/customer/email": {Changed: base.Add(-time.Minute), Key: "run_X"},
		}
		if err := l.Append(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := l.Recent(ctx, "t1", "~trail", "crm/account/C-1", base)
		if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("got %+v, %v\nwant %+v", got, err, want)
		}
	})

	t.Run("concurrent appends to one record are all kept", func(t *testing.T) {
		t.Parallel()
		l := newLedger(t)
		const n = 40
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e := SampleLedgerEntry("t1", "contact", "C-1", 0) // same instant for all
				e.ID = fmt.Sprintf("led-%03d", i)
				if err := l.Append(ctx, e); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		got, err := l.Recent(ctx, "t1", "contact", "C-1", base.Add(-time.Second))
		if err != nil || len(got) != n {
			t.Fatalf("%d entries, err=%v; want %d", len(got), err, n)
		}
	})
}

// RunOverrideStoreContract runs the cases every governance.OverrideStore must pass;
// newStore returns an empty store for each case, its own: the cases run side by side
// (t.Parallel).
func RunOverrideStoreContract(t *testing.T, newStore func(t *testing.T) governance.OverrideStore) {
	ctx := context.Background()
	entries := []governance.Entry{
		{Entity: "salesOrder", Owner: connector.SystemERP2, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "email", Owner: connector.SystemHostERP, Policy: governance.PolicyRequireApproval},
	}

	t.Run("none", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		got, err := s.Overrides(ctx, "t1")
		if err != nil || len(got) != 0 {
			t.Fatalf("got %+v, %v; want none", got, err)
		}
	})

	t.Run("put, replace, tenant scoped", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.PutOverrides(ctx, "t1", entries); err != nil {
			t.Fatal(err)
		}
		got, err := s.Overrides(ctx, "t1")
		if err != nil || !reflect.DeepEqual(got, entries) {
			t.Fatalf("got %+v, %v\nwant %+v", got, err, entries)
		}
		if got, _ := s.Overrides(ctx, "t2"); len(got) != 0 {
			t.Fatalf("t2 sees t1's overrides: %+v", got)
		}
		if err := s.PutOverrides(ctx, "t1", entries[1:]); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Overrides(ctx, "t1"); !reflect.DeepEqual(got, entries[1:]) {
			t.Fatalf("after replace: %+v", got)
		}
		if err := s.PutOverrides(ctx, "t1", nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Overrides(ctx, "t1"); len(got) != 0 {
			t.Fatalf("after clearing: %+v", got)
		}
	})
}
