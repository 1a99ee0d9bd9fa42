package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A public address literal: the SSRF check needs no DNS for it.
const publicURL = "https://93.184.215.14/services/rest"

func TestConnectorTakesTheCredentialFromStdinOrAFileNeverArgv(t *testing.T) {
	t.Parallel()
	c, store, audits := testCLI("stdin-credential-value\n")
	mustRun(t, c, "create", "acme")

	out := mustRun(t, c, "connector", "acme", "crm", publicURL, "-token-stdin")
	if strings.Contains(out, "stdin-credential") {
		t.Fatalf("the credential was printed:\n%s", out)
	}
	if got := getTenant(t, store, "acme").Connectors["crm"]; got.BaseURL != publicURL || got.Token != "stdin-credential-value" {
		t.Fatalf("stored %+v", got)
	}

	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("file-credential-value\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, c, "connector", "acme", "-token-file", file, "shipping", publicURL)
	if got := getTenant(t, store, "acme").Connectors["shipping"]; got.Token != "file-credential-value" {
		t.Fatalf("stored %+v", got)
	}

	// The same base URL alone keeps the stored credential; a new one deletes it, and says so:
	// a credential is never sent to an address it was not given for.
	if out := mustRun(t, c, "connector", "acme", "crm", publicURL); strings.Contains(out, "deleted") {
		t.Fatalf("unmoved connector:\n%s", out)
	}
	if got := getTenant(t, store, "acme").Connectors["crm"]; got.Token != "stdin-credential-value" {
		t.Fatalf("stored %+v", got)
	}
	out = mustRun(t, c, "connector", "acme", "crm", publicURL+"/v2")
	if got := getTenant(t, store, "acme").Connectors["crm"]; got.Token != "" || got.BaseURL != publicURL+"/v2" || !strings.Contains(out, "credential was deleted") {
		t.Fatalf("stored %+v after a move, which printed:\n%s", got, out)
	}

	mustRun(t, c, "connector", "acme", "shipping")
	if _, ok := getTenant(t, store, "acme").Connectors["shipping"]; ok {
		t.Fatal("connector not removed")
	}

	// Every change is audited under the command's actor, and no credential reaches the trail.
	recs := audits.All()
	if len(recs) != 5 {
		t.Fatalf("%d audit records, want 5", len(recs))
	}
	for _, r := range recs {
		if r.Actor.Actor != "tenantctl:tester" || r.ActionKey != "settings.update" {
			t.Errorf("record %+v", r)
		}
		if s := string(r.Details); strings.Contains(s, "credential-value") || !strings.Contains(s, `"before"`) {
			t.Errorf("details %s", s)
		}
	}
}

func TestConnectorRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"credential as an argument", []string{"connector", "acme", "crm", publicURL, "secret-token"}, "never the command line"},
		{"loopback", []string{"connector", "acme", "crm", "https://127.0.0.1/x"}, "connectors.crm.baseUrl"},
		{"instance metadata", []string{"connector", "acme", "crm", "https://169.254.169.254/latest"}, "connectors.crm.baseUrl"},
		{"plain http", []string{"connector", "acme", "crm", "http://93.184.215.14/"}, "https"},
		{"unknown system", []string{"connector", "acme", "erp3", publicURL}, "connectors.erp3"},
		{"credential without URL", []string{"connector", "acme", "crm", "-token-stdin"}, "needs a BASEURL"},
		{"both sources", []string{"connector", "acme", "crm", publicURL, "-token-stdin", "-token-file", "x"}, "not both"},
		{"empty credential", []string{"connector", "acme", "crm", publicURL, "-token-stdin"}, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, store, _ := testCLI("")
			mustRun(t, c, "create", "acme")
			out, err := runCommand(t, c, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%v = %v, want an error naming %q", tt.args, err, tt.want)
			}
			if out != "" {
				t.Errorf("refused command printed %q", out)
			}
			if cs := getTenant(t, store, "acme").Connectors; len(cs) != 0 {
				t.Errorf("refused command stored %+v", cs)
			}
		})
	}
}

func TestManifestOverridesFromStdin(t *testing.T) {
	t.Parallel()
	body := `{"entries": [{"entity": "customer", "field": "creditLimit", "owner": "hosterp", "policy": "reject_with_alert"}]}`
	c, _, audits := testCLI(body)
	mustRun(t, c, "create", "acme")
	if out := mustRun(t, c, "manifest", "acme", "-"); !strings.Contains(out, "1 manifest override") {
		t.Fatalf("output %q", out)
	}
	show := mustRun(t, c, "show", "acme")
	if !strings.Contains(show, "override customer.creditLimit owned by hosterp, reject_with_alert") {
		t.Fatalf("show lacks the override:\n%s", show)
	}
	if recs := audits.All(); len(recs) != 1 || recs[0].ActionKey != "settings.manifest_overrides" {
		t.Fatalf("audit %+v", recs)
	}

	for name, bad := range map[string]string{
		"unknown policy": `{"entries": [{"entity": "customer", "field": "x", "owner": "hosterp", "policy": "sometimes"}]}`,
		"unknown field":  `{"entries": [], "extra": 1}`,
		"not json":       `entries: []`,
	} {
		c.in = strings.NewReader(bad)
		if _, err := runCommand(t, c, "manifest", "acme", "-"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if show2 := mustRun(t, c, "show", "acme"); show2 != show {
		t.Fatalf("a refused manifest changed the overrides:\n%s", show2)
	}
}

func TestConnectorOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	c, store, _ := testCLI("client-id:client-secret")
	mustRun(t, c, "create", "acme")
	mustRun(t, c, "connector", "acme", "erp2", publicURL, "-token-stdin", "-token-url", "https://93.184.215.14/oauth2/v2.0/token",
		"-scope", "https://api.businesscentral.dynamics.com/.default")
	got := getTenant(t, store, "acme").Connectors["erp2"]
	if got.TokenURL != "https://93.184.215.14/oauth2/v2.0/token" || got.Scope != "https://api.businesscentral.dynamics.com/.default" || got.Token != "client-id:client-secret" {
		t.Fatalf("stored %+v", got)
	}
	if show := mustRun(t, c, "show", "acme"); !strings.Contains(show, "client credentials at https://93.184.215.14/oauth2/v2.0/token") || strings.Contains(show, "client-secret") {
		t.Fatalf("show:\n%s", show)
	}
	// A new base URL keeps the grant's settings but not its client secret, which is given
	// again; an empty token URL ends the grant.
	mustRun(t, c, "connector", "acme", "erp2", publicURL+"/v2")
	if got := getTenant(t, store, "acme").Connectors["erp2"]; got.TokenURL == "" || got.Scope == "" || got.Token != "" {
		t.Fatalf("moved connector: %+v, want its grant without the credential", got)
	}
	mustRun(t, c, "connector", "acme", "erp2", publicURL, "-token-url", "")
	if got := getTenant(t, store, "acme").Connectors["erp2"]; got.TokenURL != "" || got.Scope == "" {
		t.Fatalf("after -token-url '': %+v", got)
	}
	if _, err := runCommand(t, c, "connector", "acme", "erp2", publicURL, "-token-url", "https://169.254.169.254/token"); err == nil ||
		!strings.Contains(err.Error(), "connectors.erp2.tokenUrl") {
		t.Fatalf("metadata token URL: %v", err)
	}
}
