package syncerror_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A confirmation within one confirms only the keys both name: a single approve's fixKey
// never widens what a bulk route confirmed, and without one nothing is judged.
func TestWithConfirmedOnlyNarrows(t *testing.T) {
	de := []syncerror.FieldChange{{Path: "shipcountry", After: "DE"}}
	at := []syncerror.FieldChange{{Path: "shipcountry", After: "AT"}}
	kde, _ := syncerror.ConfirmKey("value", de)
	kat, _ := syncerror.ConfirmKey("value", at)
	if syncerror.Unconfirmed(context.Background(), "value", at) {
		t.Fatal("an approve without a confirmation was judged")
	}
	bulk := syncerror.WithConfirmed(context.Background(), []string{kde})
	inner := syncerror.WithConfirmed(bulk, []string{kat})
	if !syncerror.Unconfirmed(inner, "value", at) || !syncerror.Unconfirmed(inner, "value", de) {
		t.Fatal("a key the outer confirmation does not name widened it")
	}
	if both := syncerror.WithConfirmed(bulk, []string{kde, kat}); syncerror.Unconfirmed(both, "value", de) || !syncerror.Unconfirmed(both, "value", at) {
		t.Fatal("the keys both name should be confirmed, and only them")
	}
}
