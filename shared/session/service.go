package session

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenantrun"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Audit action keys (action type audit.TypeSession).
const (
	ActionBootstrap = "session.bootstrap"
	ActionContext   = "session.context"
	ActionTeardown  = "session.teardown"
	ActionReap      = "session.reap"
)

// ReaperTrigger names the reaper in the actor of its audit records (identity.ForTenant).
const ReaperTrigger = "schedule:session-reaper"

// TenantLister lists tenant configurations; tenant.Store satisfies it.
type TenantLister interface {
	List(ctx context.Context) ([]tenant.Config, error)
}

// Auditor writes audit records; *audit.Log satisfies it.
type Auditor interface {
	Write(ctx context.Context, e audit.Entry) error
}

var (
	_ Auditor                  = (*audit.Log)(nil)
	_ TenantLister             = tenant.Store(nil)
	_ identity.SessionResolver = (*Service)(nil)
)

// Service issues, resolves, tears down and reaps embedded sessions.
type Service struct {
	Store Store
	// Tenants is listed by the reaper.
	Tenants TenantLister
	Audit   Auditor
	// Auth authenticates the host bootstrap (the tenant's webhook secret).
	Auth *hostauth.Authenticator[tenant.Config]
	Now  func() time.Time
	// TokenTTL and ContextTTL override DefaultTokenTTL and DefaultContextTTL.
	TokenTTL   time.Duration
	ContextTTL time.Duration
	// Log receives the reaper's log lines; nil means slog.Default(). Handlers log through
	// the request's logger.
	Log *slog.Logger

	// ReapOrder keeps the tenants whose reap ran out of time, to try them last next run
	// (nil: this value's own, in the process).
	ReapOrder tenantrun.Memory

	reapOrder tenantrun.InProcess
}

// BootstrapRequest is the host bootstrap body.
type BootstrapRequest struct {
	UserID        string   `json:"userId"`
	HostAccountID string   `json:"hostAccountId"`
	Roles         []string `json:"roles"`
	// Modules are the embedded modules the session may open contexts for; omitted grants
	// every module. A host that embeds some screens names them, so a leaked service token
	// opens nothing else.
	Modules []string `json:"modules,omitempty"`
}

// Issued is the host bootstrap's answer. ServiceToken is shown here once and never again.
type Issued struct {
	SessionID    string    `json:"sessionId"`
	ServiceToken string    `json:"serviceToken"`
	ExpiresAt    time.Time `json:"expiresAt"`
}

// OpenedContext is the context bootstrap's answer.
type OpenedContext struct {
	EmbeddedContextID string    `json:"embeddedContextId"`
	Module            string    `json:"module"`
	ExpiresAt         time.Time `json:"expiresAt"`
}

// ValidationError lists the invalid fields of a request body.
type ValidationError struct {
	Fields []httpapi.FieldError
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("session: %d invalid field(s), first %s: %s", len(e.Fields), e.Fields[0].Field, e.Fields[0].Message)
}

// maxIDLen bounds userId and hostAccountId.
const maxIDLen = 128

// validate checks r and returns it with duplicate roles removed (roles may repeat;
// modules may not).
func (r BootstrapRequest) validate() (BootstrapRequest, error) {
	var fields []httpapi.FieldError
	bad := func(field, msg string) { fields = append(fields, httpapi.FieldError{Field: field, Message: msg}) }
	checkID := func(field, v string) {
		switch {
		case v == "":
			bad(field, "required")
		case !utf8.ValidString(v) || utf8.RuneCountInString(v) > maxIDLen:
			bad(field, fmt.Sprintf("at most %d characters of valid UTF-8", maxIDLen))
		case hasControl(v):
			bad(field, "must not contain control characters")
		}
	}
	checkID("userId", r.UserID)
	checkID("hostAccountId", r.HostAccountID)
	var roles []string
	if len(r.Roles) == 0 {
		bad("roles", "a non-empty array of roles: "+fmt.Sprint(KnownRoles))
	}
	for i, role := range r.Roles {
		if !slices.Contains(KnownRoles, role) {
			bad(fmt.Sprintf("roles[%d]", i), fmt.Sprintf("unknown role; known roles are %v", KnownRoles))
		} else if !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
	}
	var modules []string
	if r.Modules != nil && len(r.Modules) == 0 {
		bad("modules", "omit it to grant every module, or list some of "+fmt.Sprint(Modules))
	}
	for i, m := range r.Modules {
		switch {
		case !KnownModule(m):
			bad(fmt.Sprintf("modules[%d]", i), fmt.Sprintf("unknown module; known modules are %v", Modules))
		case slices.Contains(modules, m):
			// The document's uniqueItems: a repeat is a host's mistake, said so.
			bad(fmt.Sprintf("modules[%d]", i), "listed twice; name each module once")
		default:
			modules = append(modules, m)
		}
	}
	if len(fields) > 0 {
		return BootstrapRequest{}, &ValidationError{Fields: fields}
	}
	r.Roles, r.Modules = roles, modules
	return r, nil
}

