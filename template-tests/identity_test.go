package templatetests

import (
	"regexp"

	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// issuerWarning is the gist of the warning for a stack without a JWT issuer.
var issuerWarning = regexp.MustCompile(
	`authenticated routes \(.*audit-list.*\) will answer 503 until .*-c jwtIssuer=`)

func TestJWTEnvironmentOnAuthenticatedRoutes(t *testing.T) {
	s := configuredStack.get(t)
	s.hasFunction(t, blueprint.FuncAuditList, obj{"Environment": obj{"Variables": obj{
		"JWT_ISSUER":   testIssuer,
		"JWT_AUDIENCE": "syncassist-test",
		"JWT_JWKS_URL": "https://keys.example.com/jwks.json",
	}}})
}

// Given only the issuer, the audience is "syncassist" and the keys are at the issuer's
// well-known JWKS path (without doubling the issuer's trailing slash).
func TestJWTEnvironmentDefaults(t *testing.T) {
	s := profileStack.get(t)
	s.hasFunction(t, blueprint.FuncAuditList, obj{"Environment": obj{"Variables": obj{
		"JWT_ISSUER":   testIssuer,
		"JWT_AUDIENCE": "syncassist",
		"JWT_JWKS_URL": "https://login.example.com/.well-known/jwks.json",
	}}})
}

// The signed webhook, the queue worker and the scheduled reconcile verify no JWT, so they
// do not learn the issuer.
func TestNoJWTEnvironmentElsewhere(t *testing.T) {
	s := configuredStack.get(t)
	for _, name := range []string{blueprint.FuncIngest, blueprint.FuncDiagnose, blueprint.FuncReconcile} {
		t.Run(name, func(t *testing.T) {
			s.hasFunction(t, name, obj{"Environment": obj{"Variables": obj{
				"JWT_ISSUER":   assertions.Match_Absent(),
				"JWT_AUDIENCE": assertions.Match_Absent(),
				"JWT_JWKS_URL": assertions.Match_Absent(),
			}}})
		})
	}
}

// Without an issuer the stack still synthesizes (offline, in these tests) but says that
// the authenticated routes cannot work yet.
func TestMissingIssuerWarns(t *testing.T) {
	s := devStack.get(t)
	s.hasMessage(t, "warning", issuerWarning)
}

func TestConfiguredIssuerDoesNotWarn(t *testing.T) {
	s := configuredStack.get(t)
	if ws := findMessages(s.messages, "warning", issuerWarning); len(ws) > 0 {
		t.Errorf("warnings about the issuer although it is set: %v", ws)
	}
}
