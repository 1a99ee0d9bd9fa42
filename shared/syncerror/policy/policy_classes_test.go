package policy_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// The classes a policy rule may name are one list: every class the diagnosis gives is
// one of them, and the API document's enum (which types the console's class checkboxes,
// an exhaustive record there) is exactly that list.
func TestPolicyClassesAreTheKnownClasses(t *testing.T) {
	for _, c := range ai.Classes() {
		if !slices.Contains(policy.Classes, string(c)) {
			t.Errorf("the diagnosis class %q cannot be named by a policy rule", c)
		}
	}
	var doc struct {
		Components struct {
			Schemas struct {
				PolicyMatch struct {
					Properties struct {
						Classes struct {
							Items struct {
								Enum []string `json:"enum"`
							} `json:"items"`
						} `json:"classes"`
					} `json:"properties"`
				} `json:"PolicyMatch"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(apidoc.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Components.Schemas.PolicyMatch.Properties.Classes.Items.Enum; !slices.Equal(got, policy.Classes) {
		t.Fatalf("the API document's classes %v, the policy's %v", got, policy.Classes)
	}
}
