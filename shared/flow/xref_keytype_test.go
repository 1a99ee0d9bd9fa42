package flow_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

// noneFound is a Finder that finds nothing: the counterpart is created.
type noneFound struct{}

func (noneFound) Find(context.Context, string, connector.System, string, string, string) ([]string, error) {
	return []string{}, nil
}

// A create sets the match field to the key the change carried, as the source typed it: a
// number stays a number and a boolean a boolean, not their text. Before, the create
// wrote "1067" (a string) to the field the source holds 1067 in, a type nobody sent, which
// a typed target (Business Central's OData, a Salesforce number field) refuses or keeps as
// text; the same for a retried run, whose key is read back from the store.
func TestCreateSetsTheMatchKeyAsTheSourceTypedIt(t *testing.T) {
	cases := []struct {
		name string
		key  any
	}{
		{"number", json.Number("1067")},
		{"big number", json.Number("12345678901234567890")},
		{"decimal with trailing zeros", json.Number("10.50")},
		{"boolean", true},
		{"string that looks like a number", "01067"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ctx := newStore(t), context.Background()
			f := flow.Flow{ID: "f", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
				Target: flow.Endpoint{System: connector.SystemERP2, Entity: "customers"}, Mapping: map[string]string{"displayName": "companyname"},
				Match: &flow.Match{By: flow.MatchLookup, Field: "accountNo", SourceField: "custentity_account_no", Create: true}}
			if err := s.PutFlow(ctx, "t1", f); err != nil {
				t.Fatal(err)
			}
			// The first attempt fails transiently, so the redrive makes the create again from
			// the run as stored.
			g := &scriptedGuard{results: []guardResult{{err: connErr(connector.ErrUnavailable)}, {}}}
			x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0 },
				XRefs: s, Finder: noneFound{}}
			ids, _, err := x.Handle(ctx, "t1", connector.SystemHostERP, flow.Event{EventID: "e", Entity: "customer", RecordID: "7",
				ChangedAt: t0, Fields: map[string]any{"companyname": "Kaufhaus Nord", "custentity_account_no": c.key}})
			if err != nil || len(ids) != 1 {
				t.Fatalf("handle: %v %v", ids, err)
			}
			x.Now = func() time.Time { return t0.Add(time.Hour) }
			if _, err := x.Redrive(ctx, "t1"); err != nil {
				t.Fatal(err)
			}
			var creates []governance.WriteRequest
			for _, w := range g.writes {
				if w.Create {
					creates = append(creates, w)
				}
			}
			if len(creates) != 2 {
				t.Fatalf("creates %+v, want the first attempt's and the redrive's", g.writes)
			}
			for i, w := range creates {
				if got := w.Fields["accountNo"]; got != c.key {
					t.Errorf("attempt %d: accountNo = %#v (%T), want %#v (%T)", i+1, got, got, c.key, c.key)
				}
				if w.Fields["displayName"] != "Kaufhaus Nord" {
					t.Errorf("attempt %d: fields %+v", i+1, w.Fields)
				}
			}
		})
	}
}
