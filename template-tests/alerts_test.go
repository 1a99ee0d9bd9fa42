package templatetests

import "testing"

// Functions that write through the guard publish ownership alerts to one event bus; no
// other function may put events.
func TestAlertBusReceivesGuardAlerts(t *testing.T) {
	forEachStack(t, func(t *testing.T, s *synthesized) {
		publishers := 0
		for _, f := range s.functions {
			if f.PublishesAlerts {
				publishers++
			}
		}
		if publishers == 0 {
			s.countIs(t, "AWS::Events::EventBus", 0)
			return
		}
		s.countIs(t, "AWS::Events::EventBus", 1)
		s.has(t, "AWS::Events::EventBus", obj{"Name": s.stage + "-syncassist-alerts"})
		bus := s.resourceID(t, "AWS::Events::EventBus", nil)
		for _, f := range s.functions {
			granted := false
			for _, st := range s.statements(t, f.Name) {
				for _, a := range values(st["Action"]) {
					if a == "events:PutEvents" {
						granted = true
						if ids := referencedIDs(st["Resource"]); len(ids) != 1 || ids[0] != bus {
							t.Errorf("function %s may put events on %v, want only the alert bus %s", f.Name, ids, bus)
						}
					}
				}
			}
			if granted != f.PublishesAlerts {
				t.Errorf("function %s: events:PutEvents granted=%v, want %v", f.Name, granted, f.PublishesAlerts)
			}
		}
	})
}
