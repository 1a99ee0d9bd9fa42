package identity_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

func TestVerify(t *testing.T) {
	testKeys(t)
	clock := newClock()
	now := clock.Now()
	srv := newJWKSServer(t, rsaKey, ecKey)
	v := newVerifier(srv.URL, clock)

	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := baseClaims(now)
		mod(c)
		return c
	}
	signed := func(k signingKey, mod func(jwt.MapClaims)) string {
		return sign(t, k, with(mod))
	}
	keep := func(jwt.MapClaims) {}

	tampered := func() string {
		parts := strings.Split(signed(rsaKey, keep), ".")
		c := baseClaims(now)
		c[identity.ClaimRoles] = []string{identity.RoleAdmin}
		b, _ := json.Marshal(c)
		parts[1] = base64.RawURLEncoding.EncodeToString(b)
		return strings.Join(parts, ".")
	}
	algNone := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, baseClaims(now))
		tok.Header["kid"] = rsaKey.kid
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The classic key-confusion attack: HMAC "signed" with the public key an RS256
	// verifier would use, hoping the verifier feeds it to HMAC.
	hsWithPublicKey := func() string {
		der, err := x509.MarshalPKIXPublicKey(rsaKey.priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, baseClaims(now))
		tok.Header["kid"] = rsaKey.kid
		s, err := tok.SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	withAlg := func(k signingKey, method jwt.SigningMethod, kid string) string {
		tok := jwt.NewWithClaims(method, baseClaims(now))
		tok.Header["kid"] = kid
		s, err := tok.SignedString(k.priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	noKid := func() string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodES256, baseClaims(now)).SignedString(ecKey.priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	withHeader := func(name string, value any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, baseClaims(now))
		tok.Header["kid"] = ecKey.kid
		tok.Header[name] = value
		s, err := tok.SignedString(ecKey.priv)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	want := identity.Principal{Subject: "subject-marker-7f3a", TenantID: "tenant-marker", Roles: []string{identity.RoleApprover}}
	tests := []struct {
		name    string
		token   string
		want    identity.Principal
		wantErr error // nil: must verify
		expired bool  // the error must (or must not) be ErrTokenExpired
	}{
		{name: "valid RS256", token: signed(rsaKey, keep), want: want},
		{name: "valid ES256", token: signed(ecKey, keep), want: want},
		{name: "audience among several", token: signed(ecKey, func(c jwt.MapClaims) { c["aud"] = []string{"other", testAudience} }), want: want},
		{name: "unknown roles ignored, duplicates dropped", token: signed(ecKey, func(c jwt.MapClaims) {
			c[identity.ClaimRoles] = []string{"superuser", identity.RoleOperator, identity.RoleAdmin, identity.RoleOperator}
		}), want: identity.Principal{Subject: want.Subject, TenantID: want.TenantID, Roles: []string{identity.RoleOperator, identity.RoleAdmin}}},
		{name: "no roles claim", token: signed(ecKey, func(c jwt.MapClaims) { delete(c, identity.ClaimRoles) }),
			want: identity.Principal{Subject: want.Subject, TenantID: want.TenantID}},
		{name: "expired within leeway", token: signed(ecKey, func(c jwt.MapClaims) { c["exp"] = now.Add(-20 * time.Second).Unix() }), want: want},
		{name: "nbf within leeway", token: signed(ecKey, func(c jwt.MapClaims) { c["nbf"] = now.Add(20 * time.Second).Unix() }), want: want},

		{name: "expired", token: signed(rsaKey, func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() }),
			wantErr: identity.ErrTokenExpired, expired: true},
		{name: "not yet valid", token: signed(rsaKey, func(c jwt.MapClaims) { c["nbf"] = now.Add(5 * time.Minute).Unix() }),
			wantErr: identity.ErrTokenInvalid},
		{name: "issued in the future", token: signed(rsaKey, func(c jwt.MapClaims) { c["iat"] = now.Add(5 * time.Minute).Unix() }),
			wantErr: identity.ErrTokenInvalid},
		{name: "missing exp", token: signed(rsaKey, func(c jwt.MapClaims) { delete(c, "exp") }), wantErr: identity.ErrTokenInvalid},
		{name: "wrong issuer", token: signed(rsaKey, func(c jwt.MapClaims) { c["iss"] = "https://evil.test/" }), wantErr: identity.ErrTokenInvalid},
		{name: "issuer differs by a trailing slash", token: signed(rsaKey, func(c jwt.MapClaims) { c["iss"] = strings.TrimSuffix(testIssuer, "/") }),
			wantErr: identity.ErrTokenInvalid},
		{name: "wrong issuer and expired is not reported as expired", token: signed(rsaKey, func(c jwt.MapClaims) {
			c["iss"] = "https://evil.test/"
			c["exp"] = now.Add(-time.Hour).Unix()
		}), wantErr: identity.ErrTokenInvalid},
		{name: "missing issuer", token: signed(rsaKey, func(c jwt.MapClaims) { delete(c, "iss") }), wantErr: identity.ErrTokenInvalid},
		{name: "wrong audience", token: signed(ecKey, func(c jwt.MapClaims) { c["aud"] = []string{"other", "another"} }), wantErr: identity.ErrTokenInvalid},
		{name: "missing audience", token: signed(ecKey, func(c jwt.MapClaims) { delete(c, "aud") }), wantErr: identity.ErrTokenInvalid},
		{name: "missing sub", token: signed(ecKey, func(c jwt.MapClaims) { delete(c, "sub") }), wantErr: identity.ErrTokenInvalid},
		{name: "empty sub", token: signed(ecKey, func(c jwt.MapClaims) { c["sub"] = "" }), wantErr: identity.ErrTokenInvalid},
		{name: "missing tenant_id", token: signed(ecKey, func(c jwt.MapClaims) { delete(c, identity.ClaimTenantID) }), wantErr: identity.ErrTokenInvalid},
		{name: "empty tenant_id", token: signed(ecKey, func(c jwt.MapClaims) { c[identity.ClaimTenantID] = "" }), wantErr: identity.ErrTokenInvalid},
		{name: "tenant_id not a string", token: signed(ecKey, func(c jwt.MapClaims) { c[identity.ClaimTenantID] = 42 }), wantErr: identity.ErrTokenInvalid},
		{name: "tenant claim spelled differently", token: signed(ecKey, func(c jwt.MapClaims) {
			c["Tenant_Id"] = c[identity.ClaimTenantID]
			delete(c, identity.ClaimTenantID)
		}), wantErr: identity.ErrTokenInvalid},
		{name: "roles not an array", token: signed(ecKey, func(c jwt.MapClaims) { c[identity.ClaimRoles] = identity.RoleAdmin }), wantErr: identity.ErrTokenInvalid},
		{name: "roles with a non-string", token: signed(ecKey, func(c jwt.MapClaims) { c[identity.ClaimRoles] = []any{identity.RoleAdmin, 1} }), wantErr: identity.ErrTokenInvalid},
		{name: "tampered payload", token: tampered(), wantErr: identity.ErrTokenInvalid},
		{name: "another RSA key with the same kid", token: signed(rsaOther, keep), wantErr: identity.ErrTokenInvalid},
		{name: "another EC key with the same kid", token: sign(t, signingKey{kid: ecKey.kid, method: jwt.SigningMethodES256, priv: ecNext.priv}, baseClaims(now)),
			wantErr: identity.ErrTokenInvalid},
		{name: "alg none", token: algNone(), wantErr: identity.ErrTokenInvalid},
		{name: "HS256 keyed with the RSA public key", token: hsWithPublicKey(), wantErr: identity.ErrTokenInvalid},
		{name: "RS384 is not accepted", token: withAlg(rsaKey, jwt.SigningMethodRS384, rsaKey.kid), wantErr: identity.ErrTokenInvalid},
		{name: "RS256 naming the EC key", token: withAlg(rsaKey, jwt.SigningMethodRS256, ecKey.kid), wantErr: identity.ErrTokenInvalid},
		{name: "ES256 naming the RSA key", token: withAlg(ecKey, jwt.SigningMethodES256, rsaKey.kid), wantErr: identity.ErrTokenInvalid},
		{name: "no kid", token: noKid(), wantErr: identity.ErrTokenInvalid},
		{name: "kid not a string", token: withHeader("kid", 7), wantErr: identity.ErrTokenInvalid},
		{name: "critical header", token: withHeader("crit", []string{"exp"}), wantErr: identity.ErrTokenInvalid},
		{name: "not a JWT", token: "not-a-jwt", wantErr: identity.ErrTokenInvalid},
		{name: "empty", token: "", wantErr: identity.ErrTokenInvalid},
		{name: "oversized", token: strings.Repeat("a", 20<<10), wantErr: identity.ErrTokenInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), tc.token)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if got.Subject != tc.want.Subject || got.TenantID != tc.want.TenantID || fmt.Sprint(got.Roles) != fmt.Sprint(tc.want.Roles) ||
					got.SessionID != "" || got.Module != "" {
					t.Fatalf("principal = %+v, want %+v", got, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if errors.Is(err, identity.ErrTokenExpired) != tc.expired {
				t.Fatalf("err = %v: expired = %v, want %v", err, !tc.expired, tc.expired)
			}
			if errors.Is(err, identity.ErrJWKSUnavailable) {
				t.Fatalf("err = %v: a bad token must not look like an issuer outage", err)
			}
			msg := err.Error()
			for _, part := range strings.Split(tc.token, ".") {
				if len(part) > 8 && strings.Contains(msg, part) {
					t.Fatalf("error %q quotes the token", msg)
				}
			}
			for _, marker := range []string{"subject-marker", "tenant-marker", "jti-marker", "evil.test"} {
				if strings.Contains(msg, marker) {
					t.Fatalf("error %q quotes a claim", msg)
				}
			}
		})
	}
	if got := srv.hits.Load(); got != 1 {
		// Unknown kids never occur above, so the set is fetched exactly once.
		t.Errorf("JWKS fetched %d times, want 1", got)
	}
}

