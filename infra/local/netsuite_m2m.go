package main

// The fake host ERP logs clients in as NetSuite does, with OAuth 2.0 machine-to-machine: a
// client assertion signed with the key of the certificate mapped to the integration. The
// local stack makes the demo tenant's key pair at start-up, registers the public key with
// the fake (as an administrator uploads the certificate) and gives the private key to the
// demo tenant's hosterp connector, so every write-back logs in the real way.
//
// A request to the fake with no Authorization header at all is an inspection by hand or
// by a demo or browser test (curl of a record, the writes log): the stack logs it in as
// the demo integration. A request that does carry credentials, as the connector's do, is
// checked by the fake alone.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/tenant"
)

// The demo integration's client ID and the certificate ID of its M2M mapping.
const (
	demoNetSuiteClientID = "syncassist-demo-integration"
	demoNetSuiteCertID   = "demo-m2m-certificate"
)

// netsuiteLogin is the demo integration's key and the access tokens inspections use, one
// per fake (tests make several).
type netsuiteLogin struct {
	key    *ecdsa.PrivateKey
	mu     sync.Mutex
	tokens map[http.Handler]issued
}

type issued struct {
	tok  string
	till time.Time
}

var demoNetSuite = sync.OnceValue(func() *netsuiteLogin {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic("local: no key for the demo NetSuite integration: " + err.Error())
	}
	return &netsuiteLogin{key: key, tokens: map[http.Handler]issued{}}
})

// register maps the demo integration's public key at the fake host ERP.
func (l *netsuiteLogin) register(host *fakesystem.Server) {
	host.IssueAssertionTokens(demoNetSuiteClientID, demoNetSuiteCertID, l.key.Public(), time.Hour)
}

// credential is the demo tenant's hosterp credential (connector.NetSuiteCredential).
func (l *netsuiteLogin) credential() (string, error) {
	der, err := x509.MarshalPKCS8PrivateKey(l.key)
	if err != nil {
		return "", err
	}
	return connector.NetSuiteCredential(demoNetSuiteClientID, demoNetSuiteCertID,
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// inspect logs requests without an Authorization header in as the demo integration.
func (l *netsuiteLogin) inspect(fake http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" && r.URL.Path != fakesystem.NetSuiteTokenPath {
			if tok := l.token(fake); tok != "" {
				r.Header.Set("Authorization", "Bearer "+tok)
			}
		}
		fake.ServeHTTP(w, r)
	})
}

// token is a cached access token, fetched from the fake's token endpoint in process.
func (l *netsuiteLogin) token(fake http.Handler) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t, ok := l.tokens[fake]; ok && time.Now().Before(t.till) {
		return t.tok
	}
	const host = "local-inspection"
	now := time.Now()
	assertion := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": demoNetSuiteClientID,
		"scope": []string{"rest_webservices"}, "aud": "http://" + host + fakesystem.NetSuiteTokenPath,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()})
	assertion.Header["kid"] = demoNetSuiteCertID
	signed, err := assertion.SignedString(l.key)
	if err != nil {
		return ""
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_assertion_type": {connector.ClientAssertionType},
		"client_assertion": {signed}}
	req := httptest.NewRequest(http.MethodPost, fakesystem.NetSuiteTokenPath, strings.NewReader(form.Encode()))
	req.Host = host
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	fake.ServeHTTP(rec, req)
	var ans struct {
		AccessToken string `json:"access_token"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &ans) != nil {
		return ""
	}
	l.tokens[fake] = issued{ans.AccessToken, now.Add(50 * time.Minute)}
	return ans.AccessToken
}

// configureNetSuiteM2M points the demo tenant's hosterp connector at the fake with the
// demo integration's M2M credential and the fake's token endpoint.
func configureNetSuiteM2M(ctx context.Context, admin tenant.Admin, base string) error {
	cred, err := demoNetSuite().credential()
	if err != nil {
		return err
	}
	return admin.Update(ctx, demoTenant, func(c *tenant.Config) error {
		if c.Connectors == nil {
			c.Connectors = map[string]tenant.Connector{}
		}
		c.Connectors[string(connector.SystemHostERP)] = tenant.Connector{BaseURL: base, Token: cred,
			TokenURL: base + fakesystem.NetSuiteTokenPath, Scope: connector.NetSuiteDefaultScope}
		return nil
	})
}
