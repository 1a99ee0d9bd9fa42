package policy_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestPolicyDecide(t *testing.T) {
	f64 := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	p := policy.Policy{Rules: []policy.PolicyRule{
		{ID: "big", Match: policy.PolicyMatch{Fields: []string{"amount"}, MaxAmount: f64(1000)}, Apply: policy.ApplyOperator},
		{ID: "learned", Match: policy.PolicyMatch{Classes: []string{"value"}, Fields: []string{"ship*", "!shipzip"}, MinApprovals: n(3), MinConfidence: f64(0.8)},
			Apply: policy.ApplyAuto, Mode: policy.ModeEnforce},
		{ID: "crm", Match: policy.PolicyMatch{Systems: []string{"salesforce"}}, Apply: policy.ApplyTwoApprovers},
	}}
	for _, c := range []struct {
		name  string
		facts policy.FixFacts
		rule  string
		apply string
	}{
		{"small amount", policy.FixFacts{Fields: []string{"amount"}, Amount: f64(999)}, "big", "operator"},
		{"large amount falls through", policy.FixFacts{Fields: []string{"amount"}, Amount: f64(1001)}, "", "approver"},
		{"learned enough", policy.FixFacts{Class: "value", Fields: []string{"shipCountry"}, Approvals: 3, Confidence: 0.86}, "learned", "auto"},
		{"too few approvals", policy.FixFacts{Class: "value", Fields: []string{"shipcountry"}, Approvals: 2, Confidence: 0.9}, "", "approver"},
		{"an excluded field", policy.FixFacts{Class: "value", Fields: []string{"shipcountry", "shipzip"}, Approvals: 5, Confidence: 0.9}, "", "approver"},
		{"a field not included", policy.FixFacts{Class: "value", Fields: []string{"shipcountry", "memo"}, Approvals: 5, Confidence: 0.9}, "", "approver"},
		{"system", policy.FixFacts{Class: "reference", Fields: []string{"owner"}, System: "salesforce"}, "crm", "two_approvers"},
		{"no fix yet: fields judged at approve", policy.FixFacts{Fields: nil, Amount: nil}, "big", "operator"},
	} {
		d := p.Decide(c.facts)
		if d.RuleID != c.rule || d.Apply != c.apply || d.Reason == "" {
			t.Errorf("%s: %+v, want rule %q apply %s", c.name, d, c.rule, c.apply)
		}
	}
}

func TestDefaultPolicy(t *testing.T) {
	p := policy.DefaultPolicy()
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
		{"value", "iban", "approver"},
		{"value", "bankAccountNumber", "approver"},
		{"value", "routingNumber", "approver"},
		{"value", "taxId", "approver"},
		{"value", "vatNumber", "approver"},
		{"value", "swiftCode", "approver"},
		{"value", "accountNumber", "operator"},
		{"reference", "subsidiary", "approver"},
		{"permission", "role", "approver"},
	} {
		// The fix is the proposal's own (TestDefaultPolicyJudgesAnEditAsWhatItWrites edits it).
		facts := policy.FixFacts{Class: c.class, Fields: []string{c.field}, Proposed: []string{c.field}}
		if d := p.Decide(facts); d.Apply != c.apply {
			t.Errorf("%s on %s: %+v, want %s", c.class, c.field, d, c.apply)
		}
	}
	for _, r := range p.Rules {
		if r.Apply == policy.ApplyAuto {
			t.Fatalf("the default automates %s", r.ID)
		}
	}
}

// maxAmount holds every number the fix holds, whatever its JSON type: a numeric string is
// the amount it spells, nested ones count, words do not.
func TestPolicyAmountsWhateverTheJSONType(t *testing.T) {
	limit := 1000.0
	p := policy.Policy{Rules: []policy.PolicyRule{
		{ID: "small", Match: policy.PolicyMatch{MaxAmount: &limit}, Apply: policy.ApplyOperator},
	}}
	claim := syncerror.Claim{Proposal: &syncerror.Proposal{Class: "value"}}
	for _, c := range []struct {
		after any
		apply string
	}{
		{99999999.0, "approver"},
		{"99999999", "approver"},
		{" 99999999 ", "approver"},
		{"-99999999", "approver"},
		{"99,999,999.00", "approver"},
		{"1e9", "approver"},
		{"1e999", "approver"},
		{json.Number("99999999"), "approver"},
		{int64(99999999), "approver"},
		{map[string]any{"lines": []any{map[string]any{"amount": "5000"}}}, "approver"},
		{"01067", "approver"}, // a numeric field would take it as 1067
		{999.0, "operator"},
		{"999", "operator"},
		{"1,000", "operator"},
		{"ten", "operator"},
		{"SO-99999999", "operator"},
		{"0x5F5E0FF", "operator"},
		{"NaN", "operator"},
		{"Inf", "operator"},
		{"e9", "operator"},
		{true, "operator"},
	} {
		fix := []syncerror.FieldChange{{Path: "creditlimit", After: c.after}}
		if d := p.Decide(policy.FactsOf(claim, fix)); d.Apply != c.apply {
			t.Errorf("after %#v: %+v, want %s", c.after, d, c.apply)
		}
	}
}

