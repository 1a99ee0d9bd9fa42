package automation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// A shadow rule records what it would have applied and reports how people's decisions
// compare: same fix, edited, rejected.
func TestShadowRuleReportsAgreement(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"classes":["value"],"fields":["subsidiary"]},"apply":"auto"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	var rows []syncerror.Claim
	for i, id := range []string{"E-1", "E-2", "E-3", "E-4"} {
		rows = append(rows, f.Arrive(t, id, "SO-"+id, `{"subsidiary":"Acme UK","n":`+string(rune('0'+i))+`}`))
	}
	if f.Writer.Count() != 0 {
		t.Fatal("a shadow rule wrote")
	}
	f.As(t, "olga", "operator", "POST", "/p/"+rows[0].ID+"/approve", "")
	f.As(t, "olga", "operator", "POST", "/p/"+rows[1].ID+"/approve", `{"fix":[{"path":"subsidiary","after":"Acme Holdings"}]}`)
	f.As(t, "olga", "operator", "POST", "/p/"+rows[2].ID+"/reject", `{"reason":"wrong entity"}`)
	in := f.Insights(t)
	if len(in.Rules) != 1 {
		t.Fatalf("rules %+v", in.Rules)
	}
	r := in.Rules[0]
	if r.RuleID != "subsidiaries" || r.Mode != "shadow" || r.WouldHaveApplied != 4 || r.Same != 1 || r.Edited != 1 ||
		r.Rejected != 1 || r.Undecided != 1 || r.Agreement == nil || *r.Agreement < 0.33 || *r.Agreement > 0.34 {
		t.Fatalf("rule insight %+v", r)
	}
	if in.Total.Received != 4 || in.Total.ResolvedByPeople != 2 || in.Total.Rejected != 1 || in.Total.Open != 1 ||
		in.Total.AutoApplied != 0 || in.ByClass["value"].Received != 4 {
		t.Fatalf("totals %+v", in.Total)
	}
	w := f.As(t, "olga", "operator", "GET", "/automation?mode=shadow", "")
	var page struct{ Items []syncerror.Automation }
	if _ = json.Unmarshal(w.Body.Bytes(), &page); len(page.Items) != 4 {
		t.Fatalf("automation list %s", w.Body)
	}
}

// An enforced rule applies the next matching error through the approve path, as
// policy:<rule>, while the tenant's auto_apply flag is on; Revert writes the values
// before back and counts as a rejection; a record changed since is not reverted.
func TestEnforcedRuleAppliesAndRevertRestores(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"fields":["subsidiary"]},"apply":"auto","mode":"enforce"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}

	off := f.Arrive(t, "E-0", "SO-0", `{"subsidiary":"Acme UK"}`)
	if off.Status != syncerror.StatusPending || f.Writer.Count() != 0 {
		t.Fatalf("applied with auto_apply off: %s", off.Status)
	}
	f.AutoApply(t, "true")
	// What the record holds when the fix is written is what a revert restores.
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"}
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	if row.Status != syncerror.StatusApproved || f.Writer.Count() != 1 || f.Writer.Writes[0].Who.Actor != "policy:subsidiaries" {
		t.Fatalf("not auto-applied: %s, writes %+v", row.Status, f.Writer.Writes)
	}
	audited := false
	for _, r := range f.Audits.All() {
		audited = audited || r.ActionKey == "syncerror.approve" && r.Actor.Actor == "policy:subsidiaries" && r.Result == "success"
	}
	if !audited {
		t.Fatalf("auto-apply not audited: %+v", f.Audits.All())
	}
	w := f.As(t, "olga", "operator", "GET", "/automation?mode=enforce", "")
	var page struct{ Items []syncerror.Automation }
	_ = json.Unmarshal(w.Body.Bytes(), &page)
	outcomes := map[string]string{}
	for _, a := range page.Items {
		outcomes[a.ClaimID] = a.Outcome
	}
	if len(page.Items) != 2 || outcomes[row.ID] != "applied" || outcomes[off.ID] != "auto_apply_off" {
		t.Fatalf("automation %s", w.Body)
	}

	// The record was changed by someone since: nothing is reverted.
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd"}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != "changed_since" {
		t.Fatalf("changed since: %d %s", w.Code, w.Body)
	}
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd (UK)"}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", `{"reason":"wrong entity"}`); w.Code != http.StatusOK {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	back := f.Writer.Writes[1]
	if f.Writer.Count() != 2 || back.Fix[0].After != "Acme UK" || back.Who.Actor != "anna" {
		t.Fatalf("revert write %+v", back)
	}
	if got, _ := f.Claims.Get(context.Background(), "acme", row.ID); got.Status != syncerror.StatusReverted {
		t.Fatalf("row %s", got.Status)
	}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusConflict {
		t.Fatalf("reverted twice: %d", w.Code)
	}
	in := f.Insights(t)
	// A reverted fix counts as reverted only, not also as auto-applied (issue 35: the rate
	// must be the quotient of the counts shown): nothing is resolved, so there is no rate.
	if in.Total.AutoApplied != 0 || in.Total.Reverted != 1 || in.Rules[0].Applied != 1 || in.Rules[0].Reverted != 1 ||
		in.Total.AutoResolutionRate != nil {
		t.Fatalf("insights %+v %+v", in.Total, in.Rules)
	}
	// The revert is a rejection: the next such error is not auto-applied with that value.
	next := f.Arrive(t, "E-2", "SO-2", `{"subsidiary":"Acme UK"}`)
	if next.Status != syncerror.StatusPending || len(next.Proposal.Fix) != 0 || f.Writer.Count() != 2 {
		t.Fatalf("re-applied a reverted fix: %s %+v", next.Status, next.Proposal)
	}

	// Switching the flag off stops enforcement at once.
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme US", After: "Acme Inc"}}
	f.AutoApply(t, "false")
	if r := f.Arrive(t, "E-3", "SO-3", `{"subsidiary":"Acme US"}`); r.Status != syncerror.StatusPending || f.Writer.Count() != 2 {
		t.Fatalf("applied with the flag off: %s", r.Status)
	}
}

