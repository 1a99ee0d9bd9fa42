package devissuer

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Paths of the sign-in flow, relative to where Handler is mounted. They make the
// development issuer a tiny OpenID Connect provider (authorization code with PKCE), so the
// console signs in locally exactly as it does against a real provider: only the page in
// the middle differs, where one picks a tenant and a role instead of typing a password.
const (
	AuthorizePath = "/authorize"
	TokenPath     = "/token"
)

// Lifetimes of what the sign-in flow hands out.
const (
	codeTTL        = time.Minute
	SignInTokenTTL = 8 * time.Hour
)

// pendingCode is an authorization code waiting to be exchanged once.
type pendingCode struct {
	clientID, redirectURI, challenge string
	subject, tenant                  string
	roles                            []string
	expires                          time.Time
}

type codes struct {
	mu sync.Mutex
	m  map[string]pendingCode
}

func (c *codes) put(p pendingCode) string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	code := base64.RawURLEncoding.EncodeToString(b[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]pendingCode{}
	}
	for k, v := range c.m { // the map stays as small as the codes still in flight
		if time.Now().After(v.expires) {
			delete(c.m, k)
		}
	}
	c.m[code] = p
	return code
}

// take returns the code's grant and forgets it: a code is good for one exchange.
func (c *codes) take(code string) (pendingCode, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[code]
	delete(c.m, code)
	return p, ok && time.Now().Before(p.expires)
}

// authorizeRequest is the part of an OIDC authorization request the issuer honours.
type authorizeRequest struct {
	ClientID, RedirectURI, State, Challenge, Scope string
}

func parseAuthorize(q url.Values) (authorizeRequest, string) {
	a := authorizeRequest{ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"), State: q.Get("state"),
		Challenge: q.Get("code_challenge"), Scope: q.Get("scope")}
	switch {
	case q.Get("response_type") != "code":
		return a, "response_type must be code"
	case a.ClientID == "":
		return a, "client_id is required"
	case !loopbackURL(a.RedirectURI):
		return a, "redirect_uri must be an http(s) URL on this machine (127.0.0.1, ::1 or localhost)"
	case q.Get("code_challenge_method") != "S256" || len(a.Challenge) < 43 || len(a.Challenge) > 128:
		return a, "PKCE is required: code_challenge (43 to 128 characters) with code_challenge_method S256"
	}
	return a, ""
}

// loopbackURL accepts redirects only to this machine: the issuer mints any role for
// anyone, so it must never hand a code to a page elsewhere.
func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var signInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in — SyncAssist development issuer</title>
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2430}
main{max-width:26rem;margin:4rem auto;background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:1.5rem 2rem}
h1{font-size:1.25rem;margin:0 0 .25rem}p{color:#4a5465;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select{width:100%;box-sizing:border-box;font:inherit;padding:.4rem .5rem;border:1px solid #8a93a3;border-radius:4px}
button{margin-top:1.25rem;font:inherit;font-weight:600;padding:.5rem 1rem;border:0;border-radius:4px;background:#1f5fbf;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #f2a900;outline-offset:2px}
.err{color:#a3161c}
</style></head>
<body><main>
<h1>Sign in</h1>
<p>Development issuer of the local stack: choose who you are. It mints a real token the API verifies.</p>
{{if .Error}}<p class="err" role="alert">{{.Error}}</p>{{else}}
<form method="get" action="">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="client_id" value="{{.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.RedirectURI}}">
<input type="hidden" name="state" value="{{.State}}">
<input type="hidden" name="scope" value="{{.Scope}}">
<input type="hidden" name="code_challenge" value="{{.Challenge}}">
<input type="hidden" name="code_challenge_method" value="S256">
<input type="hidden" name="confirm" value="1">
<label for="tenant">Tenant</label><input id="tenant" name="tenant" value="demo" required pattern="[a-z0-9_\-]{1,63}">
<label for="role">Role</label><select id="role" name="role">
<option value="operator">operator</option><option value="approver" selected>approver</option><option value="admin">admin</option></select>
<label for="user">User</label><input id="user" name="user" placeholder="dev-approver" autocomplete="username">
<button type="submit">Sign in</button>
</form>{{end}}
</main></body></html>`))

// authorize shows the sign-in page, and on its submission redirects back with a code.
func (i *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, problem := parseAuthorize(q)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	if problem != "" || q.Get("confirm") != "1" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		status := http.StatusOK
		if problem != "" {
			status = http.StatusBadRequest
		}
		w.WriteHeader(status)
		_ = signInPage.Execute(w, struct {
			authorizeRequest
			Error string
		}{a, problem})
		return
	}
	role, tenant, user := q.Get("role"), q.Get("tenant"), strings.TrimSpace(q.Get("user"))
	if !identity.KnownRole(role) || tenant == "" {
		http.Error(w, "choose a tenant and one of the roles operator, approver, admin", http.StatusBadRequest)
		return
	}
	if user == "" {
		user = "dev-" + role
	}
	code := i.codes.put(pendingCode{clientID: a.ClientID, redirectURI: a.RedirectURI, challenge: a.Challenge,
		subject: user, tenant: tenant, roles: []string{role}, expires: time.Now().Add(codeTTL)})
	back, _ := url.Parse(a.RedirectURI)
	v := back.Query()
	v.Set("code", code)
	if a.State != "" {
		v.Set("state", a.State)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code for tokens (RFC 6749 §4.1.3 with the RFC 7636 verifier).
func (i *Issuer) token(w http.ResponseWriter, r *http.Request) {
	// A developer's console on another loopback port may exchange here, as browsers do
	// with real providers' token endpoints.
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "content-type")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("grant_type") != "authorization_code" {
		oauthError(w, "invalid_request", "POST a form with grant_type=authorization_code")
		return
	}
	p, ok := i.codes.take(r.PostForm.Get("code"))
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	verifier := base64.RawURLEncoding.EncodeToString(sum[:])
	if !ok || p.clientID != r.PostForm.Get("client_id") || p.redirectURI != r.PostForm.Get("redirect_uri") ||
		subtle.ConstantTimeCompare([]byte(verifier), []byte(p.challenge)) != 1 {
		oauthError(w, "invalid_grant", "the code is unknown, used, expired, or does not match client, redirect_uri or verifier")
		return
	}
	tok, err := i.Mint(p.subject, p.tenant, p.roles, SignInTokenTTL)
	if err != nil {
		oauthError(w, "server_error", "could not mint a token")
		return
	}
	// The API takes the access token; the ID token is the same JWT here, which a
	// development provider may do (its audience is the API's, not the client's).
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"access_token": tok, "id_token": tok, "token_type": "Bearer",
		"expires_in": int(SignInTokenTTL.Seconds()), "scope": "openid"})
}

func oauthError(w http.ResponseWriter, code, desc string) {
	httpapi.WriteJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}
