package identity_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
)

const (
	testIssuer   = "https://issuer.test/"
	testAudience = "syncassist"
)

// fakeClock is a settable clock shared by token minting and the verifier.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// signingKey is one test key with the alg it signs and its JWK.
type signingKey struct {
	kid    string
	method jwt.SigningMethod
	priv   crypto.Signer
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (k signingKey) jwk() map[string]string {
	switch pub := k.priv.Public().(type) {
	case *rsa.PublicKey:
		return map[string]string{"kty": "RSA", "kid": k.kid, "use": "sig", "alg": "RS256",
			"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes())}
	case *ecdsa.PublicKey:
		point, _ := pub.Bytes()
		return map[string]string{"kty": "EC", "kid": k.kid, "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])}
	}
	panic("unexpected key type")
}

// Keys are generated once per test binary: RSA generation is slow enough to matter.
var (
	keysOnce                        sync.Once
	rsaKey, rsaOther, ecKey, ecNext signingKey
)

func testKeys(t *testing.T) {
	t.Helper()
	keysOnce.Do(func() {
		genRSA := func(kid string) signingKey {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			return signingKey{kid: kid, method: jwt.SigningMethodRS256, priv: k}
		}
		genEC := func(kid string) signingKey {
			k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				panic(err)
			}
			return signingKey{kid: kid, method: jwt.SigningMethodES256, priv: k}
		}
		rsaKey, rsaOther = genRSA("rsa-1"), genRSA("rsa-1")
		ecKey, ecNext = genEC("ec-1"), genEC("ec-2")
	})
}

// baseClaims are valid claims at now.
func baseClaims(now time.Time) jwt.MapClaims {
	return jwt.MapClaims{
		"iss":                  testIssuer,
		"aud":                  testAudience,
		"sub":                  "subject-marker-7f3a",
		identity.ClaimTenantID: "tenant-marker",
		identity.ClaimRoles:    []string{identity.RoleApprover},
		"iat":                  now.Unix(),
		"nbf":                  now.Unix(),
		"exp":                  now.Add(time.Hour).Unix(),
		"jti":                  "jti-marker",
	}
}

func sign(t *testing.T, k signingKey, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(k.method, claims)
	tok.Header["kid"] = k.kid
	tok.Header["typ"] = "at+jwt"
	s, err := tok.SignedString(k.priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jwksServer is an issuer's JWKS endpoint whose key set and health the test controls, and
// which counts requests.
type jwksServer struct {
	*httptest.Server
	hits  atomic.Int64
	mu    sync.Mutex
	keys  []map[string]string
	raw   string // served verbatim when set
	down  bool
	delay time.Duration
}

func newJWKSServer(t *testing.T, keys ...signingKey) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.setKeys(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		keys, raw, down, delay := s.keys, s.raw, s.down, s.delay
		s.mu.Unlock()
		time.Sleep(delay)
		if down {
			http.Error(w, "issuer is down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if raw != "" {
			_, _ = w.Write([]byte(raw))
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) setKeys(keys ...signingKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = nil
	for _, k := range keys {
		s.keys = append(s.keys, k.jwk())
	}
}

func (s *jwksServer) setRaw(raw string) {
	s.mu.Lock()
	s.raw = raw
	s.mu.Unlock()
}

func (s *jwksServer) setDown(down bool) {
	s.mu.Lock()
	s.down = down
	s.mu.Unlock()
}

func (s *jwksServer) setDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

func newVerifier(url string, clock *fakeClock) *identity.JWTVerifier {
	return identity.NewJWTVerifier(identity.JWTConfig{
		Issuer: testIssuer, Audience: testAudience, JWKSURL: url, Now: clock.Now, ValidTenant: tenant.ValidID,
	})
}