// Revert is for 24 hours after the write.
func TestRevertWindow(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", `{"fix":[{"path":"subsidiary","after":"Acme Ltd (UK)"}]}`)
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd (UK)"}
	f.Now = f.Now.Add(25 * time.Hour)
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != "revert_window_closed" {
		t.Fatalf("late revert: %d %s", w.Code, w.Body)
	}
}

// The cap stops auto-applies past the tenant's limit for the minute; the rows wait for
// people.
func TestAutoApplyCap(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.Worker.Assist.AutoApplyPerMinute = 2
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"fields":["subsidiary"]},"apply":"auto","mode":"enforce"}]}`)
	f.AutoApply(t, "true")
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	statuses := []syncerror.Status{}
	for _, id := range []string{"E-1", "E-2", "E-3"} {
		statuses = append(statuses, f.Arrive(t, id, "SO-"+id, `{"subsidiary":"Acme UK"}`).Status)
	}
	if statuses[0] != syncerror.StatusApproved || statuses[1] != syncerror.StatusApproved || statuses[2] != syncerror.StatusPending {
		t.Fatalf("statuses %v", statuses)
	}
	f.Now = f.Now.Add(time.Minute)
	if s := f.Arrive(t, "E-4", "SO-4", `{"subsidiary":"Acme UK"}`).Status; s != syncerror.StatusApproved {
		t.Fatalf("next minute: %s", s)
	}
	// A person approves the capped row two minutes after it arrived.
	f.Now = f.Now.Add(time.Minute)
	if w := f.As(t, "olga", "operator", "POST", "/p/"+syncerror.ClaimID("acme", "E-3")+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	in := f.Insights(t)
	if in.Total.AutoApplied != 3 || in.Total.ResolvedByPeople != 1 || *in.Total.AutoResolutionRate != 0.75 ||
		in.Total.MedianSecondsToResolve == nil || *in.Total.MedianSecondsToResolve != 0 || in.Rules[0].Applied != 3 {
		t.Fatalf("insights %+v %+v", in.Total, in.Rules)
	}
}

// The Auto-resolved list is newest first, by when the rule acted, and its cursor pages on
// in that order; claim ids (hashes) say nothing about time. A later outcome (a decision
// on a shadow record) leaves a record where it was.
func TestAutomationListNewestFirst(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"fields":["subsidiary"]},"apply":"auto"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	var want []string
	for i, id := range []string{"E-1", "E-2", "E-3", "E-4", "E-5"} {
		f.Now = clock.Add(time.Duration(i) * time.Minute)
		want = append([]string{f.Arrive(t, id, "SO-"+id, `{"subsidiary":"Acme UK"}`).ID}, want...)
	}
	f.As(t, "olga", "operator", "POST", "/p/"+want[4]+"/approve", "")
	var got []string
	path := "/automation?mode=shadow&limit=2"
	for range 5 {
		w := f.As(t, "olga", "operator", "GET", path, "")
		var page struct {
			Items      []syncerror.Automation
			NextCursor string
		}
		if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != http.StatusOK {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		for _, a := range page.Items {
			got = append(got, a.ClaimID)
		}
		if page.NextCursor == "" {
			break
		}
		path = "/automation?mode=shadow&limit=2&cursor=" + url.QueryEscape(page.NextCursor)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("listed %v, want newest first %v", got, want)
	}
}

// Insights read the window's automation records newest first: records older than the
// window end the read (however many there are), and only a window holding more than the
// bound is reported cut, with the newest counted.
func TestRuleInsightsReadTheWindowNewestFirst(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	put := func(n int, ruleID string, at time.Time) {
		for i := range n {
			body, _ := json.Marshal(syncerror.Automation{ClaimID: fmt.Sprintf("se_%s_%05d", ruleID, i), RuleID: ruleID,
				Mode: policy.ModeShadow, At: at.Add(-time.Duration(i) * time.Second)})
			d := syncerror.Doc{Key: fmt.Sprintf("~auto#se_%s_%05d", ruleID, i), Body: body, Sort: at.Add(-time.Duration(i) * time.Second)}
			if _, err := f.Claims.PutDoc(context.Background(), "acme", d, f.Now); err != nil {
				t.Fatal(err)
			}
		}
	}
	// 4,990 records in the window, and 1,000 older ones whose keys sort before theirs.
	put(4990, "recent", f.Now.Add(-time.Hour))
	put(1000, "old", f.Now.Add(-8*24*time.Hour))
	in := f.Insights(t)
	if in.Truncated || len(in.Rules) != 1 || in.Rules[0].RuleID != "recent" || in.Rules[0].WouldHaveApplied != 4990 {
		t.Fatalf("truncated %v, rules %+v: want the 4,990 in the window, uncut", in.Truncated, in.Rules)
	}
	// 20 more in the window pass the bound: cut, and what was counted is the newest.
	put(20, "newest", f.Now.Add(-time.Minute))
	in = f.Insights(t)
	if !in.Truncated || len(in.Rules) != 2 || in.Rules[0].RuleID != "newest" || in.Rules[0].WouldHaveApplied != 20 ||
		in.Rules[1].WouldHaveApplied != 4980 {
		t.Fatalf("truncated %v, rules %+v: want cut, the 20 newest and 4,980 of the rest", in.Truncated, in.Rules)
	}
}
