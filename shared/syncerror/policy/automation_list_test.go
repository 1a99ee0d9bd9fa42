package policy_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

func automationPage(t *testing.T, f *roomtest.AssistFixture, query string) []syncerror.Automation {
	t.Helper()
	w := f.As(t, "olga", "operator", "GET", "/automation?"+query, "")
	var page struct{ Items []syncerror.Automation }
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != 200 {
		t.Fatalf("automation %s: %d %s", query, w.Code, w.Body)
	}
	return page.Items
}

// "Applied by rules" lists what a rule wrote, not what auto_apply off kept it from
// writing, and names each by its error and record.
func TestAutomationListAppliedOnlyNamedByErrorAndRecord(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"fields":["subsidiary"]},"apply":"auto","mode":"enforce"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	f.Arrive(t, "E-OFF", "SO-0", `{"subsidiary":"Acme UK"}`)
	f.AutoApply(t, "true")
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"}
	on := f.Arrive(t, "E-ON", "SO-1", `{"subsidiary":"Acme UK"}`)
	if all := automationPage(t, f, "mode=enforce"); len(all) != 2 {
		t.Fatalf("every enforce record: %+v", all)
	}
	got := automationPage(t, f, "mode=enforce&outcome=applied")
	if len(got) != 1 || got[0].ClaimID != on.ID || got[0].Outcome != "applied" {
		t.Fatalf("applied only: %+v", got)
	}
	if got[0].ErrorID != "E-ON" || got[0].RecordID != "SO-1" || got[0].RecordType == "" {
		t.Fatalf("named by error and record: %+v", got[0])
	}
	if w := f.As(t, "olga", "operator", "GET", "/automation?outcome=maybe", ""); w.Code != 400 {
		t.Fatalf("unknown outcome: %d", w.Code)
	}
}

// The disagreements of one shadow rule are what the enforce confirmation lists to open.
func TestAutomationListDisagreementsOfARule(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subs","match":{"fields":["subsidiary"]},"apply":"auto"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	var rows []syncerror.Claim
	for _, id := range []string{"D-1", "D-2", "D-3"} {
		rows = append(rows, f.Arrive(t, id, "SO-"+id, `{"subsidiary":"Acme UK","id":"`+id+`"}`))
	}
	f.As(t, "olga", "operator", "POST", "/p/"+rows[0].ID+"/approve", "")
	f.As(t, "olga", "operator", "POST", "/p/"+rows[1].ID+"/reject", `{"reason":"wrong entity"}`)
	got := automationPage(t, f, "mode=shadow&rule=subs&outcome=disagreed")
	if len(got) != 1 || got[0].ClaimID != rows[1].ID || got[0].Outcome != "rejected" {
		t.Fatalf("disagreements: %+v", got)
	}
	if other := automationPage(t, f, "mode=shadow&rule=other"); len(other) != 0 {
		t.Fatalf("another rule's: %+v", other)
	}
	ids := []string{}
	for _, a := range automationPage(t, f, "mode=shadow&rule=subs") {
		ids = append(ids, a.ErrorID)
	}
	slices.Sort(ids)
	if len(ids) != 3 || ids[0] != "D-1" {
		t.Fatalf("all of the rule's: %v", ids)
	}
}