func hasControl(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 {
			return true
		}
	}
	return false
}

// Bootstrap opens a session for a host user of the tenant cfg (already authenticated by
// the caller). requestID is the signed request's webhook-id: each one opens at most one
// session, so a replayed request is refused with ErrReplayed. Roles beyond what the tenant
// allows are refused with *RolesNotAllowedError (audited as denied) and nothing is stored.
func (s *Service) Bootstrap(ctx context.Context, cfg tenant.Config, requestID string, req BootstrapRequest) (Issued, error) {
	req, err := req.validate()
	if err != nil {
		return Issued{}, err
	}
	actor := identity.Identity{TenantID: cfg.ID, Actor: req.UserID, Source: identity.SourceUser}
	allowed := AllowedRoles(cfg)
	var denied []string
	for _, r := range req.Roles {
		if !slices.Contains(allowed, r) {
			denied = append(denied, r)
		}
	}
	if len(denied) > 0 {
		s.auditRefusedBootstrap(ctx, actor, map[string]any{
			"hostAccountId": req.HostAccountID, "requestedRoles": req.Roles, "notAllowed": denied,
		})
		return Issued{}, &RolesNotAllowedError{Roles: denied, Allowed: allowed}
	}
	if requestID == "" {
		return Issued{}, errors.New("session: bootstrap without a request id")
	}

	now := s.now()
	token, err := newToken(cfg.ID)
	if err != nil {
		return Issued{}, err
	}
	sessionID, err := newID(sessionIDPrefix)
	if err != nil {
		return Issued{}, err
	}
	switch err := s.Store.ClaimRequest(ctx, cfg.ID, requestID, now.Add(s.replayWindow()).Truncate(time.Second)); {
	case errors.Is(err, ErrExists):
		// A validly signed request that was used before: the host's retry of a lost answer,
		// or a captured request played again. Either way the auditor sees it.
		s.auditRefusedBootstrap(ctx, actor, map[string]any{
			"hostAccountId": req.HostAccountID, "requestedRoles": req.Roles, "replayedRequestId": requestID,
		})
		return Issued{}, ErrReplayed
	case err != nil:
		return Issued{}, fmt.Errorf("claim bootstrap request: %w", err)
	}
	// From here a failure releases the request id: the host may retry the same signed
	// request while it is fresh, and it opened nothing.
	release := func(cause error) error {
		if err := s.Store.ReleaseRequest(ctx, cfg.ID, requestID); err != nil {
			httpapi.Logger(ctx).Warn("releasing a bootstrap request id failed", "tenant", cfg.ID, "error", err)
		}
		return cause
	}
	sess := Session{
		TenantID: cfg.ID, ID: sessionID, TokenHash: hashToken(token),
		UserID: req.UserID, HostAccountID: req.HostAccountID, Roles: req.Roles, Modules: req.Modules,
		IssuedAt: now, ExpiresAt: now.Add(s.tokenTTL()).Truncate(time.Second),
	}
	if err := s.Store.CreateSession(ctx, sess); err != nil {
		return Issued{}, release(fmt.Errorf("store session: %w", err))
	}
	actor.Roles, actor.SessionID = req.Roles, sess.ID
	if err := s.Audit.Write(ctx, audit.Entry{Actor: actor, ActionType: audit.TypeSession, ActionKey: ActionBootstrap,
		Result: audit.ResultSuccess, Resource: "session/" + sess.ID, Details: map[string]any{
			"hostAccountId": req.HostAccountID, "roles": req.Roles, "modules": req.Modules, "expiresAt": sess.ExpiresAt,
		}}); err != nil {
		// No session is handed out unaudited. The stored one is unusable, because its
		// token exists nowhere; the reaper removes it. Removing it now is only tidier.
		if derr := s.Store.DeleteSession(ctx, cfg.ID, sess.TokenHash); derr != nil {
			httpapi.Logger(ctx).Warn("removing an unaudited session failed", "tenant", cfg.ID, "session", sess.ID, "error", derr)
		}
		return Issued{}, release(err)
	}
	return Issued{SessionID: sess.ID, ServiceToken: token, ExpiresAt: sess.ExpiresAt}, nil
}

