package flow_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// A flow's filter is read back from the table with the digits it was saved with: the PUT
// keeps them (json.Number), the console sends them exactly, and a filter is JSON equality
// on the event's value. Read as float64, a filter on 12345678901234567891 held for the
// event value 12345678901234567000 (another record), and 1.50 no longer held for 1.50.
func TestStoredFlowFilterKeepsItsDigits(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		s, ctx := newStoreOn(t, e), context.Background()
		filter := map[string]any{"accountNo": json.Number("12345678901234567891"), "rate": json.Number("1.50"), "n": json.Number("7")}
		f := flow.Flow{ID: "f1", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"a": "b"},
			Filter: filter, UpdatedAt: t0}
		if err := s.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(filter)
		one, err := s.Flow(ctx, "t1", "f1")
		if got, _ := json.Marshal(one.Filter); err != nil || string(got) != string(want) {
			t.Errorf("Flow: filter %s (%v), want %s", got, err, want)
		}
		all, err := s.Flows(ctx, "t1")
		if err != nil || len(all) != 1 {
			t.Fatalf("flows %v %v", all, err)
		}
		if got, _ := json.Marshal(all[0].Filter); string(got) != string(want) {
			t.Errorf("Flows: filter %s, want %s", got, want)
		}
	})
}
