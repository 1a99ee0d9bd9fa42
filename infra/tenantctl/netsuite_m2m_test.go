package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// NetSuite's M2M login: tenantctl takes the client ID, the certificate ID and the
// certificate's private key file, and the stored credential is the one the connector signs
// its client assertion with; a client secret for NetSuite's token URL is refused.
func TestConnectorNetSuiteM2M(t *testing.T) {
	t.Parallel()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	tokenURL := "https://93.184.215.14/services/rest/auth/oauth2/v1/token"
	c, store, _ := testCLI("client-1:s3cret")
	mustRun(t, c, "create", "acme")
	mustRun(t, c, "connector", "acme", "hosterp", publicURL, "-token-url", tokenURL,
		"-client-id", "client-1", "-certificate-id", "cert-1", "-private-key-file", keyFile)
	got := getTenant(t, store, "acme").Connectors["hosterp"]
	if err := connector.CheckNetSuiteCredential(got.Token); err != nil || got.TokenURL != tokenURL || !strings.HasPrefix(got.Token, "client-1:cert-1:") {
		t.Fatalf("stored %q at %s: %v", got.TokenURL, got.TokenURL, err)
	}
	if _, err := runCommand(t, c, "connector", "acme", "hosterp", publicURL, "-token-stdin", "-token-url", tokenURL); err == nil ||
		!strings.Contains(err.Error(), "connectors.hosterp.token") {
		t.Fatalf("a client secret for NetSuite's M2M login: %v", err)
	}
	if _, err := runCommand(t, c, "connector", "acme", "hosterp", publicURL, "-client-id", "client-1"); err == nil {
		t.Fatal("-client-id alone was taken")
	}
}
