package syncerror_test

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

func TestPolicyDecide(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	p := syncerror.Policy{Rules: []syncerror.PolicyRule{
		{ID: "big", Match: syncerror.PolicyMatch{Fields: []string{"amount"}, MaxAmount: f64(1000)}, Apply: syncerror.ApplyOperator},
		{ID: "learned", Match: syncerror.PolicyMatch{Classes: []string{"value"}, Fields: []string{"ship*", "!shipzip"}, MinApprovals: n(3), MinConfidence: f64(0.8)},
			Apply: syncerror.ApplyAuto, Mode: syncerror.ModeEnforce},
		{ID: "crm", Match: syncerror.PolicyMatch{Systems: []string{"salesforce"}}, Apply: syncerror.ApplyTwoApprovers},
	}}
	for _, c := range []struct {
		name  string
		facts syncerror.FixFacts
		rule  string
		apply string
	}{
		{"small amount", syncerror.FixFacts{Fields: []string{"amount"}, Amount: f64(999)}, "big", "operator"},
		{"large amount falls through", syncerror.FixFacts{Fields: []string{"amount"}, Amount: f64(1001)}, "", "approver"},
		{"learned enough", syncerror.FixFacts{Class: "value", Fields: []string{"shipCountry"}, Approvals: 3, Confidence: 0.86}, "learned", "auto"},
		{"too few approvals", syncerror.FixFacts{Class: "value", Fields: []string{"shipcountry"}, Approvals: 2, Confidence: 0.9}, "", "approver"},
		{"an excluded field", syncerror.FixFacts{Class: "value", Fields: []string{"shipcountry", "shipzip"}, Approvals: 5, Confidence: 0.9}, "", "approver"},
		{"a field not included", syncerror.FixFacts{Class: "value", Fields: []string{"shipcountry", "memo"}, Approvals: 5, Confidence: 0.9}, "", "approver"},
		{"system", syncerror.FixFacts{Class: "reference", Fields: []string{"owner"}, System: "salesforce"}, "crm", "two_approvers"},
		{"no fix yet: fields judged at approve", syncerror.FixFacts{Fields: nil, Amount: nil}, "big", "operator"},
	} {
		d := p.Decide(c.facts)
		if d.RuleID != c.rule || d.Apply != c.apply || d.Reason == "" {
			t.Errorf("%s: %+v, want rule %q apply %s", c.name, d, c.rule, c.apply)
		}
	}
}

func TestDefaultPolicy(t *testing.T) {
	p := syncerror.DefaultPolicy()
	if errs := p.Validate(); len(errs) > 0 {
		t.Fatalf("the default policy is invalid: %v", errs)
	}
	for _, c := range []struct {
		class, field, apply string
	}{
		{"value", "subsidiary", "operator"},
		{"missing", "shipzip", "operator"},
		{"value", "contactPhone", "approver"},
		{"value", "apiKey", "approver"},
		{"reference", "subsidiary", "approver"},
		{"permission", "role", "approver"},
	} {
		if d := p.Decide(syncerror.FixFacts{Class: c.class, Fields: []string{c.field}}); d.Apply != c.apply {
			t.Errorf("%s on %s: %+v, want %s", c.class, c.field, d, c.apply)
		}
	}
	for _, r := range p.Rules {
		if r.Apply == syncerror.ApplyAuto {
			t.Fatalf("the default automates %s", r.ID)
		}
	}
}
