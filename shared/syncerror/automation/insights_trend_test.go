package automation_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// partition checks that the outcome counts add up to what was received, and that the
// rate is the quotient of the two counts shown beside it.
func partition(t *testing.T, what string, c automation.Counts) {
	t.Helper()
	if sum := c.ResolvedByRetry + c.AutoApplied + c.ResolvedByPeople + c.Rejected + c.Reverted + c.Open; sum != c.Received {
		t.Fatalf("%s: outcomes add to %d, received %d: %+v", what, sum, c.Received, c)
	}
	if c.AutoResolved != c.ResolvedByRetry+c.AutoApplied || c.Resolved != c.AutoResolved+c.ResolvedByPeople {
		t.Fatalf("%s: resolved %d, auto-resolved %d from %+v", what, c.Resolved, c.AutoResolved, c)
	}
	switch {
	case c.Resolved == 0 && c.AutoResolutionRate != nil:
		t.Fatalf("%s: a rate without anything resolved", what)
	case c.Resolved > 0 && (c.AutoResolutionRate == nil || *c.AutoResolutionRate != float64(c.AutoResolved)/float64(c.Resolved)):
		t.Fatalf("%s: rate %v is not %d/%d", what, c.AutoResolutionRate, c.AutoResolved, c.Resolved)
	}
}

// The insights count each day of the window, by system, and the auto-resolution rate is
// the auto-resolved count over the resolved count shown beside it: a rule's fix that was
// reverted is neither (it counted as auto-applied before, so the rate did not match).
func TestInsightsTrendBySystemAndRateArithmetic(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	f.Now = clock.Add(-72 * time.Hour)
	people := f.Arrive(t, "T-1", "SO-1", `{"subsidiary":"Acme UK","n":1}`)
	if w := f.As(t, "anna", "approver", "POST", "/p/"+people.ID+"/approve", ""); w.Code != 200 {
		t.Fatalf("approve %d %s", w.Code, w.Body)
	}
	f.Now = clock.Add(-24 * time.Hour)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subs","match":{"fields":["subsidiary"]},"apply":"auto","mode":"enforce"}]}`)
	f.AutoApply(t, "true")
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"}
	kept := f.Arrive(t, "T-2", "SO-2", `{"subsidiary":"Acme UK","n":2}`)
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"}
	undone := f.Arrive(t, "T-3", "SO-3", `{"subsidiary":"Acme UK","n":3}`)
	if kept.Status != syncerror.StatusApproved || undone.Status != syncerror.StatusApproved {
		t.Fatalf("not auto-applied: %s %s", kept.Status, undone.Status)
	}
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd (UK)"}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+undone.ID+"/revert", ""); w.Code != 200 {
		t.Fatalf("revert %d %s", w.Code, w.Body)
	}
	f.Now = clock
	f.AutoApply(t, "false")
	f.Arrive(t, "T-4", "SO-4", `{"subsidiary":"Acme UK","n":4}`)

	in := f.Insights(t)
	tot := in.Total
	if tot.Received != 4 || tot.ResolvedByPeople != 1 || tot.AutoApplied != 1 || tot.Reverted != 1 || tot.Open != 1 ||
		tot.Resolved != 2 || tot.AutoResolved != 1 || *tot.AutoResolutionRate != 0.5 {
		t.Fatalf("totals %+v", tot)
	}
	partition(t, "total", tot)
	if in.RateDefinition == "" {
		t.Fatal("no definition beside the rate")
	}
	// One entry per UTC date of the 7-day window, oldest first, adding up to the total.
	if len(in.Daily) != 8 || in.Daily[0].Date != clock.Add(-7*24*time.Hour).UTC().Format(time.DateOnly) ||
		in.Daily[7].Date != clock.UTC().Format(time.DateOnly) {
		t.Fatalf("days %d: %+v", len(in.Daily), in.Daily)
	}
	var sum automation.Counts
	for _, d := range in.Daily {
		partition(t, d.Date, d.Counts)
		sum.Received += d.Received
		sum.AutoApplied += d.AutoApplied
		sum.Reverted += d.Reverted
		sum.ResolvedByPeople += d.ResolvedByPeople
	}
	if sum.Received != 4 || sum.AutoApplied != 1 || sum.Reverted != 1 || sum.ResolvedByPeople != 1 {
		t.Fatalf("days add to %+v", sum)
	}
	if d := in.Daily[6]; d.Received != 2 || d.AutoApplied != 1 || d.Reverted != 1 {
		t.Fatalf("yesterday %+v", d)
	}
	if len(in.BySystem) == 0 {
		t.Fatal("no breakdown by system")
	}
	n := 0
	for k, c := range in.BySystem {
		partition(t, "system "+k, c)
		n += c.Received
	}
	for k, c := range in.ByClass {
		partition(t, "class "+k, c)
	}
	if n != 4 {
		t.Fatalf("systems add to %d", n)
	}
}
