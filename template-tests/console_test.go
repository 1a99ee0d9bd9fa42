package templatetests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The console answers "/" and every other path not routed elsewhere (its assets and its
// shareable URLs), same origin as the API; the OpenAPI document is public.
func TestConsoleAndOpenAPIRoutes(t *testing.T) {
	s := devStack.get(t)
	console := s.functionID(t, blueprint.FuncConsole)
	for _, key := range []string{"GET /", "GET /{path+}"} {
		s.has(t, "AWS::ApiGatewayV2::Route", obj{"RouteKey": key, "AuthorizationType": "NONE"})
	}
	s.has(t, "AWS::ApiGatewayV2::Route", obj{"RouteKey": "GET /api/openapi.json"})
	s.has(t, "AWS::ApiGatewayV2::Integration", obj{"IntegrationUri": getAtt(console, "Arn")})
}

// The console learns where to sign in, and nothing secret: a public client uses PKCE.
func TestConsoleSignInEnvironment(t *testing.T) {
	s := configuredStack.get(t)
	s.hasFunction(t, blueprint.FuncConsole, obj{"Environment": obj{"Variables": obj{
		"CONSOLE_OIDC_ISSUER":               testIssuer,
		"CONSOLE_OIDC_CLIENT_ID":            "console-client",
		"CONSOLE_OIDC_TOKEN_ENDPOINT":       "https://login.example.com/oauth2/token",
		"CONSOLE_FRAME_ANCESTORS":           "https://1234567.app.erp.example.com",
		"CONSOLE_DEV_SIGN_IN":               assertions.Match_Absent(),
		"CONSOLE_OIDC_SCOPE":                assertions.Match_Absent(),
		"DIAGNOSIS_QUEUE_URL":               assertions.Match_Absent(),
		"JWT_JWKS_URL":                      assertions.Match_Absent(),
		"CONSOLE_OIDC_END_SESSION_ENDPOINT": assertions.Match_Absent(),
	}}})
}

// Allowed origins get the API's own CORS answers: every method a route is served with
// (PUT and PATCH too: the settings and policy routes), the headers browsers use, no
// webhook headers, no credentials.
func TestCORSPreflightForAllowedOrigins(t *testing.T) {
	s := configuredStack.get(t)
	s.has(t, "AWS::ApiGatewayV2::Api", obj{"CorsConfiguration": obj{
		"AllowOrigins":     arr{"https://erp.example.com", "http://127.0.0.1:5173"},
		"AllowMethods":     arr{"OPTIONS", "GET", "POST", "PUT", "PATCH", "DELETE"},
		"AllowHeaders":     arr{"authorization", "content-type", "x-embedded-context-id", "x-correlation-id"},
		"ExposeHeaders":    arr{"x-correlation-id", "retry-after", "location"},
		"AllowCredentials": false,
		"MaxAge":           num(600),
	}})
}

// Same-origin is the default and needs no CORS configuration at all.
func TestNoCORSByDefault(t *testing.T) {
	for _, l := range []*lazyStack{devStack, prodStack} {
		s := l.get(t)
		s.has(t, "AWS::ApiGatewayV2::Api", obj{"CorsConfiguration": assertions.Match_Absent()})
	}
}

// The console reads which origins may frame it for a tenant from the tenant's settings:
// GetItem of the attributes that hold no secret (key, settings, times, version, system
// aliases), nothing else (no secret, no connector).
func TestConsoleReadsTenantSettingsOnly(t *testing.T) {
	s := devStack.get(t)
	found := false
	for _, st := range s.statements(t, blueprint.FuncConsole) {
		for _, a := range values(st["Action"]) {
			if a, _ := a.(string); strings.HasPrefix(a, "dynamodb:") {
				attrs := st["Condition"].(obj)["ForAllValues:StringEquals"].(obj)["dynamodb:Attributes"]
				if a != "dynamodb:GetItem" || fmt.Sprint(attrs) != "[tenant_id settings created_at updated_at version system_aliases]" {
					t.Fatalf("console: %s on %v", a, attrs)
				}
				found = true
			}
		}
	}
	if !found {
		t.Fatal("the console has no read of the tenants' settings")
	}
}
