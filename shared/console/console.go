// Package console serves the operator console: a single-page app whose built assets are
// embedded in the binary (dist/, built from console/ by `make console`), and the
// /config.json it reads at start to learn how to sign in. Nothing is loaded from another
// origin: the Content-Security-Policy allows only this origin (and the identity
// provider's token endpoint, which the sign-in must reach).
//
// Framing is per tenant: a host ERP frames the console at a URL carrying ?embed=<tenant>,
// and the page's frame-ancestors are that tenant's embedded.allowed_origins (plus the
// stage's own list); without it, or for a tenant that allows none, nobody may frame it.
// /config.json?embed=<tenant> publishes the same origins (embedOrigins), so the console
// can refuse an embedded session from any other parent where the browser tells it the
// parent's origin.
package console

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/version"
)

//go:embed all:dist
var dist embed.FS

// Config is what the console reads from /config.json: where to sign in. Every field comes
// from the stage's configuration; none is a secret (a public OIDC client uses PKCE).
type Config struct {
	Stage string `json:"stage"`
	// OIDC is the identity provider the API trusts; the console runs the authorization
	// code flow with PKCE against it.
	OIDC OIDC `json:"oidc"`
	// DevSignIn is true on a local stack, whose development issuer offers a page where
	// one chooses tenant and role.
	DevSignIn bool `json:"devSignIn"`
	// FrameAncestors are origins allowed to frame the console for every tenant of the
	// stage; none by default (each tenant lists its own, FrameOrigins).
	FrameAncestors []string `json:"-"`
	// EmbedOrigins, in the answer to /config.json?embed=<tenant> only, are the origins
	// allowed to frame the console for that tenant: the console adopts an embedded
	// session only inside a frame whose parent is one of them.
	EmbedOrigins []string `json:"embedOrigins,omitempty"`
}

// FrameOrigins answers the origins a tenant allows to frame the console (none for a
// tenant that does not exist or an id that is not one). The composition root fills it
// from the tenants' settings (tenant.FrameOriginsReader), so the console, which serves
// files, knows no feature or owner of data.
type FrameOrigins interface {
	FrameOrigins(ctx context.Context, tenantID string) ([]string, error)
}

// EmbedParam is the query parameter naming the tenant a framed console is embedded for.
const EmbedParam = "embed"

// OIDC names the identity provider's endpoints and this console's client.
type OIDC struct {
	Issuer                string `json:"issuer"`
	ClientID              string `json:"clientId"`
	AuthorizationEndpoint string `json:"authorizationEndpoint"`
	TokenEndpoint         string `json:"tokenEndpoint"`
	// EndSessionEndpoint, when set, is where sign-out sends the browser.
	EndSessionEndpoint string `json:"endSessionEndpoint,omitempty"`
	// RedirectPath is where the provider returns the browser (on this origin).
	RedirectPath string `json:"redirectPath"`
	Scope        string `json:"scope"`
	// TokenType is which token the API takes as its bearer: "access_token" or "id_token".
	TokenType string `json:"tokenType"`
}

// Environment variables the console function reads (set by the CDK stack per stage).
const (
	EnvIssuer        = "CONSOLE_OIDC_ISSUER"
	EnvClientID      = "CONSOLE_OIDC_CLIENT_ID"
	EnvAuthorization = "CONSOLE_OIDC_AUTHORIZATION_ENDPOINT"
	EnvToken         = "CONSOLE_OIDC_TOKEN_ENDPOINT"
	EnvEndSession    = "CONSOLE_OIDC_END_SESSION_ENDPOINT"
	EnvScope         = "CONSOLE_OIDC_SCOPE"
	EnvTokenType     = "CONSOLE_OIDC_TOKEN_TYPE"
	EnvDevSignIn     = "CONSOLE_DEV_SIGN_IN"
	// EnvFrameAncestors is a space-separated list of exact https origins.
	EnvFrameAncestors = "CONSOLE_FRAME_ANCESTORS"
)

// DefaultRedirectPath is where the identity provider sends the browser back.
const DefaultRedirectPath = "/auth/callback"