// auditRefusedBootstrap records a signed bootstrap that was refused (result denied). The
// refusal stands whatever happens to the record; a lost one is logged.
func (s *Service) auditRefusedBootstrap(ctx context.Context, actor identity.Identity, details map[string]any) {
	if err := s.Audit.Write(ctx, audit.Entry{Actor: actor, ActionType: audit.TypeSession, ActionKey: ActionBootstrap,
		Result: audit.ResultDenied, Details: details}); err != nil {
		httpapi.Logger(ctx).Error("audit of a refused bootstrap failed", "tenant", actor.TenantID, "error", err)
	}
}

// OpenContext opens a context for module in the session of serviceToken. The context
// expires after ContextTTL, never after its session.
func (s *Service) OpenContext(ctx context.Context, serviceToken, module string) (OpenedContext, error) {
	sess, err := s.authenticate(ctx, serviceToken)
	if err != nil {
		return OpenedContext{}, err
	}
	return s.openContext(ctx, sess, module)
}

func (s *Service) openContext(ctx context.Context, sess Session, module string) (OpenedContext, error) {
	if !KnownModule(module) {
		return OpenedContext{}, fmt.Errorf("%w %q", ErrUnknownModule, module)
	}
	if !sess.Granted(module) {
		// A session reaching for a module its host did not embed (a leaked token probing,
		// or a host wired wrong) is audited; the refusal stands whatever happens to the record.
		if err := s.Audit.Write(ctx, audit.Entry{Actor: userIdentity(sess), ActionType: audit.TypeSession,
			ActionKey: ActionContext, Result: audit.ResultDenied, Resource: "session/" + sess.ID,
			Details: map[string]any{"module": module, "grantedModules": sess.Modules}}); err != nil {
			httpapi.Logger(ctx).Error("audit of a refused context failed", "tenant", sess.TenantID, "session", sess.ID, "error", err)
		}
		return OpenedContext{}, fmt.Errorf("%w: %q", ErrModuleNotGranted, module)
	}
	now := s.now()
	id, err := newID(contextIDPrefix)
	if err != nil {
		return OpenedContext{}, err
	}
	expires := now.Add(s.contextTTL()).Truncate(time.Second)
	if expires.After(sess.ExpiresAt) {
		expires = sess.ExpiresAt
	}
	c := EmbeddedContext{TenantID: sess.TenantID, SessionID: sess.ID, ID: id, Module: module, IssuedAt: now, ExpiresAt: expires}
	if err := s.Store.CreateContext(ctx, c); err != nil {
		return OpenedContext{}, fmt.Errorf("store context: %w", err)
	}
	// Unaudited, the context is refused: its id was never shown, so nobody can use it and
	// the reaper removes it.
	if err := s.Audit.Write(ctx, audit.Entry{Actor: userIdentity(sess), ActionType: audit.TypeSession,
		ActionKey: ActionContext, Result: audit.ResultSuccess, Resource: "session/" + sess.ID,
		Details: map[string]any{"contextId": c.ID, "module": module, "expiresAt": c.ExpiresAt}}); err != nil {
		return OpenedContext{}, err
	}
	return OpenedContext{EmbeddedContextID: c.ID, Module: module, ExpiresAt: c.ExpiresAt}, nil
}

// Teardown revokes serviceToken and every context opened with it. The token must still be
// valid: a second teardown (or one with an expired token) fails like any other use of a
// dead token, with an error wrapping identity.ErrTokenInvalid or ErrTokenExpired.
func (s *Service) Teardown(ctx context.Context, serviceToken string) error {
	sess, err := s.authenticate(ctx, serviceToken)
	if err != nil {
		return err
	}
	// The token goes first: without it no context resolves, so revocation is complete the
	// moment this delete succeeds, whatever happens to the contexts.
	switch err := s.Store.DeleteSession(ctx, sess.TenantID, sess.TokenHash); {
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("session: torn down concurrently: %w", identity.ErrTokenInvalid)
	case err != nil:
		return fmt.Errorf("revoke session: %w", err)
	}
	log := httpapi.Logger(ctx)
	n, err := s.Store.DeleteContexts(ctx, sess.TenantID, sess.ID)
	if err != nil {
		log.Warn("deleting a revoked session's contexts failed; they are unusable and the reaper removes them",
			"tenant", sess.TenantID, "session", sess.ID, "error", err)
	}
	details := map[string]any{"contextsDeleted": n}
	// The revocation has happened and must not be reported as failed; a lost audit record
	// is logged loudly instead.
	if err := s.Audit.Write(ctx, audit.Entry{Actor: userIdentity(sess), ActionType: audit.TypeSession,
		ActionKey: ActionTeardown, Result: audit.ResultSuccess, Resource: "session/" + sess.ID, Details: details}); err != nil {
		log.Error("audit of a session teardown failed", "tenant", sess.TenantID, "session", sess.ID, "error", err)
	}
	return nil
}

