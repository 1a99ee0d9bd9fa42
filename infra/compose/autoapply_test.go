package compose_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/tenant"
)

// An enforced auto rule applies the next matching sync error through the approve path
// (lease, the real guard, audit) as policy:<rule>, the fake host ERP's record changes, and
// an approver's Revert writes the value before back.
func TestEnforcedRuleAppliesAndRevertRestoresTheERPRecord(t *testing.T) {
	f := newFlow(t)
	const admin = "admin@demo"
	policy := `{"version":0,"rules":[{"id":"countries","match":{"classes":["value"],"fields":["ship*"]},"apply":"auto","mode":"enforce"}]}`
	if w := f.call(t, admin, "PUT", "/api/settings/approval-policy", policy); w.Code != 200 {
		t.Fatalf("policy: %d %s", w.Code, w.Body)
	}
	if err := (tenant.Admin{Store: f.deps.Tenants}).Set(context.Background(), "demo", tenant.KeyAutoApply, "true"); err != nil {
		t.Fatal(err)
	}

	id := f.diagnosed(t)
	row := f.row(t, id)
	if row.Status != syncerror.StatusApproved {
		t.Fatalf("not auto-applied: %s %+v", row.Status, row.History)
	}
	last := row.History[len(row.History)-1]
	if last.Actor != "policy:countries" || last.Action != "approved" {
		t.Fatalf("history %+v", row.History)
	}
	rec, _ := f.erp.Get("salesOrder", "SO-10042")
	if rec.Fields["shipcountry"] != "DE" || f.erp.WriteCount() != 1 {
		t.Fatalf("ERP record %+v, %d writes", rec.Fields, f.erp.WriteCount())
	}
	audited := false
	for _, a := range f.audits(t, "syncerror") {
		audited = audited || a.ActionKey == "syncerror.approve" && a.Actor.Actor == "policy:countries" && a.Result == "success"
	}
	if !audited {
		t.Fatal("the auto-apply is not audited as policy:countries")
	}
	w := f.call(t, operator, "GET", "/api/sync-error-assist/automation?mode=enforce", "")
	var list struct{ Items []syncerror.Automation }
	if _ = json.Unmarshal(w.Body.Bytes(), &list); len(list.Items) != 1 || list.Items[0].Outcome != "applied" {
		t.Fatalf("automation %d %s", w.Code, w.Body)
	}

	if w := f.call(t, operator, "POST", "/api/sync-error-assist/proposals/"+id+"/revert", ""); w.Code != 403 {
		t.Fatalf("operator revert: %d", w.Code)
	}
	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/revert", `{"reason":"the shop sends names"}`); w.Code != 200 {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	rec, _ = f.erp.Get("salesOrder", "SO-10042")
	if rec.Fields["shipcountry"] != "Deutschland" || f.row(t, id).Status != syncerror.StatusReverted {
		t.Fatalf("after revert: ERP %+v, row %s", rec.Fields, f.row(t, id).Status)
	}
	w = f.call(t, operator, "GET", "/api/sync-error-assist/insights?window=7d", "")
	var in automation.Insights
	// A rule's fix that was reverted counts as reverted only (issue 35: the rate is the
	// quotient of the counts shown); the rule's own record still says it applied it.
	if _ = json.Unmarshal(w.Body.Bytes(), &in); in.Total.AutoApplied != 0 || in.Total.Reverted != 1 || len(in.Rules) != 1 ||
		in.Rules[0].Applied != 1 || in.Rules[0].Reverted != 1 {
		t.Fatalf("insights %d %s", w.Code, w.Body)
	}
}
