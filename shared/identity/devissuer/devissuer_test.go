package devissuer_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/identity/devissuer"
	"github.com/syncassist/syncassist/shared/tenant"
)

// serve mounts iss under /dev-issuer the way the local stack does and points iss.URL at it.
func serve(t *testing.T, iss *devissuer.Issuer) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/dev-issuer/", http.StripPrefix("/dev-issuer", iss.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.URL = srv.URL + "/dev-issuer"
	return srv
}

func verifierFor(iss *devissuer.Issuer) *identity.JWTVerifier {
	return identity.NewJWTVerifier(identity.JWTConfig{
		Issuer: iss.URL, Audience: iss.Audience, JWKSURL: iss.URL + devissuer.JWKSPath, ValidTenant: tenant.ValidID,
	})
}

func TestMintVerifies(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "dev-issuer.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if iss.URL != devissuer.DefaultURL || iss.Audience != devissuer.DefaultAudience {
		t.Fatalf("defaults: URL %q, Audience %q", iss.URL, iss.Audience)
	}
	serve(t, iss)
	v := verifierFor(iss)
	tests := []struct {
		name      string
		roles     []string
		wantRoles []string
	}{
		{name: "operator", roles: []string{identity.RoleOperator}, wantRoles: []string{identity.RoleOperator}},
		{name: "approver", roles: []string{identity.RoleApprover}, wantRoles: []string{identity.RoleApprover}},
		{name: "admin and an unknown role", roles: []string{identity.RoleAdmin, "auditor"}, wantRoles: []string{identity.RoleAdmin}},
		{name: "no roles", roles: nil, wantRoles: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := iss.Mint("dev-"+tc.name, "demo", tc.roles, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			p, err := v.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if p.Subject != "dev-"+tc.name || p.TenantID != "demo" || !slices.Equal(p.Roles, tc.wantRoles) {
				t.Fatalf("principal = %+v", p)
			}
		})
	}
}

func TestMintedTokenFailsForAnotherAudienceOrIssuer(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	serve(t, iss)
	tok, err := iss.Mint("dev-admin", "demo", []string{identity.RoleAdmin}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []identity.JWTConfig{
		{Issuer: iss.URL, Audience: "someone-else", JWKSURL: iss.URL + devissuer.JWKSPath, ValidTenant: tenant.ValidID},
		{Issuer: devissuer.DefaultURL, Audience: iss.Audience, JWKSURL: iss.URL + devissuer.JWKSPath, ValidTenant: tenant.ValidID},
	} {
		if _, err := identity.NewJWTVerifier(cfg).Verify(context.Background(), tok); err == nil {
			t.Errorf("config %+v accepted the token", cfg)
		}
	}
}

func TestMintRefusesIncompleteTokens(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sub, tenant string
		ttl         time.Duration
	}{{"", "demo", time.Hour}, {"dev", "", time.Hour}, {"dev", "demo", 0}, {"dev", "demo", -time.Hour}} {
		if _, err := iss.Mint(tc.sub, tc.tenant, nil, tc.ttl); err == nil {
			t.Errorf("Mint(%q, %q, %v) succeeded", tc.sub, tc.tenant, tc.ttl)
		}
	}
}

func TestLoadReusesTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "dev-issuer.pem")
	first, err := devissuer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("key file mode %o, want 600", perm)
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Fatalf("key directory mode %o, want 700", dir.Mode().Perm())
	}
	second, err := devissuer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if first.KeyID() == "" || first.KeyID() != second.KeyID() {
		t.Fatalf("kids %q and %q, want one stable kid", first.KeyID(), second.KeyID())
	}
	// A token minted by one process (make token) verifies against the JWKS another one
	// serves (the local stack).
	serve(t, second)
	first.URL = second.URL
	tok, err := first.Mint("dev-approver", "demo", []string{identity.RoleApprover}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verifierFor(second).Verify(context.Background(), tok); err != nil {
		t.Fatalf("token of the first load against the second's JWKS: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("state directory holds %d files, want only the key", len(entries))
	}
}

func TestConcurrentLoadsAgreeOnOneKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev-issuer.pem")
	kids := make([]string, 16)
	var wg sync.WaitGroup
	for i := range kids {
		wg.Go(func() {
			iss, err := devissuer.Load(path)
			if err != nil {
				t.Error(err)
				return
			}
			kids[i] = iss.KeyID()
		})
	}
	wg.Wait()
	for _, k := range kids {
		if k != kids[0] {
			t.Fatalf("concurrent loads produced different keys: %v", kids)
		}
	}
}

func TestLoadRefusesOtherKeys(t *testing.T) {
	dir := t.TempDir()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rsaKey)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKCS8PrivateKey(p384)
	for name, content := range map[string][]byte{
		"garbage": []byte("not a key"),
		"rsa":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: rsaDER}),
		"p384":    pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p384DER}),
		"cert":    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}),
	} {
		path := filepath.Join(dir, name+".pem")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := devissuer.Load(path); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
}

func TestLoadAcceptsSEC1Keys(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalECPrivateKey(key)
	path := filepath.Join(t.TempDir(), "sec1.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	iss, err := devissuer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if iss.KeyID() != rfc7638(t, &key.PublicKey) {
		t.Fatal("kid is not the key's thumbprint")
	}
}

// rfc7638 computes the thumbprint independently: the required members in lexicographic
// order, no whitespace.
func rfc7638(t *testing.T, pub *ecdsa.PublicKey) string {
	t.Helper()
	point, err := pub.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	canonical := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":"%s","y":"%s"}`, enc(point[1:33]), enc(point[33:]))
	sum := sha256.Sum256([]byte(canonical))
	return enc(sum[:])
}

func TestHandler(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, iss)

	get := func(path string, into any) *http.Response {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if into != nil {
			if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
				t.Fatal(err)
			}
		}
		return resp
	}

	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if resp := get("/dev-issuer"+devissuer.DiscoveryPath, &disc); resp.StatusCode != 200 {
		t.Fatalf("discovery: status %d", resp.StatusCode)
	}
	if disc.Issuer != iss.URL || disc.JWKSURI != iss.URL+devissuer.JWKSPath {
		t.Fatalf("discovery = %+v, issuer URL %q", disc, iss.URL)
	}

	var set struct {
		Keys []map[string]string `json:"keys"`
	}
	if resp := get("/dev-issuer"+devissuer.JWKSPath, &set); resp.StatusCode != 200 {
		t.Fatalf("jwks: status %d", resp.StatusCode)
	}
	if len(set.Keys) != 1 {
		t.Fatalf("jwks has %d keys, want 1", len(set.Keys))
	}
	k := set.Keys[0]
	if k["kty"] != "EC" || k["crv"] != "P-256" || k["alg"] != "ES256" || k["use"] != "sig" || k["kid"] != iss.KeyID() {
		t.Fatalf("jwk = %v", k)
	}
	if _, ok := k["d"]; ok {
		t.Fatal("the JWKS publishes the private key")
	}

	if resp := get("/dev-issuer/userinfo", nil); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown path: status %d, want 404", resp.StatusCode)
	}
	resp, err := http.Post(srv.URL+"/dev-issuer"+devissuer.JWKSPath, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST: status %d, want 405", resp.StatusCode)
	}
}
