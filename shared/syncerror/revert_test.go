package syncerror_test

import (
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert writes each field back to what the record held before the fix (an absent one
// cleared with null); where a value before was not read or not kept there is no revert to
// write, and so none for a retry to look for.
func TestRevertChangesAreTheValuesBeforeTheFix(t *testing.T) {
	c := syncerror.Claim{ID: "se_1", Applied: &syncerror.AppliedWrite{Prior: []syncerror.PriorValue{
		{Path: "shipcountry", Value: "Deutschland", Wrote: "DE"}, {Path: "memo", Absent: true, Wrote: "rush"}}}}
	want := []syncerror.FieldChange{{Path: "shipcountry", Before: "DE", After: "Deutschland"}, {Path: "memo", Before: "rush", After: nil}}
	if got := syncerror.RevertChanges(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("RevertChanges %+v; want %+v", got, want)
	}
	if got := syncerror.RevertKey(c); got != syncerror.FixKey("se_1-revert", want) {
		t.Fatalf("RevertKey %q", got)
	}
	for name, a := range map[string]*syncerror.AppliedWrite{
		"not applied": nil, "no prior read": {},
		"a prior withheld": {Prior: []syncerror.PriorValue{{Path: "shipcountry", Value: "Deutschland", Wrote: "DE"}, {Path: "taxid", Withheld: true, Wrote: "DE1"}}},
	} {
		if got := syncerror.RevertChanges(syncerror.Claim{ID: "se_1", Applied: a}); got != nil {
			t.Errorf("%s: RevertChanges %+v; want none", name, got)
		}
	}
}
