package automation_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// An enforced rule writes the fix it judged, or nothing: a row that, by the time the rule
// applies, would write another fix (an edit kept from a held write, a waiting two-approver
// edit) waits for people. Before, the rule's approve wrote whatever the row held.
func TestEnforcedRuleWritesOnlyTheFixItJudged(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"fields":["subsidiary"]},"apply":"auto","mode":"enforce"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	f.AutoApply(t, "false")
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	ctx := context.Background()

	// The row keeps an operator's edit of a write held for an ownership approval.
	edit := []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Holdings"}}
	lease := syncerror.Lease{Token: "t", ExpiresAt: f.Now.Add(time.Minute)}
	if _, err := f.Claims.BeginApply(ctx, "acme", row.ID, syncerror.StatusPending, lease, edit,
		syncerror.HistoryEntry{At: f.Now, Actor: "olga", Action: "approve"}, f.Now); err != nil {
		t.Fatal(err)
	}
	if err := f.Claims.FinishApply(ctx, "acme", row.ID, "t", syncerror.StatusPending, "",
		syncerror.HistoryEntry{At: f.Now, Actor: "olga", Action: syncerror.ActionApplyHeld}, f.Now); err != nil {
		t.Fatal(err)
	}
	if kept, _ := f.Claims.Get(ctx, "acme", row.ID); syncerror.EditKept(kept) == "" {
		t.Fatal("set-up: the row keeps no edit")
	}

	f.AutoApply(t, "true")
	ap := &automation.AutoApply{Assist: f.Op.Assist, Apply: f.Op, Tenants: f.Tenants, Now: func() time.Time { return f.Now }}
	d, ok := ap.Decide(ctx, row, *row.Proposal)
	if !ok || d.RuleID != "subsidiaries" {
		t.Fatalf("set-up: decision %+v %v", d, ok)
	}
	ap.Automate(ctx, row, *row.Proposal, d)
	if f.Writer.Count() != 0 {
		t.Fatalf("the rule judged %v and wrote %+v", row.Proposal.Fix, f.Writer.Writes)
	}
	if got, _ := f.Claims.Get(ctx, "acme", row.ID); got.Status != syncerror.StatusPending || syncerror.EditKept(got) == "" {
		t.Fatalf("row %s, kept edit %q: it waits for people with its edit", got.Status, syncerror.EditKept(got))
	}
}