// Under the default policy an operator approves only the fields the proposal changes: an
// edit that adds a field, sensitive or not, is the approvers'; a proposal without a fix
// is too, since every field entered is one it does not change.
func TestDefaultPolicyJudgesAnEditAsWhatItWrites(t *testing.T) {
	p := policy.DefaultPolicy()
	proposal := &syncerror.Proposal{Class: "value", Fix: []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}}
	claim := syncerror.Claim{Proposal: proposal}
	for _, c := range []struct {
		name  string
		fix   []string
		apply string
	}{
		{"the proposal as it is", nil, "operator"},
		{"another value of the proposed field", []string{"shipcountry"}, "operator"},
		{"an added iban", []string{"shipcountry", "iban"}, "approver"},
		{"the proposal turned into an iban", []string{"iban"}, "approver"},
		{"an added bank account", []string{"bankAccountNumber"}, "approver"},
		{"an added tax id", []string{"taxId"}, "approver"},
		{"an added field that is not sensitive", []string{"shipcountry", "email"}, "approver"},
	} {
		var fix []syncerror.FieldChange
		for _, path := range c.fix {
			fix = append(fix, syncerror.FieldChange{Path: path, After: "x"})
		}
		if fix == nil {
			fix = proposal.Fix
		}
		if d := p.Decide(policy.FactsOf(claim, fix)); d.Apply != c.apply {
			t.Errorf("%s: %+v, want %s", c.name, d, c.apply)
		}
	}
	empty := syncerror.Claim{Proposal: &syncerror.Proposal{Class: "value"}}
	if d := p.Decide(policy.FactsOf(empty, nil)); d.Apply != "approver" {
		t.Errorf("a proposal without a fix: %+v, want approver (any field entered is added)", d)
	}
	if d := p.Decide(policy.FactsOf(empty, []syncerror.FieldChange{{Path: "subsidiary", After: "x"}})); d.Apply != "approver" {
		t.Errorf("a fix entered on a proposal without one: %+v, want approver", d)
	}
	// A rule without @proposed still takes fields the proposal did not change.
	wide := policy.Policy{Rules: []policy.PolicyRule{
		{ID: "ship", Match: policy.PolicyMatch{Fields: []string{"ship*"}}, Apply: policy.ApplyOperator}}}
	fix := []syncerror.FieldChange{{Path: "shipcountry"}, {Path: "shipzip"}}
	if d := wide.Decide(policy.FactsOf(claim, fix)); d.Apply != "operator" {
		t.Errorf("ship* rule: %+v", d)
	}
}

// A tenant that still holds the default as it was onboarded gets today's default; one that
// changed its policy keeps its own.
func TestPoliciesGetUpgradesAnUnchangedEarlierDefault(t *testing.T) {
	ctx := context.Background()
	store := syncerrortest.NewClaimStore()
	pols := policy.Policies{Docs: store}
	var earlier []policy.PolicyRule
	if err := json.Unmarshal([]byte(`[{"id":"operator-value-fixes","match":{"classes":["value","missing"],"fields":["!@sensitive"]},"apply":"operator"},{"id":"approver-everything-else","match":{},"apply":"approver"}]`), &earlier); err != nil {
		t.Fatal(err)
	}
	if _, err := pols.Put(ctx, "old", policy.Policy{Rules: earlier}, clock); err != nil {
		t.Fatal(err)
	}
	got, err := pols.Get(ctx, "old")
	if err != nil || got.Version != 1 || !reflect.DeepEqual(got.Rules, policy.DefaultPolicy().Rules) {
		t.Fatalf("earlier default: %+v, %v", got, err)
	}
	own := []policy.PolicyRule{earlier[0], {ID: "approvers", Apply: policy.ApplyApprover}}
	if _, err := pols.Put(ctx, "own", policy.Policy{Rules: own}, clock); err != nil {
		t.Fatal(err)
	}
	if got, err := pols.Get(ctx, "own"); err != nil || !reflect.DeepEqual(got.Rules, own) {
		t.Fatalf("a tenant's own policy changed: %+v, %v", got, err)
	}
}
