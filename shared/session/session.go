// Package session owns the embedded ERP surface's sessions: the host bootstrap that issues
// a per-tenant service token to a host user's sidecar, the module contexts opened with that
// token, their teardown, the resolution of token + context into the spec's req.user
// principal (identity.SessionResolver), the per-module route check, and the retention
// reaper. Service tokens are shown once and stored only as SHA-256 hashes; stores implement
// Store, keyed by tenant first.
//
// Tenants opt in with the setting [SettingAllowedRoles]: the comma-separated roles a host
// may give its users in embedded sessions. Without it no session can be opened.
package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Modules of the embedded surface (ARCHITECTURE.md, "Embedded surface"). A context is bound
// to exactly one; blueprint routes name theirs in Route.Module.
const (
	ModuleSyncErrors        = "sync-errors"
	ModuleFinanceApprovals  = "finance-approvals"
	ModuleGovernance        = "governance"
	ModuleFieldMapping      = "field-mapping"
	ModuleIntegrationStatus = "integration-status"
	ModuleAudit             = "audit"
	ModuleSettings          = "settings"
)

// Modules lists every module, in the order the documentation presents them.
var Modules = []string{ModuleSyncErrors, ModuleFinanceApprovals, ModuleGovernance, ModuleFieldMapping,
	ModuleIntegrationStatus, ModuleAudit, ModuleSettings}

// Granted reports whether the session may open a context for module.
func (s Session) Granted(module string) bool {
	return s.Modules == nil || slices.Contains(s.Modules, module)
}

// KnownModule reports whether m is one of Modules.
func KnownModule(m string) bool { return slices.Contains(Modules, m) }

// KnownRoles are the roles an embedded session may carry: the identity package's roles.
var KnownRoles = []string{identity.RoleOperator, identity.RoleApprover, identity.RoleAdmin}

// SettingAllowedRoles is the tenant setting listing, comma-separated, the roles a host may
// grant in embedded sessions ("operator" or "operator,approver"). Absent or empty allows
// none, so a tenant has no embedded sessions until it opts in. Unknown roles in it are
// ignored. Changing it affects sessions opened afterwards; a session keeps the roles it was
// opened with until it expires or is torn down.
const SettingAllowedRoles = tenant.KeyEmbeddedAllowedRoles

// AllowedRoles returns the known roles cfg lets embedded sessions carry.
func AllowedRoles(cfg tenant.Config) []string {
	var out []string
	for _, r := range strings.Split(cfg.Settings[SettingAllowedRoles], ",") {
		r = strings.TrimSpace(r)
		if slices.Contains(KnownRoles, r) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// Default lifetimes.
const (
	DefaultTokenTTL   = 8 * time.Hour
	DefaultContextTTL = 15 * time.Minute
)

// Errors a caller branches on. Token failures wrap identity.ErrTokenInvalid or
// identity.ErrTokenExpired, which identity.Authenticate and the handlers answer with 401.
var (
	ErrNotFound = errors.New("session: not found")
	ErrExists   = errors.New("session: already exists")
	// ErrRoleNotAllowed is matched by *RolesNotAllowedError.
	ErrRoleNotAllowed = errors.New("session: role not allowed for the tenant")
	ErrUnknownModule  = errors.New("session: unknown module")
	// ErrModuleNotGranted: the module is known but the session's host bootstrap did not
	// grant it.
	ErrModuleNotGranted = errors.New("session: module not granted to this session")
	// ErrReplayed means a host bootstrap's webhook-id was used before: a signed bootstrap
	// mints a credential, so a captured request must not mint a second one.
	ErrReplayed = errors.New("session: bootstrap request replayed")
)

// RolesNotAllowedError names the requested roles the tenant does not allow.
type RolesNotAllowedError struct {
	Roles   []string
	Allowed []string
}

func (e *RolesNotAllowedError) Error() string {
	return "session: roles not allowed for the tenant: " + strings.Join(e.Roles, ",")
}

// Is makes errors.Is(err, ErrRoleNotAllowed) match.
func (e *RolesNotAllowedError) Is(target error) bool { return target == ErrRoleNotAllowed }

// Session is an issued service token as stored: everything but the token.
type Session struct {
	TenantID string
	ID       string
	// TokenHash is the lower-case hex SHA-256 of the service token.
	TokenHash     string
	UserID        string
	HostAccountID string
	Roles         []string
	// Modules are the modules the host bootstrap granted: contexts open only for these.
	// nil (a session stored before grants existed) grants every module.
	Modules  []string
	IssuedAt time.Time
	// ExpiresAt is a whole second (the resolution of the TTL attribute).
	ExpiresAt time.Time
}

// EmbeddedContext is one module context of a session.
type EmbeddedContext struct {
	TenantID  string
	SessionID string
	ID        string
	Module    string
	IssuedAt  time.Time
	// ExpiresAt is a whole second, never after the session's.
	ExpiresAt time.Time
}

// Reaped counts what one DeleteExpired call removed.
type Reaped struct {
	Tokens   int `json:"tokens"`
	Contexts int `json:"contexts"`
	// Requests are the replay guards of host bootstraps.
	Requests int `json:"requests"`
}

// Total is the number of records removed.
func (r Reaped) Total() int { return r.Tokens + r.Contexts + r.Requests }

// Store persists sessions, contexts and bootstrap replay guards, keyed by tenant first.
// Every write is one conditional single-item operation, so concurrent callers (two reapers,
// two teardowns) each remove a record at most once between them.
type Store interface {
	// CreateSession stores s; ErrExists if its token hash is already stored.
	CreateSession(ctx context.Context, s Session) error
	// SessionByTokenHash returns the session stored under the tenant and token hash, or
	// ErrNotFound. It reads its own and others' writes (a teardown takes effect at once).
	SessionByTokenHash(ctx context.Context, tenantID, tokenHash string) (Session, error)
	// DeleteSession removes the session; ErrNotFound if it was not there.
	DeleteSession(ctx context.Context, tenantID, tokenHash string) error
	// CreateContext stores c; ErrExists if its id is already stored for the session.
	CreateContext(ctx context.Context, c EmbeddedContext) error
	// Context returns a context of the tenant's session, or ErrNotFound (also for a context
	// of another session or tenant).
	Context(ctx context.Context, tenantID, sessionID, contextID string) (EmbeddedContext, error)
	// DeleteContexts removes every context of the session and returns how many it removed.
	DeleteContexts(ctx context.Context, tenantID, sessionID string) (int, error)
	// ClaimRequest records a host bootstrap's request id until expiresAt; ErrExists if it
	// is already recorded.
	ClaimRequest(ctx context.Context, tenantID, requestID string, expiresAt time.Time) error
	// ReleaseRequest forgets a claimed request id, so a bootstrap that failed after the
	// claim may be retried with the same signature.
	ReleaseRequest(ctx context.Context, tenantID, requestID string) error
	// DeleteExpired removes the tenant's records whose expiry second is before now's, each
	// with a delete conditional on still being expired, and counts only the deletes it
	// made itself. On error it returns what it removed so far.
	DeleteExpired(ctx context.Context, tenantID string, now time.Time) (Reaped, error)
}

// Expired reports whether a record expiring at expiresAt is due for reaping at now: its
// expiry second is strictly before now's (DynamoDB's "expires_at < :now" on epoch seconds).
// Every Store reaps by this rule, so all backends remove the same records.
func Expired(expiresAt, now time.Time) bool { return expiresAt.Unix() < now.Unix() }
