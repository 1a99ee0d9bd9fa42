package devissuer_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/identity/devissuer"
)

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-a-long-enough-verifier"

func challenge(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func noRedirects(t *testing.T) *http.Client {
	t.Helper()
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// authorizeURL is what the console sends the browser to.
func authorizeURL(iss *devissuer.Issuer, redirect string, extra url.Values) string {
	q := url.Values{"response_type": {"code"}, "client_id": {"syncassist-console"}, "redirect_uri": {redirect},
		"state": {"st-1"}, "code_challenge": {challenge(verifier)}, "code_challenge_method": {"S256"}}
	for k, v := range extra {
		q[k] = v
	}
	return iss.URL + devissuer.AuthorizePath + "?" + q.Encode()
}

// signIn submits the sign-in page as a person would and returns the code it redirects with.
func signIn(t *testing.T, iss *devissuer.Issuer, redirect, role string) string {
	t.Helper()
	resp, err := noRedirects(t).Get(authorizeURL(iss, redirect, url.Values{"confirm": {"1"}, "tenant": {"acme"}, "role": {role}}))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("submit: status %d, want 302", resp.StatusCode)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(back.String(), redirect) || back.Query().Get("state") != "st-1" {
		t.Fatalf("redirect %q: want %s?code=…&state=st-1", resp.Header.Get("Location"), redirect)
	}
	return back.Query().Get("code")
}

func exchange(t *testing.T, iss *devissuer.Issuer, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(iss.URL+devissuer.TokenPath, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("token answer %q: %v", b, err)
	}
	return resp.StatusCode, body
}

func TestSignInCodeFlowWithPKCE(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, iss)
	redirect := srv.URL + "/auth/callback"

	page, err := http.Get(authorizeURL(iss, redirect, nil))
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	for _, want := range []string{`<label for="tenant">Tenant</label>`, `<label for="role">Role</label>`, `>Sign in</button>`} {
		if page.StatusCode != http.StatusOK || !strings.Contains(string(html), want) {
			t.Fatalf("sign-in page (status %d) lacks %s", page.StatusCode, want)
		}
	}

	code := signIn(t, iss, redirect, identity.RoleApprover)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {"syncassist-console"}, "code_verifier": {verifier}}
	status, body := exchange(t, iss, form)
	if status != http.StatusOK || body["token_type"] != "Bearer" {
		t.Fatalf("exchange: %d %v", status, body)
	}
	p, err := verifierFor(iss).Verify(context.Background(), body["access_token"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if p.TenantID != "acme" || p.Subject != "dev-approver" || !slices.Equal(p.Roles, []string{identity.RoleApprover}) {
		t.Fatalf("principal %+v", p)
	}
	if status, body := exchange(t, iss, form); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("second exchange of one code: %d %v, want invalid_grant", status, body)
	}
}

func TestSignInRefusals(t *testing.T) {
	iss, err := devissuer.Load(filepath.Join(t.TempDir(), "k.pem"))
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, iss)
	redirect := srv.URL + "/auth/callback"
	for name, extra := range map[string]url.Values{
		"redirect elsewhere": {"redirect_uri": {"https://attacker.example/cb"}},
		"no PKCE":            {"code_challenge": {""}},
		"plain PKCE":         {"code_challenge_method": {"plain"}},
		"implicit flow":      {"response_type": {"token"}},
	} {
		resp, err := noRedirects(t).Get(authorizeURL(iss, redirect, extra))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", name, resp.StatusCode)
		}
	}
	for name, tamper := range map[string]func(url.Values){
		"wrong verifier": func(f url.Values) { f.Set("code_verifier", verifier+"x") },
		"wrong redirect": func(f url.Values) { f.Set("redirect_uri", redirect+"/other") },
		"wrong client":   func(f url.Values) { f.Set("client_id", "other") },
		"unknown code":   func(f url.Values) { f.Set("code", "nope") },
	} {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {signIn(t, iss, redirect, identity.RoleOperator)},
			"redirect_uri": {redirect}, "client_id": {"syncassist-console"}, "code_verifier": {verifier}}
		tamper(form)
		if status, body := exchange(t, iss, form); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
			t.Errorf("%s: %d %v, want 400 invalid_grant", name, status, body)
		}
	}
}
