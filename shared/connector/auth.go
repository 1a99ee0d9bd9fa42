package connector

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// authScheme is how a vendor takes a static credential.
type authScheme int

const (
	// authBearer: Authorization: Bearer <Token> (NetSuite, Business Central, Salesforce).
	authBearer authScheme = iota
	// authBasic: Token is "user:password" (ShipStation "apiKey:apiSecret").
	authBasic
	// authBasicOrBearer: Basic when Token has a colon ("anystring:apikey"), else Bearer
	// (Mailchimp takes both).
	authBasicOrBearer
	// authBearerAssertion: Bearer, and with a token URL the client-credentials grant
	// authenticates with a signed JWT client assertion, not a secret (NetSuite M2M,
	// netsuite_m2m.go); Token is then a NetSuiteCredential.
	authBearerAssertion
)

// tokenExpiryMargin is taken off an access token's lifetime so a token is not sent in its
// last seconds, when it could expire on the wire.
const tokenExpiryMargin = 60 * time.Second

// credentials put the Authorization header on requests. With a token URL they run the
// OAuth 2.0 client-credentials grant and cache the access token until it nearly expires.
type credentials struct {
	scheme   authScheme
	secret   string
	tokenURL string
	scope    string
	// m2m signs the client assertion when the scheme is authBearerAssertion.
	m2m *m2mKey

	mu      sync.Mutex
	access  string
	expires time.Time
}

func newCredentials(cfg Config, scheme authScheme) *credentials {
	a := &credentials{scheme: scheme, secret: cfg.Token, tokenURL: cfg.TokenURL, scope: cfg.Scope}
	if scheme == authBearerAssertion && cfg.TokenURL != "" && cfg.Token != "" {
		// The profile's check refused a credential that does not parse.
		if k, err := parseNetSuiteCredential(cfg.Token); err == nil {
			a.m2m = &k
		}
	}
	return a
}

func (a *credentials) refreshable() bool { return a.tokenURL != "" && a.secret != "" }

// invalidate drops the cached access token after the system refused it.
func (a *credentials) invalidate() {
	a.mu.Lock()
	a.access = ""
	a.mu.Unlock()
}

// header is the Authorization value for the next request, "" for none.
func (a *credentials) header(ctx context.Context, c *Client, op string) (string, *Error) {
	switch {
	case a.secret == "":
		return "", nil
	case a.tokenURL != "":
		tok, err := a.accessToken(ctx, c, op)
		if err != nil {
			return "", err
		}
		return "Bearer " + tok, nil
	case a.scheme == authBasic, a.scheme == authBasicOrBearer && strings.Contains(a.secret, ":"):
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(a.secret)), nil
	default:
		return "Bearer " + a.secret, nil
	}
}

// accessToken returns the cached token or fetches one. The lock is held across the fetch
// so concurrent calls of a cold client make one token request, not one each.
func (a *credentials) accessToken(ctx context.Context, c *Client, op string) (string, *Error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.access != "" && time.Now().Before(a.expires) {
		return a.access, nil
	}
	tok, ttl, failure := a.fetch(ctx, c, op)
	if failure != nil {
		return "", failure
	}
	a.access, a.expires = tok, time.Now().Add(max(ttl-tokenExpiryMargin, ttl/2))
	return tok, nil
}

// fetch runs the client-credentials grant (RFC 6749 §4.4) with the client's secret in the
// form body (client_secret_post), which Microsoft Entra's and Salesforce's token endpoints
// accept (NetSuite's M2M grant signs an assertion instead: grant). A refused grant is
// ErrUnauthorized; the endpoint's answer is never quoted.
func (a *credentials) fetch(ctx context.Context, c *Client, op string) (string, time.Duration, *Error) {
	form, failure := a.grant(c, op)
	if failure != nil {
		return "", 0, failure
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", 0, &Error{System: c.sys, Op: op, Err: ErrUnauthorized, Cause: errors.New("token request could not be built")}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	ans, failure := c.exchange(ctx, op, req)
	if failure != nil {
		if failure.Status >= 400 && failure.Status < 500 && failure.Status != http.StatusTooManyRequests {
			// invalid_client, unauthorized_client: the configured credentials are wrong.
			failure.Err, failure.Code, failure.Retryable = ErrUnauthorized, "", false
		}
		return "", 0, failure
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		// NetSuite documents expires_in as the string "3600", Entra as a number.
		ExpiresIn json.Number `json:"expires_in"`
	}
	if json.Unmarshal(ans.body, &tok) != nil || !visibleASCII(tok.AccessToken, 8192) || tok.AccessToken == "" ||
		(tok.TokenType != "" && !strings.EqualFold(tok.TokenType, "bearer")) {
		return "", 0, c.malformed(op, ans)
	}
	ttl := time.Duration(0)
	if n, err := strconv.ParseInt(string(tok.ExpiresIn), 10, 64); err == nil {
		ttl = time.Duration(n) * time.Second
	}
	if ttl <= 0 {
		// RFC 6749 leaves expires_in optional; an hour is what NetSuite and Entra issue.
		// Salesforce sends none (its token lasts the org's session timeout, "OAuth 2.0 Client
		// Credentials Flow for Server-to-Server Integration",
		// https://help.salesforce.com/apex/HTViewHelpDoc?id=xcloud.remoteaccess_oauth_client_credentials_flow.htm):
		// the hour is an assumption there, and a 401 before it fetches another (send).
		ttl = time.Hour
	}
	return tok.AccessToken, ttl, nil
}

// grant is the token request's form: a signed client assertion for NetSuite M2M, the
// client ID and secret in the body (client_secret_post) for the others.
func (a *credentials) grant(c *Client, op string) (url.Values, *Error) {
	if a.m2m != nil {
		jwt, err := a.m2m.assertion(a.tokenURL, a.scope, time.Now())
		if err != nil {
			return nil, &Error{System: c.sys, Op: op, Err: ErrUnauthorized, Cause: errors.New("client assertion could not be signed")}
		}
		return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {ClientAssertionType},
			"client_assertion": {jwt}}, nil
	}
	id, secret, ok := strings.Cut(a.secret, ":")
	if !ok {
		return nil, &Error{System: c.sys, Op: op, Err: ErrUnauthorized,
			Cause: errors.New("client credentials must be clientId:clientSecret")}
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}}
	if a.scope != "" {
		form.Set("scope", a.scope)
	}
	return form, nil
}
