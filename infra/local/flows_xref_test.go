package main

import "testing"

// The demo flows, with their matches, are flows the settings API would accept.
func TestDemoFlowsWithMatchesValidate(t *testing.T) {
	for _, f := range demoFlows {
		f.Match = demoMatches[f.ID]
		if errs := f.Validate(); len(errs) > 0 {
			t.Errorf("demo flow %s: %v", f.ID, errs)
		}
	}
	if demoMatches["erp-customer-to-crm"] == nil {
		t.Fatal("the host ERP → CRM flow has no match: a new customer would not reach the CRM")
	}
}
