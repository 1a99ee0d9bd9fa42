package stack

import (
	"strings"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// DefaultJWTAudience is the audience operator and approver tokens must carry when
// IdentityProps.Audience is empty.
const DefaultJWTAudience = "syncassist"

// Environment variables of the functions behind operator and approver routes.
const (
	envJWTIssuer   = "JWT_ISSUER"
	envJWTAudience = "JWT_AUDIENCE"
	envJWTJWKSURL  = "JWT_JWKS_URL"
	envJWTTypes    = "JWT_TOKEN_TYPES"
)

// jwtEnvNames are the variables jwtEnvironment may set, for validate's duplicate check.
var jwtEnvNames = []string{envJWTIssuer, envJWTAudience, envJWTJWKSURL, envJWTTypes}

// IdentityProps configures how operator and approver routes verify their callers' JWTs.
type IdentityProps struct {
	// Issuer is the exact "iss" the tokens carry. Without it the authenticated routes
	// cannot verify anyone and answer 503; synthesis warns but goes on.
	Issuer string
	// Audience is the "aud" the tokens must carry (DefaultJWTAudience when empty).
	Audience string
	// JWKSURL serves the issuer's signing keys (Issuer + "/.well-known/jwks.json" when
	// empty, without doubling a trailing slash of Issuer).
	JWKSURL string
	// TokenTypes are the comma-separated typ headers accepted ("" is the functions'
	// default, at+jwt and application/at+jwt).
	TokenTypes string
}

func (i IdentityProps) withDefaults() IdentityProps {
	if i.Audience == "" {
		i.Audience = DefaultJWTAudience
	}
	if i.JWKSURL == "" && i.Issuer != "" {
		i.JWKSURL = strings.TrimSuffix(i.Issuer, "/") + "/.well-known/jwks.json"
	}
	return i
}

// environment is what a function behind an authenticated route learns about the issuer.
// Unset values are left out rather than set empty; the function reads "" either way.
func (i IdentityProps) environment() map[string]string {
	i = i.withDefaults()
	env := map[string]string{envJWTAudience: i.Audience}
	if i.Issuer != "" {
		env[envJWTIssuer] = i.Issuer
	}
	if i.JWKSURL != "" {
		env[envJWTJWKSURL] = i.JWKSURL
	}
	if i.TokenTypes != "" {
		env[envJWTTypes] = i.TokenTypes
	}
	return env
}

// verifiesJWT reports whether a function sits behind a route that authenticates callers
// by JWT (operators and approvers). Signed webhooks verify a tenant secret instead, and
// queue or scheduled functions have no caller to verify.
func verifiesJWT(f blueprint.Function) bool {
	return f.Route != nil && f.Route.Auth.ByJWT()
}
