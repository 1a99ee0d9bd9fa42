package automation_test

import (
	"context"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// countingAutomation counts the reads of rows' automation records.
type countingAutomation struct {
	*syncerrortest.ClaimStore
	reads int
}

func (c *countingAutomation) GetDoc(ctx context.Context, tenantID, key string) (syncerror.Doc, error) {
	if strings.HasPrefix(key, syncerror.DocAutomation) {
		c.reads++
	}
	return c.ClaimStore.GetDoc(ctx, tenantID, key)
}

// The stored proposal says whether an auto rule matched it (Proposal.Automation), so a
// decision on a row no rule matched reads no automation record; a shadow rule's row still
// has its record read and its outcome set (TestShadowRuleReportsAgreement).
func TestAProposalSaysWhetherItHasAnAutomationRecord(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"subsidiaries","match":{"classes":["value"],"fields":["subsidiary"]},"apply":"auto"}]}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	shadowed := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	f.AI.Fix = []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
	plain := f.Arrive(t, "E-2", "SO-2", `{"shipcountry":"Deutschland"}`)
	for row, want := range map[string]string{shadowed.ID: "shadow", plain.ID: syncerror.NoAutomation} {
		got, err := f.Claims.Get(context.Background(), "acme", row)
		if err != nil || got.Proposal == nil || got.Proposal.Automation != want {
			t.Fatalf("row %s: proposal %+v (%v), want automation %q", row, got.Proposal, err, want)
		}
	}
	docs := &countingAutomation{ClaimStore: f.Claims}
	f.Worker.Assist.Store = docs // the approve path's Assist too: one shared
	if w := f.As(t, "anna", "approver", "POST", "/p/"+plain.ID+"/approve", ""); w.Code != 200 || docs.reads != 0 {
		t.Fatalf("approve of a row no rule matched: %d %s, %d automation reads, want none", w.Code, w.Body, docs.reads)
	}
	if w := f.As(t, "olga", "operator", "POST", "/p/"+shadowed.ID+"/approve", ""); w.Code != 200 || docs.reads != 1 {
		t.Fatalf("approve of a shadowed row: %d %s, %d automation reads, want one", w.Code, w.Body, docs.reads)
	}
}
