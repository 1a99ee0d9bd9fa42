package connector_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

func pemOf(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// netsuiteM2M serves a NetSuite fake whose token endpoint knows client "client-1" mapped
// to certificate "cert-1" with key's public half.
func netsuiteM2M(t *testing.T, key crypto.Signer) (*fakesystem.Server, string) {
	t.Helper()
	fake := fakesystem.New(connector.SystemHostERP)
	fake.Seed("salesOrder", "SO-1", map[string]any{"memo": "a"})
	fake.IssueAssertionTokens("client-1", "cert-1", key.Public(), time.Hour)
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	return fake, srv.URL
}

func m2mClient(t *testing.T, root, cred string) (*connector.Client, error) {
	t.Helper()
	c, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: root,
		Token: cred, TokenURL: root + fakesystem.NetSuiteTokenPath, Scope: "rest_webservices", MaxAttempts: 1})
	if c != nil {
		t.Cleanup(c.CloseIdleConnections)
	}
	return c, err
}

// NetSuite's M2M login: a JWT client assertion signed with the certificate's key (PS256
// for RSA, ES256 for P-256), kid the certificate ID; the token is cached and fetched
// again once when NetSuite refuses it.
func TestNetSuiteM2MSignedClientAssertion(t *testing.T) {
	t.Parallel()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, key := range map[string]crypto.Signer{"PS256": rsaKey, "ES256": ecKey} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake, root := netsuiteM2M(t, key)
			cred, err := connector.NetSuiteCredential("client-1", "cert-1", pemOf(t, key))
			if err != nil {
				t.Fatalf("NetSuiteCredential: %v", err)
			}
			c, err := m2mClient(t, root, cred)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			for range 2 {
				if _, err := c.Get(context.Background(), "salesOrder", "SO-1"); err != nil {
					t.Fatalf("Get: %v", err)
				}
			}
			if fake.TokensIssued() != 1 {
				t.Fatalf("tokens issued = %d, want 1 (cached)", fake.TokensIssued())
			}
			fake.RevokeTokens()
			if _, err := c.Get(context.Background(), "salesOrder", "SO-1"); err != nil || fake.TokensIssued() != 2 {
				t.Fatalf("Get after revocation: %v, tokens issued %d", err, fake.TokensIssued())
			}
		})
	}
}

// An assertion the fake cannot verify (another key, another certificate id, another client)
// is refused as invalid_client and surfaces as ErrUnauthorized, never retried.
func TestNetSuiteM2MWrongKeyIsUnauthorized(t *testing.T) {
	t.Parallel()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	fake, root := netsuiteM2M(t, key)
	for name, cred := range map[string][3]any{
		"another key":         {"client-1", "cert-1", other},
		"another certificate": {"client-1", "cert-2", key},
		"another client":      {"client-2", "cert-1", key},
	} {
		s, err := connector.NetSuiteCredential(cred[0].(string), cred[1].(string), pemOf(t, cred[2].(crypto.Signer)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := m2mClient(t, root, s)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Get(context.Background(), "salesOrder", "SO-1")
		if !errors.Is(err, connector.ErrUnauthorized) {
			t.Errorf("%s: err = %v, want ErrUnauthorized", name, err)
		}
	}
	if fake.TokensIssued() != 0 {
		t.Fatalf("tokens issued = %d, want 0", fake.TokensIssued())
	}
}

// A client secret is no NetSuite M2M credential: the client refuses it at once rather than
// have every token request answer invalid_client.
func TestNetSuiteM2MRefusesAClientSecret(t *testing.T) {
	t.Parallel()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, root := netsuiteM2M(t, key)
	_, err := m2mClient(t, root, "client-1:s3cret")
	if !errors.Is(err, connector.ErrInvalidConfig) {
		t.Fatalf("New with a client secret: %v, want ErrInvalidConfig", err)
	}
	if _, err := connector.NetSuiteCredential("client-1", "cert-1", []byte("not pem")); err == nil {
		t.Fatal("NetSuiteCredential took a key that is not PEM")
	}
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	if _, err := connector.NetSuiteCredential("client-1", "cert-1", pemOf(t, small)); err == nil {
		t.Fatal("NetSuiteCredential took a 1024-bit RSA key")
	}
}