func TestVerifyMisconfigured(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	tok := sign(t, ecKey, baseClaims(clock.Now()))
	rule := identity.TenantIDRule(tenant.ValidID)
	for _, cfg := range []identity.JWTConfig{
		{Audience: testAudience, JWKSURL: srv.URL, ValidTenant: rule},
		{Issuer: testIssuer, JWKSURL: srv.URL, ValidTenant: rule},
		{Issuer: testIssuer, Audience: testAudience, ValidTenant: rule},
		{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL}, // no tenant id rule
	} {
		cfg.Now = clock.Now
		if _, err := identity.NewJWTVerifier(cfg).Verify(context.Background(), tok); !errors.Is(err, identity.ErrJWKSUnavailable) {
			t.Errorf("config %+v: err = %v, want ErrJWKSUnavailable", cfg, err)
		}
	}
	if n := srv.hits.Load(); n != 0 {
		t.Errorf("a misconfigured verifier fetched the JWKS %d times", n)
	}
}

func TestVerifyLeewayConfig(t *testing.T) {
	testKeys(t)
	clock := newClock()
	srv := newJWKSServer(t, ecKey)
	c := baseClaims(clock.Now())
	c["exp"] = clock.Now().Add(-10 * time.Second).Unix()
	tok := sign(t, ecKey, c)
	for _, tc := range []struct {
		leeway time.Duration
		ok     bool
	}{{0, true}, {time.Minute, true}, {-1, false}, {5 * time.Second, false}} {
		v := identity.NewJWTVerifier(identity.JWTConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, Now: clock.Now, Leeway: tc.leeway, ValidTenant: tenant.ValidID})
		_, err := v.Verify(context.Background(), tok)
		if (err == nil) != tc.ok {
			t.Errorf("leeway %v: err = %v, want ok = %v", tc.leeway, err, tc.ok)
		}
	}
}

