package fakesystem

import (
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// TokenPath is the fake's OAuth 2.0 token endpoint (client-credentials grant), served once
// IssueTokens is called; a client's Config.TokenURL points here.
const TokenPath = "/oauth2/token"

// tokenIssuer plays the vendor's authorization server.
type tokenIssuer struct {
	clientID, secret string
	ttl              time.Duration
	issued           map[string]time.Time
	count            int
	// m2m, set for NetSuite, makes the endpoint take signed client assertions only
	// (netsuite_auth.go).
	m2m *m2mClient
	// salesforce answers as Salesforce's token endpoint does (salesforceToken).
	salesforce bool
}

// SalesforceTokenPath is Salesforce's OAuth 2.0 token endpoint on the org's My Domain.
const SalesforceTokenPath = "/services/oauth2/token"

// salesforceToken is Salesforce's answer to the client-credentials grant, "OAuth 2.0
// Client Credentials Flow for Server-to-Server Integration"
// (https://help.salesforce.com/apex/HTViewHelpDoc?id=xcloud.remoteaccess_oauth_client_credentials_flow.htm):
// access_token, signature, scope, instance_url, id, token_type and issued_at, and no
// expires_in: the token lasts the org's session timeout, which the client cannot read, so
// it learns of the end from a 401 INVALID_SESSION_ID.
func (t *tokenIssuer) salesforceToken(r *http.Request, tok string) reply {
	base := "http://" + r.Host
	return jsonReply(http.StatusOK, map[string]any{"access_token": tok, "signature": "ZmFrZS1zaWduYXR1cmU=",
		"scope": "api", "instance_url": base, "id": base + "/id/00DFAKE000000000/005FAKE000000000",
		"token_type": "Bearer", "issued_at": strconv.FormatInt(time.Now().UnixMilli(), 10)})
}

// IssueTokens makes the fake accept only bearer tokens it issued itself at TokenPath, to
// the client-credentials grant of clientID and secret, each valid for ttl.
func (s *Server) IssueTokens(clientID, secret string, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, sf := s.dialect.(salesforceFake)
	s.tokens = &tokenIssuer{clientID: clientID, secret: secret, ttl: ttl, issued: map[string]time.Time{}, salesforce: sf}
}

// RevokeTokens invalidates every token issued so far, as a rotated key or an early expiry
// would; a client must fetch a new one.
func (s *Server) RevokeTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens != nil {
		s.tokens.issued = map[string]time.Time{}
	}
}

// TokensIssued is how many access tokens the token endpoint handed out.
func (s *Server) TokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		return 0
	}
	return s.tokens.count
}

// issue answers a token request as RFC 6749 §5 does: {"access_token","token_type",
// "expires_in"}, or 400/401 {"error": ...}.
func (t *tokenIssuer) issue(r *http.Request, body []byte) reply {
	form, err := url.ParseQuery(string(body))
	if r.Method != http.MethodPost || err != nil || form.Get("grant_type") != "client_credentials" {
		return jsonReply(http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
	}
	if t.m2m != nil {
		return t.issueAssertion(r, form)
	}
	if !equal(form.Get("client_id"), t.clientID) || !equal(form.Get("client_secret"), t.secret) {
		return jsonReply(http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
	}
	t.count++
	tok := "fake-access-" + strconv.Itoa(t.count)
	t.issued[tok] = time.Now().Add(t.ttl)
	if t.salesforce {
		return t.salesforceToken(r, tok)
	}
	return jsonReply(http.StatusOK, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int(t.ttl.Seconds())})
}

func (t *tokenIssuer) valid(header string) bool {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	exp, found := t.issued[tok]
	return ok && found && time.Now().Before(exp)
}

func bearer(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && equal(got, token)
}

func basic(header, userPass string) bool {
	enc, ok := strings.CutPrefix(header, "Basic ")
	if !ok {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(enc)
	return err == nil && equal(string(raw), userPass)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// rateWindow is ShipStation's fixed-window request limit.
type rateWindow struct {
	limit  int
	window time.Duration
	start  time.Time
	used   int
}

// RateLimit makes the fake count requests in fixed windows of the given length and refuse
// those over limit with 429, sending X-Rate-Limit-Limit, -Remaining and -Reset on every
// answer as ShipStation does (40 a minute there). limit <= 0 turns it off. Windows follow
// the server's clock (SetClock), so a test can run minutes of them in milliseconds.
func (s *Server) RateLimit(limit int, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = nil
	if limit > 0 {
		s.rate = &rateWindow{limit: limit, window: window, start: s.now()}
	}
}

// overRateLimit counts this request; it answers 429 when the window is used up.
func (s *Server) overRateLimit() (reply, bool) {
	w := s.rate
	if w == nil {
		return reply{}, false
	}
	if now := s.now(); now.Sub(w.start) >= w.window {
		w.start, w.used = now, 0
	}
	w.used++
	if w.used <= w.limit {
		return reply{}, false
	}
	return s.dialect.errorReply(http.StatusTooManyRequests, "rate_limited", "Too Many Requests"), true
}

func (s *Server) rateHeaders(rep reply) {
	w := s.rate
	if w == nil {
		return
	}
	reset := max(int((w.window-s.now().Sub(w.start)+time.Second-1)/time.Second), 1)
	rep.header.Set("X-Rate-Limit-Limit", strconv.Itoa(w.limit))
	rep.header.Set("X-Rate-Limit-Remaining", strconv.Itoa(max(w.limit-w.used, 0)))
	rep.header.Set("X-Rate-Limit-Reset", strconv.Itoa(reset))
}
