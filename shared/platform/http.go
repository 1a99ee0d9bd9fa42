package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/bounded"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform/unrouted"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/version"
)

// Route is the handler of one HTTP function. The platform puts it behind the
// authentication its blueprint route declares.
type Route struct {
	Handler http.Handler
	// Wrap, when set, wraps the authenticated handler: a route that answers even the
	// middleware's 401 and 403 in its own envelope (the tool catalogue).
	Wrap func(http.Handler) http.Handler
}

// Routes are HTTP functions' handlers by blueprint function name.
type Routes map[string]Route

// RoutesFunc builds a feature's routes; each feature has one (syncerror/wire.Routes, finance.Routes, ...).
type RoutesFunc func(context.Context, *Base) (Routes, error)

// Mux mounts the routes of fns on one ServeMux, each behind its authentication: one
// function's route for its Lambda, every HTTP function for the local stack. Unknown paths
// answer problem+json 404.
func (b *Base) Mux(fns []blueprint.Function, routes Routes) (http.Handler, error) {
	return b.mount(fns, routes, b.Authenticated)
}

// mount is Mux with the routes' authentication given: Authenticated, or callerVerified
// in a function that mounts no operator route.
func (b *Base) mount(fns []blueprint.Function, routes Routes, authenticate func(blueprint.Route, http.Handler) http.Handler) (http.Handler, error) {
	mux := http.NewServeMux()
	for _, f := range fns {
		if f.Route == nil {
			continue
		}
		rt, ok := routes[f.Name]
		if !ok || rt.Handler == nil {
			return nil, fmt.Errorf("no HTTP handler for function %q", f.Name)
		}
		h := authenticate(*f.Route, rt.Handler)
		if rt.Wrap != nil {
			h = rt.Wrap(h)
		}
		mux.Handle(f.Route.Pattern(), countRequests(Journey(f), h))
	}
	mux.HandleFunc("/", unrouted.NotFound)
	return httpapi.Instrument(b.Log, httpapi.CORS(b.Config.CORSOrigins, unrouted.Methods(mux), unrouted.Allow(mux, httpapi.Revalidate(mux)))), nil
}

// Authenticated puts a route behind its authentication: signed and service-token routes
// verify their callers in their handlers; operator and approver routes get
// validateGuestContext, the embedded module check, then the role check.
func (b *Base) Authenticated(route blueprint.Route, h http.Handler) http.Handler {
	var tokens identity.TokenVerifier = unavailableVerifier{}
	if b.Tokens != nil {
		tokens = b.tokenCheck()
	}
	switch route.Auth {
	case blueprint.AuthOperator:
		return identity.Authenticate(tokens, b.Sessions(), identity.ValidateGuestContext(
			session.RequireModule(route.Module, identity.RequireRole(identity.RoleOperator, h))))
	case blueprint.AuthApprover:
		return identity.Authenticate(tokens, b.Sessions(), identity.ValidateGuestContext(
			session.RequireModule(route.Module, identity.RequireApproverRole(h))))
	case blueprint.AuthAdmin:
		return identity.Authenticate(tokens, b.Sessions(), identity.ValidateGuestContext(
			session.RequireModule(route.Module, identity.RequireRole(identity.RoleAdmin, h))))
	}
	return h
}

// knownTenant refuses a token whose tenant_id names no tenant of this service: an issuer
// shared with other applications, or a misconfigured one, cannot walk a caller into a
// tenant that does not exist (the reads would be empty, the writes would not be). It asks
// with a keys-only read where the store offers one (the functions' grant is KeysOnly: they
// never see a tenant's settings or secrets), and remembers a tenant that exists.
type knownTenant struct {
	next    identity.TokenVerifier
	tenants tenant.Reader
	ttl     time.Duration
	seen    bounded.Map[string, time.Time] // tenant id → when it was last found
}

// tenantProber is the keys-only read of tenant.DynamoStore.
type tenantProber interface {
	Exists(ctx context.Context, id string) (bool, error)
}

func (k *knownTenant) Verify(ctx context.Context, token string) (identity.Principal, error) {
	p, err := k.next.Verify(ctx, token)
	if err != nil || k.tenants == nil {
		return p, err
	}
	if at, ok := k.seen.Load(p.TenantID); ok && time.Since(at) < k.ttl {
		return p, nil
	}
	found, err := k.exists(ctx, p.TenantID)
	if err != nil {
		return identity.Principal{}, fmt.Errorf("%w: reading the tenant: %w", identity.ErrJWKSUnavailable, err)
	}
	if !found {
		return identity.Principal{}, fmt.Errorf("%w: tenant_id names no tenant", identity.ErrTokenInvalid)
	}
	k.seen.Store(p.TenantID, time.Now())
	return p, nil
}