// Resolve implements identity.SessionResolver: the principal of a context opened with
// serviceToken. An unknown, revoked or malformed token, or a context of another session or
// tenant, wraps identity.ErrTokenInvalid; an expired token or context wraps
// identity.ErrTokenExpired; any other error means the store is unavailable.
func (s *Service) Resolve(ctx context.Context, serviceToken, contextID string) (identity.Principal, error) {
	sess, err := s.authenticate(ctx, serviceToken)
	if err != nil {
		return identity.Principal{}, err
	}
	if !validContextID(contextID) {
		return identity.Principal{}, fmt.Errorf("session: malformed context id: %w", identity.ErrTokenInvalid)
	}
	c, err := s.Store.Context(ctx, sess.TenantID, sess.ID, contextID)
	switch {
	case errors.Is(err, ErrNotFound):
		return identity.Principal{}, fmt.Errorf("session: context not of this session: %w", identity.ErrTokenInvalid)
	case err != nil:
		return identity.Principal{}, fmt.Errorf("read context: %w", err)
	case c.TenantID != sess.TenantID || c.SessionID != sess.ID:
		return identity.Principal{}, fmt.Errorf("session: context not of this session: %w", identity.ErrTokenInvalid)
	case !s.now().Before(c.ExpiresAt):
		return identity.Principal{}, fmt.Errorf("session: context expired: %w", identity.ErrTokenExpired)
	}
	return identity.Principal{Subject: sess.UserID, TenantID: sess.TenantID, Roles: slices.Clone(sess.Roles),
		SessionID: sess.ID, Module: c.Module}, nil
}

// authenticate returns the live session of serviceToken. Errors never contain the token.
func (s *Service) authenticate(ctx context.Context, serviceToken string) (Session, error) {
	tenantID, ok := parseToken(serviceToken)
	if !ok {
		return Session{}, fmt.Errorf("session: malformed service token: %w", identity.ErrTokenInvalid)
	}
	hash := hashToken(serviceToken)
	sess, err := s.Store.SessionByTokenHash(ctx, tenantID, hash)
	switch {
	case errors.Is(err, ErrNotFound):
		return Session{}, fmt.Errorf("session: unknown or revoked service token: %w", identity.ErrTokenInvalid)
	case err != nil:
		return Session{}, fmt.Errorf("read session: %w", err)
	}
	// The keyed lookup already matched; comparing the stored hash in constant time keeps a
	// store that answered the wrong item (or a prefix match) from letting anyone in.
	if subtle.ConstantTimeCompare([]byte(sess.TokenHash), []byte(hash)) != 1 || sess.TenantID != tenantID {
		return Session{}, fmt.Errorf("session: service token does not match: %w", identity.ErrTokenInvalid)
	}
	if !s.now().Before(sess.ExpiresAt) {
		return Session{}, fmt.Errorf("session: service token expired: %w", identity.ErrTokenExpired)
	}
	return sess, nil
}

// userIdentity is the audit actor of a session's own actions: the host user, as the spec's
// req.user.
func userIdentity(sess Session) identity.Identity {
	return identity.Identity{TenantID: sess.TenantID, Actor: sess.UserID, Roles: slices.Clone(sess.Roles),
		Source: identity.SourceUser, SessionID: sess.ID}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) tokenTTL() time.Duration {
	if s.TokenTTL > 0 {
		return s.TokenTTL
	}
	return DefaultTokenTTL
}

func (s *Service) contextTTL() time.Duration {
	if s.ContextTTL > 0 {
		return s.ContextTTL
	}
	return DefaultContextTTL
}

// replayWindow is how long a bootstrap's webhook-id is remembered: past it, the signed
// timestamp is outside the verifier's tolerance and the request is refused anyway.
func (s *Service) replayWindow() time.Duration {
	tol := webhook.DefaultTolerance
	if s.Auth != nil && s.Auth.Verifier.Tolerance > 0 {
		tol = s.Auth.Verifier.Tolerance
	}
	return 2*tol + time.Minute
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}
