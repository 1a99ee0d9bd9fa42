package stack

import (
	"strings"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/console"
)

// ConsoleProps configures the operator console's sign-in: an OpenID Connect public client
// (authorization code with PKCE) at the issuer the API trusts (IdentityProps.Issuer).
type ConsoleProps struct {
	ClientID string
	// AuthorizationEndpoint and TokenEndpoint default to <issuer>/authorize and
	// <issuer>/token; most providers need them given (Cognito: <domain>/oauth2/authorize).
	AuthorizationEndpoint, TokenEndpoint string
	// EndSessionEndpoint, when set, is where sign-out sends the browser.
	EndSessionEndpoint string
	// Scope defaults to "openid"; TokenType ("access_token" or "id_token") is the token
	// the API verifies, whose aud must be IdentityProps.Audience.
	Scope, TokenType string
	// FrameAncestors are exact https origins allowed to frame the console (the host
	// ERP's, for embedded panels).
	FrameAncestors []string
}

// environment is what the console function learns; nothing in it is a secret.
func (c ConsoleProps) environment(issuer string) map[string]string {
	env := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			env[k] = v
		}
	}
	set(console.EnvIssuer, issuer)
	set(console.EnvClientID, c.ClientID)
	set(console.EnvAuthorization, c.AuthorizationEndpoint)
	set(console.EnvToken, c.TokenEndpoint)
	set(console.EnvEndSession, c.EndSessionEndpoint)
	set(console.EnvScope, c.Scope)
	set(console.EnvTokenType, c.TokenType)
	set(console.EnvFrameAncestors, strings.Join(c.FrameAncestors, " "))
	return env
}

// servesConsole reports whether f is the console function.
func servesConsole(f blueprint.Function) bool { return f.Name == blueprint.FuncConsole }
