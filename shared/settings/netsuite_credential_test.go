package settings_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// The settings API takes NetSuite's M2M credential as client ID, certificate ID and the
// certificate's PEM private key, stores it in the form the connector signs with, and
// refuses a client secret, which NetSuite's M2M login does not take.
func TestNetSuiteM2MCredential(t *testing.T) {
	store := tenanttest.NewStore()
	ctx := context.Background()
	if err := store.Create(ctx, tenant.Config{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	s := &settings.Service{Admin: tenant.Admin{Store: store}, Audit: &audit.Log{Store: &audittest.Store{}, Redactor: passRedactor{}},
		Overrides: &governancetest.Overrides{}, LocalConnectors: true}
	who := identity.Identity{TenantID: "t1", Actor: "ann"}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	apply := func(token string) error {
		tokenURL := "http://127.0.0.1:3000/fake/hosterp/services/rest/auth/oauth2/v1/token"
		_, err := s.Apply(ctx, who, settings.Patch{Connectors: map[string]*settings.ConnectorPatch{"hosterp": {
			BaseURL: "http://127.0.0.1:3000/fake/hosterp", Token: &token, TokenURL: &tokenURL}}})
		return err
	}
	var invalid *settings.InvalidError
	if err := apply("client-1:s3cret"); !errors.As(err, &invalid) || invalid.Fields[0].Field != "connectors.hosterp.token" ||
		strings.Contains(invalid.Fields[0].Message, "s3cret") {
		t.Fatalf("client secret: %v %+v, want a refused connectors.hosterp.token", err, invalid)
	}
	if err := apply("client-1:cert-1:" + pemKey); err != nil {
		t.Fatalf("PEM credential: %v", err)
	}
	c, _ := store.Get(ctx, "t1")
	stored := c.Connectors["hosterp"].Token
	if err := connector.CheckNetSuiteCredential(stored); err != nil || !strings.HasPrefix(stored, "client-1:cert-1:") || strings.Contains(stored, "BEGIN") {
		t.Fatalf("stored credential is not the connector's form: %v", err)
	}
}
