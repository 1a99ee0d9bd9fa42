// Package identitytest holds identity stand-ins for tests and load suites.
package identitytest

import (
	"context"
	"strings"

	"github.com/syncassist/syncassist/shared/identity"
)

// RoleTokens verifies bearer tokens of the form "<role>@<tenant>": the token names the
// role and the tenant, and the subject is SubjectPrefix and the role ("user-" when unset).
// It lets tests call role-checked routes through the real authentication middleware.
type RoleTokens struct{ SubjectPrefix string }

// Verify implements identity.TokenVerifier.
func (r RoleTokens) Verify(_ context.Context, token string) (identity.Principal, error) {
	role, tenantID, _ := strings.Cut(token, "@")
	if !identity.KnownRole(role) {
		return identity.Principal{}, identity.ErrTokenInvalid
	}
	prefix := r.SubjectPrefix
	if prefix == "" {
		prefix = "user-"
	}
	return identity.Principal{Subject: prefix + role, TenantID: tenantID, Roles: []string{role}}, nil
}
