package main

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/identity/devissuer"
	"github.com/syncassist/syncassist/shared/tenant"
)

func TestTokenCommandRefusesBadArguments(t *testing.T) {
	// Arguments are checked before the repository or the key file is touched.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "-role is required"},
		{[]string{"-role", "superuser"}, `unknown role "superuser"`},
		{[]string{"-role", "approver", "-ttl", "0s"}, "-ttl must be positive"},
		{[]string{"-role", "approver", "-tenant", ""}, "-tenant must not be empty"},
		{[]string{"-role", "approver", "extra"}, `unexpected argument "extra"`},
	} {
		err := tokenCommand(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tokenCommand(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
}

// verifyDevToken checks tok against the JWKS of the key file under root, as the local
// stack would serve it, for the given issuer URL.
func verifyDevToken(t *testing.T, root, issuerURL, tok string) identity.Principal {
	t.Helper()
	iss, err := devissuer.Load(filepath.Join(root, ".local", "dev-issuer.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(iss.Handler())
	t.Cleanup(srv.Close)
	v := identity.NewJWTVerifier(identity.JWTConfig{
		Issuer: issuerURL, Audience: devissuer.DefaultAudience, JWKSURL: srv.URL + devissuer.JWKSPath, ValidTenant: tenant.ValidID,
	})
	p, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return p
}

func TestMintDevToken(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		localEnv string // contents of .local/local.env; empty: no file
		issuer   string
		want     identity.Principal
	}{
		{name: "defaults, stack never run", args: []string{"-role", "approver"}, issuer: devissuer.DefaultURL,
			want: identity.Principal{Subject: "dev-approver", TenantID: demoTenant, Roles: []string{identity.RoleApprover}}},
		{name: "every flag", args: []string{"-role", "admin", "-tenant", "acme", "-sub", "alice", "-ttl", "15m"}, issuer: devissuer.DefaultURL,
			want: identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{identity.RoleAdmin}}},
		{name: "issuer from local.env", args: []string{"-role", "operator"},
			localEnv: "LOCAL_API_URL=http://127.0.0.1:4000\nJWT_ISSUER=http://127.0.0.1:4000/dev-issuer\n",
			issuer:   "http://127.0.0.1:4000/dev-issuer",
			want:     identity.Principal{Subject: "dev-operator", TenantID: demoTenant, Roles: []string{identity.RoleOperator}}},
		{name: "local.env without JWT_ISSUER", args: []string{"-role", "operator"}, localEnv: "LOCAL_API_URL=http://127.0.0.1:3000\n",
			issuer: devissuer.DefaultURL,
			want:   identity.Principal{Subject: "dev-operator", TenantID: demoTenant, Roles: []string{identity.RoleOperator}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if tc.localEnv != "" {
				if err := os.MkdirAll(filepath.Join(root, ".local"), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, ".local", "local.env"), []byte(tc.localEnv), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			opts, err := parseTokenArgs(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := mintDevToken(&out, root, opts); err != nil {
				t.Fatal(err)
			}
			// Only the token and a newline, so $(make token ROLE=...) is the token.
			tok := strings.TrimSuffix(out.String(), "\n")
			if tok == "" || strings.ContainsAny(tok, " \n") || strings.Count(tok, ".") != 2 {
				t.Fatalf("stdout = %q, want one token line", out.String())
			}
			info, err := os.Stat(filepath.Join(root, ".local", "dev-issuer.pem"))
			if err != nil || info.Mode().Perm() != 0o600 {
				t.Fatalf("key file: %v, %v", info, err)
			}
			p := verifyDevToken(t, root, tc.issuer, tok)
			if p.Subject != tc.want.Subject || p.TenantID != tc.want.TenantID || !slices.Equal(p.Roles, tc.want.Roles) {
				t.Fatalf("principal = %+v, want %+v", p, tc.want)
			}
		})
	}
}

func TestMintDevTokenTTL(t *testing.T) {
	root := t.TempDir()
	opts, err := parseTokenArgs([]string{"-role", "operator", "-ttl", "1s"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := mintDevToken(&out, root, opts); err != nil {
		t.Fatal(err)
	}
	iss, err := devissuer.Load(filepath.Join(root, ".local", "dev-issuer.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(iss.Handler())
	defer srv.Close()
	later := func() time.Time { return time.Now().Add(2 * time.Minute) }
	v := identity.NewJWTVerifier(identity.JWTConfig{Issuer: devissuer.DefaultURL, Audience: devissuer.DefaultAudience,
		JWKSURL: srv.URL + devissuer.JWKSPath, Now: later, ValidTenant: tenant.ValidID})
	if _, err := v.Verify(context.Background(), strings.TrimSpace(out.String())); !errors.Is(err, identity.ErrTokenExpired) {
		t.Fatalf("a 1s token two minutes later: err = %v, want ErrTokenExpired", err)
	}
}