func signTyped(t *testing.T, k signingKey, claims jwt.MapClaims, typ string) string {
	t.Helper()
	tok := jwt.NewWithClaims(k.method, claims)
	tok.Header["kid"] = k.kid
	delete(tok.Header, "typ")
	if typ != "" {
		tok.Header["typ"] = typ
	}
	s, err := tok.SignedString(k.priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An ID token of the same issuer and audience proves a sign-in, not a grant to call the
// API: refused by its typ, its nonce or its token_use. A tenant_id that is no tenant id is
// refused too.
func TestVerifyRefusesIDTokensAndBadTenants(t *testing.T) {
	testKeys(t)
	clock := newClock()
	now := clock.Now()
	srv := newJWKSServer(t, rsaKey, ecKey)
	v := newVerifier(srv.URL, clock)
	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := baseClaims(now)
		mod(c)
		return c
	}
	keep := func(jwt.MapClaims) {}
	for _, tc := range []struct {
		name  string
		token string
		ok    bool
	}{
		{"access token (at+jwt)", signTyped(t, rsaKey, with(keep), "at+jwt"), true},
		{"access token (application/at+jwt)", signTyped(t, rsaKey, with(keep), "application/AT+JWT"), true},
		{"no typ (Cognito access token)", signTyped(t, rsaKey, with(func(c jwt.MapClaims) { c["token_use"] = "access" }), ""), true},
		{"ID token typed JWT", signTyped(t, rsaKey, with(keep), "JWT"), false},
		{"ID token with a nonce", signTyped(t, rsaKey, with(func(c jwt.MapClaims) { c["nonce"] = "n-1" }), ""), false},
		{"Cognito ID token", signTyped(t, rsaKey, with(func(c jwt.MapClaims) { c["token_use"] = "id" }), ""), false},
		{"tenant id with a slash", signTyped(t, rsaKey, with(func(c jwt.MapClaims) { c[identity.ClaimTenantID] = "../acme" }), "at+jwt"), false},
		{"tenant id in capitals", signTyped(t, rsaKey, with(func(c jwt.MapClaims) { c[identity.ClaimTenantID] = "ACME" }), "at+jwt"), false},
	} {
		_, err := v.Verify(context.Background(), tc.token)
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, identity.ErrTokenInvalid) {
			t.Errorf("%s: err %v", tc.name, err)
		}
	}
	// An issuer that types its access tokens "JWT" is configured so.
	lax := identity.NewJWTVerifier(identity.JWTConfig{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL,
		Now: clock.Now, TokenTypes: []string{"at+jwt", "JWT"}, ValidTenant: tenant.ValidID})
	if _, err := lax.Verify(context.Background(), signTyped(t, rsaKey, with(keep), "JWT")); err != nil {
		t.Errorf("typ JWT with JWT_TOKEN_TYPES=at+jwt,JWT: %v", err)
	}
}
