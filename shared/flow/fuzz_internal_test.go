package flow

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// Flow validation and filters: any flow document and event either is refused or runs
// without panicking, deterministically, and a flow whose filter is the event's own values
// for its fields holds for that event.
func FuzzFlowFilter(f *testing.F) {
	f.Add([]byte(`{"id":"f1","enabled":true,"source":{"system":"crm","entity":"contact"},"target":{"system":"hosterp","entity":"customer"},"mapping":{"email":"email"},"filter":{"status":"active"}}`),
		[]byte(`{"entity":"contact","recordId":"C-1","fields":{"status":"active","n":1.0}}`))
	f.Add([]byte(`{"filter":{"n":1}}`), []byte(`{"entity":"x","fields":{"n":1.0}}`))
	f.Add([]byte(`{"filter":{"a":null,"b":[1,{"c":"d"}]}}`), []byte(`{"fields":{"a":null}}`))
	f.Fuzz(func(t *testing.T, flowDoc, eventDoc []byte) {
		var fl Flow
		if json.Unmarshal(flowDoc, &fl) != nil {
			return
		}
		_ = fl.Validate()
		ev, _, ok := ParseEvent(eventDoc)
		if !ok {
			return
		}
		sys := fl.Source.System
		ok1, skip1 := fl.runsFor(sys, ev, fl.TriggerOrDefault())
		ok2, skip2 := fl.runsFor(sys, ev, fl.TriggerOrDefault())
		if ok1 != ok2 || skip1 != skip2 {
			t.Fatalf("runsFor is not deterministic: %v %q / %v %q", ok1, skip1, ok2, skip2)
		}
		own := fl
		own.Filter = map[string]any{}
		for k, v := range ev.Fields {
			own.Filter[k] = v
		}
		own.Enabled, own.Source.Entity = true, ev.Entity
		if sys == "" {
			own.Source.System = connector.SystemCRM
		}
		if okOwn, skip := own.runsFor(own.Source.System, ev, own.TriggerOrDefault()); !okOwn || skip != "" {
			t.Fatalf("a filter of the event's own values does not hold: %q (event %s)", skip, eventDoc)
		}
	})
}
