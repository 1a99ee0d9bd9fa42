package stack

import (
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// Every kind of route validate accepts, and the public one, says why API Gateway does not
// authorize it; a new kind without a reason would leave its routes with an APIG4 finding.
func TestEveryRouteAuthHasANagReason(t *testing.T) {
	kinds := []blueprint.Auth{blueprint.AuthPublic}
	for a := range routeAuths {
		kinds = append(kinds, a)
	}
	for _, a := range kinds {
		if routeAuthReason[a] == "" {
			t.Errorf("route auth %q has no reason for AwsSolutions-APIG4", a)
		}
	}
}
