package flow

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// A filter holds for the value it names, whatever the number's text: the console sends an
// admin's 1.50 as typed and the source sends 1.5. A string is still not a number, and two
// long numbers that differ in a digit are two values.
func TestFilterComparesNumbersByValue(t *testing.T) {
	f := Flow{Enabled: true, Source: Endpoint{System: connector.SystemCRM, Entity: "Account"}, Trigger: TriggerEvent}
	for _, c := range []struct {
		filter, got any
		holds       bool
	}{
		{json.Number("1.50"), json.Number("1.5"), true},
		{json.Number("1.50"), 1.5, true},
		{json.Number("100"), json.Number("1e2"), true},
		{json.Number("12345678901234567891"), json.Number("12345678901234567890"), false},
		{"1", json.Number("1"), false},
		{"Gold", "Gold", true},
	} {
		f.Filter = map[string]any{"v": c.filter}
		ev := Event{Entity: "Account", Fields: map[string]any{"v": c.got}}
		ok, skip := f.runsFor(connector.SystemCRM, ev, TriggerEvent)
		if !ok || (skip == "") != c.holds {
			t.Errorf("filter %v, event %v: runs %v, skip %q; want holds %v", c.filter, c.got, ok, skip, c.holds)
		}
	}
}