func (k *knownTenant) exists(ctx context.Context, id string) (bool, error) {
	if p, ok := k.tenants.(tenantProber); ok {
		return p.Exists(ctx, id)
	}
	_, err := k.tenants.Get(ctx, id)
	if errors.Is(err, tenant.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// tokenCheck is the token verifier with the tenant check, built once per process so its
// memory of known tenants is shared by every route.
func (b *Base) tokenCheck() identity.TokenVerifier {
	return Memo(b, knownTenantKey{}, func() identity.TokenVerifier {
		ttl := b.Config.TenantCacheTTL
		if ttl <= 0 {
			ttl = time.Minute
		}
		return &knownTenant{next: b.Tokens, tenants: b.Tenants, ttl: ttl}
	})
}

type knownTenantKey struct{}

// unavailableVerifier stands in when no JWT issuer is configured, so operator routes say
// 503 identity_unavailable instead of treating every caller as anonymous.
type unavailableVerifier struct{}

func (unavailableVerifier) Verify(context.Context, string) (identity.Principal, error) {
	return identity.Principal{}, fmt.Errorf("JWT_ISSUER is not configured: %w", identity.ErrJWKSUnavailable)
}

// HTTPHandler is an API Gateway HTTP API (payload v2) Lambda handler.
type HTTPHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// HTTPLambda returns the Lambda entry point of the HTTP function called name: its route
// from routes on a mux, behind the API Gateway v2 adapter.
func (b *Base) HTTPLambda(name string, routes Routes) (HTTPHandler, error) {
	f, err := httpFunction(name)
	if err != nil {
		return nil, err
	}
	return lambdaOn(b.Mux([]blueprint.Function{f}, routes))
}

// SignedLambda is HTTPLambda for a function whose route verifies its caller itself
// (CallerVerified): it links none of the operators' authentication (the JWT verifier,
// embedded sessions' resolution, the role checks), which HTTPLambda's mux does for any
// route it might mount. A function whose route needs that authentication is refused.
func (b *Base) SignedLambda(name string, routes Routes) (HTTPHandler, error) {
	f, err := httpFunction(name)
	if err != nil {
		return nil, err
	}
	if !CallerVerified(f.Route.Auth) {
		return nil, fmt.Errorf("function %q authenticates its callers as %q: start it with StartHTTP", name, f.Route.Auth)
	}
	return lambdaOn(b.mount([]blueprint.Function{f}, routes, callerVerified))
}

// CallerVerified reports whether routes authenticated as auth take no authentication
// from the platform's mux: a host signature or a service token is verified by the
// route's own handler, and a public route takes none. It names the three, so an Auth
// added later is not taken for one.
func CallerVerified(auth blueprint.Auth) bool {
	return auth == blueprint.AuthSigned || auth == blueprint.AuthServiceToken || auth == blueprint.AuthPublic
}

// callerVerified is the authentication of routes that verify their callers themselves:
// none in front of the handler (SignedLambda mounts no other route).
func callerVerified(_ blueprint.Route, h http.Handler) http.Handler { return h }

func httpFunction(name string) (blueprint.Function, error) {
	f, err := blueprint.FunctionNamed(name)
	if err != nil {
		return f, err
	}
	if f.Route == nil {
		return f, fmt.Errorf("function %q has no HTTP route", name)
	}
	return f, nil
}

func lambdaOn(h http.Handler, err error) (HTTPHandler, error) {
	if err != nil {
		return nil, err
	}
	return httpadapter.NewV2(h).ProxyWithContext, nil
}

// StartHTTP is an HTTP function's whole main: load the platform, build the feature's
// routes, serve the one called name.
func StartHTTP(name string, build RoutesFunc) {
	Start(name, func(ctx context.Context, b *Base) (any, error) {
		b.verifyOperators()
		routes, err := build(ctx, b)
		if err != nil {
			return nil, err
		}
		return b.HTTPLambda(name, routes)
	})
}

// StartSigned is StartHTTP for a function whose route verifies its caller itself (the
// host-signed webhooks): its binary links no operator authentication (SignedLambda).
func StartSigned(name string, build RoutesFunc) {
	Start(name, func(ctx context.Context, b *Base) (any, error) {
		routes, err := build(ctx, b)
		if err != nil {
			return nil, err
		}
		return b.SignedLambda(name, routes)
	})
}

// Start is any function's main: load the platform (without the operator token verifier,
// which only StartHTTP's routes use), build the handler, start the Lambda runtime. A
// failure at start is logged and exits, so the runtime reports an init error.
func Start[H any](name string, build func(context.Context, *Base) (H, error)) {
	ctx := context.Background()
	// What logs through slog's default (a failure before the base's logger exists, code
	// with no logger of its own, the log package) is redacted JSON like the rest.
	slog.SetDefault(httpapi.NewLogger(slog.LevelInfo))
	b, err := loadBase()
	if err == nil {
		slog.SetDefault(b.Log)
		err = b.ServeOnly(name)
	}
	if err != nil {
		slog.Error(name+": configuration", "error", err)
		os.Exit(1)
	}
	h, err := build(ctx, b)
	if err != nil {
		slog.Error(name+": startup", "error", err)
		os.Exit(1)
	}
	b.Log.Info("starting", "function", name, "version", version.Version, "buildTime", version.BuildTime)
	lambda.Start(h)
}
