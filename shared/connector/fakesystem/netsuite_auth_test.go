package fakesystem_test

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// The NetSuite fake's token endpoint holds clients to Oracle's M2M token request: the
// secret grant is refused, and an assertion is checked for its algorithm, kid, iss, aud
// and lifetime as "The Request Token Structure" describes them.
func TestNetSuiteTokenEndpointChecksTheAssertion(t *testing.T) {
	t.Parallel()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	fake := fakesystem.New(connector.SystemHostERP)
	fake.IssueAssertionTokens("client-1", "cert-1", key.Public(), time.Hour)
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	endpoint := srv.URL + fakesystem.NetSuiteTokenPath
	now := time.Now()
	sign := func(method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
		tok := jwt.NewWithClaims(method, claims)
		tok.Header["kid"] = kid
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := func() jwt.MapClaims {
		return jwt.MapClaims{"iss": "client-1", "scope": []string{"rest_webservices"}, "aud": endpoint,
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	}
	with := func(k string, v any) jwt.MapClaims { c := good(); c[k] = v; return c }
	assertion := func(a string) url.Values {
		return url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {connector.ClientAssertionType}, "client_assertion": {a}}
	}
	cases := []struct {
		name   string
		form   url.Values
		status int
		error  string
	}{
		{"signed PS256", assertion(sign(jwt.SigningMethodPS256, "cert-1", good())), 200, ""},
		{"client secret", url.Values{"grant_type": {"client_credentials"}, "client_id": {"client-1"}, "client_secret": {"s3cret"}}, 401, "invalid_client"},
		{"no assertion type", url.Values{"grant_type": {"client_credentials"}, "client_assertion": {sign(jwt.SigningMethodPS256, "cert-1", good())}}, 400, "invalid_request"},
		{"RS256 is not accepted", assertion(sign(jwt.SigningMethodRS256, "cert-1", good())), 401, "invalid_client"},
		{"another kid", assertion(sign(jwt.SigningMethodPS256, "cert-2", good())), 401, "invalid_client"},
		{"another iss", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("iss", "client-2"))), 401, "invalid_client"},
		{"another aud", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("aud", "https://example.com/token"))), 401, "invalid_client"},
		{"expired", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("exp", now.Add(-time.Minute).Unix()))), 401, "invalid_client"},
		{"60 minutes or more", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("exp", now.Add(time.Hour).Unix()))), 401, "invalid_client"},
		{"no scope", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("scope", "email"))), 401, "invalid_client"},
		{"comma scope", assertion(sign(jwt.SigningMethodPS256, "cert-1", with("scope", "restlets,rest_webservices"))), 200, ""},
	}
	for _, tc := range cases {
		resp, err := ownClient().Post(endpoint, "application/x-www-form-urlencoded", strings.NewReader(tc.form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.error != "" && body["error"] != tc.error) {
			t.Errorf("%s: %d %v, want %d %q", tc.name, resp.StatusCode, body, tc.status, tc.error)
		}
		if tc.status == 200 && (body["token_type"] != "bearer" || body["expires_in"] != "3600") {
			t.Errorf("%s: token answer %v, want token_type bearer and expires_in \"3600\" as NetSuite writes them", tc.name, body)
		}
	}
}
