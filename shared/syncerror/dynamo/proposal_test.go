package dynamo

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A proposal is stored as two attributes, each written from a struct of its own: a field
// added to syncerror.Proposal and to neither would be dropped on every write without an
// error. Every JSON name of Proposal is in one of the two parts ("learned" in both: the
// listed part keeps its count, the rest its whole provenance), and neither names another.
func TestProposalPartsCoverEveryProposalField(t *testing.T) {
	names := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
		return out
	}
	want := names(syncerror.Proposal{})
	listed, more := names(listedProposal{}), names(moreProposal{})
	for _, n := range want {
		if !slices.Contains(listed, n) && !slices.Contains(more, n) {
			t.Errorf("Proposal's %q is in neither stored part (listedProposal, moreProposal): it would be lost on write", n)
		}
	}
	for _, n := range append(listed, more...) {
		if !slices.Contains(want, n) {
			t.Errorf("a stored part names %q, which Proposal does not have", n)
		}
	}
}
