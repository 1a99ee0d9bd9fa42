package compose_test

import (
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	flowpkg "github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

// Two flows inside the host ERP, partner → vendor and back: the same system on both
// ends is no loop by itself (the first write goes through), but the value coming back
// to the partner is one.
func TestTwoFlowsInsideOneSystemAreCaught(t *testing.T) {
	c := newLoopRig(t)
	erp := c.fakes[connector.SystemHostERP]
	erp.Seed("partner", "C-1", map[string]any{"phone": "+49 40 1"})
	erp.Seed("vendor", "C-1", map[string]any{"phone": "+49 40 1"})
	c.putFlow(t, "partner-to-vendor", `{"enabled": true, "source": {"system": "hosterp", "entity": "partner"},
	  "target": {"system": "hosterp", "entity": "vendor"}, "mapping": {"phone": "phone"}}`)
	c.putFlow(t, "vendor-to-partner", `{"enabled": true, "source": {"system": "hosterp", "entity": "vendor"},
	  "target": {"system": "hosterp", "entity": "partner"}, "mapping": {"phone": "phone"}}`)

	erp.Seed("partner", "C-1", map[string]any{"phone": "+49 40 7"})
	runs := c.echoAll(t, flowpkg.Endpoint{System: connector.SystemHostERP, Entity: "partner"}, 30)
	if len(runs) != 2 || runs[0].Outcome != flowpkg.OutcomeWritten || runs[1].Outcome != flowpkg.OutcomeLoopBroken ||
		!strings.Contains(runs[1].Decision, "hosterp/partner/C-1.phone → hosterp/vendor/C-1.phone → hosterp/partner/C-1.phone") {
		t.Fatalf("runs %+v, want partner→vendor written and its echo broken", runs)
	}
	if rec, _ := erp.Get("vendor", "C-1"); rec.Fields["phone"] != "+49 40 7" || erp.WriteCount() != 1 {
		t.Fatalf("vendor %v after %d writes", rec.Fields, erp.WriteCount())
	}
}

// A cycle in which every system rewrites the value it stores (a normalisation of its
// own) gives a fresh value at every hop, which no hop chain can recognise. The flapping
// cap stops it: no field of the record is written more than the limit in the window, and
// the write over it is a loop detection with breaking condition flapping.
func TestFlappingCapStopsALoopThatRewritesItsValues(t *testing.T) {
	c := newLoopRig(t)
	c.fakes[connector.SystemHostERP].Seed("partner", "C-1", map[string]any{"phone": "1"})
	c.fakes[connector.SystemCRM].Seed("Lead", "C-1", map[string]any{"Phone": "1"})
	c.fakes[connector.SystemMarketing].Seed("L1", "C-1", map[string]any{"PHONE": "1", "status": "subscribed"})
	for id, body := range map[string]string{
		"erp-to-crm": `{"enabled": true, "source": {"system": "hosterp", "entity": "partner"}, "target": {"system": "crm", "entity": "Lead"},
		  "mapping": {"Phone": "phone"}}`,
		"crm-to-marketing": `{"enabled": true, "source": {"system": "crm", "entity": "Lead"}, "target": {"system": "marketing", "entity": "L1"},
		  "mapping": {"PHONE": "Phone"}}`,
		"marketing-to-erp": `{"enabled": true, "source": {"system": "marketing", "entity": "L1"}, "target": {"system": "hosterp", "entity": "partner"},
		  "mapping": {"phone": "PHONE"}}`,
	} {
		c.putFlow(t, id, body)
	}
	c.rewrite = func(_ connector.System, _ string, fields map[string]any) {
		for _, k := range []string{"phone", "Phone", "PHONE"} {
			if v, ok := fields[k].(string); ok {
				fields[k] = v + "0"
			}
		}
	}
	runs := c.echoAll(t, at(connector.SystemHostERP), 100)
	if len(runs) >= 100 {
		t.Fatalf("the loop ran through its whole budget of %d events", len(runs))
	}
	last := runs[len(runs)-1]
	if last.Outcome != flowpkg.OutcomeLoopBroken || !strings.Contains(last.Decision, governance.FlapCondition+": ") {
		t.Fatalf("last run %+v, want it broken by the flapping cap", last)
	}
	for s, f := range c.fakes {
		if n := f.WriteCount(); n > governance.DefaultFlapLimit {
			t.Errorf("%s: %d writes of one field in the window, over the limit of %d", s, n, governance.DefaultFlapLimit)
		}
	}
	if body := c.loopDetections(t); !strings.Contains(body, `"breakingCondition":"flapping: `) {
		t.Fatalf("loop detections %s", body)
	}
}