// ConfigFromEnv reads Config. Endpoints default to Keycloak-style paths under the issuer
// only when not given; most providers need them set.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{Stage: getenv("STAGE"), DevSignIn: getenv(EnvDevSignIn) == "true", OIDC: OIDC{
		Issuer: getenv(EnvIssuer), ClientID: getenv(EnvClientID),
		AuthorizationEndpoint: getenv(EnvAuthorization), TokenEndpoint: getenv(EnvToken),
		EndSessionEndpoint: getenv(EnvEndSession), Scope: getenv(EnvScope), TokenType: getenv(EnvTokenType),
		RedirectPath: DefaultRedirectPath,
	}, FrameAncestors: strings.Fields(getenv(EnvFrameAncestors))}
	base := strings.TrimSuffix(c.OIDC.Issuer, "/")
	if c.OIDC.AuthorizationEndpoint == "" && base != "" {
		c.OIDC.AuthorizationEndpoint = base + "/authorize"
	}
	if c.OIDC.TokenEndpoint == "" && base != "" {
		c.OIDC.TokenEndpoint = base + "/token"
	}
	if c.OIDC.Scope == "" {
		c.OIDC.Scope = "openid"
	}
	if c.OIDC.TokenType == "" {
		c.OIDC.TokenType = "access_token"
	}
	return c
}

// Assets returns the built console (index.html and assets/).
func Assets() fs.FS {
	files, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded at build time; its absence is a build error
	}
	return files
}

// Handler serves the console. Hashed assets (assets/<name>-<hash>.<ext>) are immutable
// and cached for a year; index.html and config.json are never cached, so a deploy is seen
// at the next load. Any other path that is not an asset answers index.html, so shareable
// URLs such as /queue/se_… open the app; /api/version answers the build's stamp; other
// paths under /api/ answer problem+json 404. origins (nil: none) gives each tenant's
// frame-ancestors; a lookup that fails allows none beyond the stage's, so an outage
// refuses framing rather than widening it.
func Handler(cfg Config, origins FrameOrigins) http.Handler {
	files := Assets()
	index, _ := fs.ReadFile(files, "index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if p == blueprint.VersionPath {
			// The catch-all route that brings any unmatched GET here brings this one too.
			version.Handler().ServeHTTP(w, r)
			return
		}
		if p == "/api" || strings.HasPrefix(p, "/api/") {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "route_not_found",
				"No route "+r.Method+" "+p+"."))
			return
		}
		c := cfg
		c.EmbedOrigins = embedOrigins(r, cfg.FrameAncestors, origins)
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy(c))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		switch {
		case p == "/config.json":
			body, _ := json.Marshal(c)
			write(w, r, "application/json", "no-cache", body)
		case strings.HasPrefix(p, "/assets/"):
			b, err := fs.ReadFile(files, strings.TrimPrefix(p, "/"))
			if err != nil {
				httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "asset_not_found", "No asset "+p+"."))
				return
			}
			write(w, r, contentType(p), "public, max-age=31536000, immutable", b)
		default:
			write(w, r, "text/html; charset=utf-8", "no-cache", index)
		}
	})
}

// embedOrigins are the origins allowed to frame the console for the tenant the request
// names in ?embed= (the stage's alone without one): the stage's list and the tenant's.
func embedOrigins(r *http.Request, stage []string, origins FrameOrigins) []string {
	out := slices.Clone(stage)
	id := r.URL.Query().Get(EmbedParam)
	if origins == nil || id == "" {
		return out
	}
	list, err := origins.FrameOrigins(r.Context(), id)
	if err != nil {
		slog.WarnContext(r.Context(), "console: the tenant's frame origins could not be read; framing refused", "tenant", id, "error", err)
		return out
	}
	for _, o := range list {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

func write(w http.ResponseWriter, r *http.Request, ctype, cache string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", cache)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func contentType(p string) string {
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// contentSecurityPolicy allows this origin only, plus the identity provider's token
// endpoint for the code exchange (a fetch) when it lives elsewhere. Navigations to the
// provider's sign-in page are not fetches and need no allowance.
func contentSecurityPolicy(cfg Config) string {
	connect := "'self'"
	if u, err := url.Parse(cfg.OIDC.TokenEndpoint); err == nil && u.Scheme == "https" && u.Host != "" {
		connect += " https://" + u.Host
	}
	ancestors := "'none'"
	if len(cfg.EmbedOrigins) > 0 {
		ancestors = strings.Join(cfg.EmbedOrigins, " ")
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src " + connect +
		"; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors " + ancestors + "; form-action 'self'"
}
