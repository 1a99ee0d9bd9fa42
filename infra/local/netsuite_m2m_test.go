package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// The demo tenant's host ERP connector logs in to the fake with NetSuite's M2M client
// assertion, signed by the key the stack made at start-up; a request with credentials the
// fake did not issue is refused, and one with none (an inspection) is let in.
func TestDemoHostERPLogsInWithNetSuiteM2M(t *testing.T) {
	fakes := newFakeSystems(time.Now())
	mux := http.NewServeMux()
	fakes.mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	store := tenanttest.NewStore()
	if err := store.Create(ctx, tenant.Config{ID: demoTenant}); err != nil {
		t.Fatal(err)
	}
	if err := fakes.configure(ctx, tenant.Admin{Store: store}, srv.URL); err != nil {
		t.Fatal(err)
	}
	c, _ := store.Get(ctx, demoTenant)
	cc := c.Connectors[string(connector.SystemHostERP)]
	if err := connector.CheckNetSuiteCredential(cc.Token); err != nil || cc.TokenURL != srv.URL+"/fake/hosterp/services/rest/auth/oauth2/v1/token" {
		t.Fatalf("demo hosterp connector: token URL %q, credential: %v", cc.TokenURL, err)
	}
	client, err := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: cc.BaseURL,
		Token: cc.Token, TokenURL: cc.TokenURL, Scope: cc.Scope, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	before := fakes[connector.SystemHostERP].TokensIssued()
	if _, err := client.Write(ctx, connector.WriteRequest{Entity: "salesOrder", RecordID: "SO-10042",
		Fields: map[string]any{"shipcountry": "DE"}, IdempotencyKey: "k-1", Origin: "syncassist"}); err != nil {
		t.Fatalf("write with the demo M2M credential: %v", err)
	}
	if fakes[connector.SystemHostERP].TokensIssued() != before+1 {
		t.Fatal("the connector did not log in at the fake's token endpoint")
	}
	forged, _ := connector.New(connector.Config{AllowLoopback: true, System: connector.SystemHostERP, BaseURL: cc.BaseURL,
		Token: "not-issued", MaxAttempts: 1})
	if _, err := forged.Get(ctx, "salesOrder", "SO-10042"); !errors.Is(err, connector.ErrUnauthorized) {
		t.Fatalf("a bearer token the fake did not issue: %v, want ErrUnauthorized", err)
	}
	resp, err := http.Get(srv.URL + "/fake/hosterp/services/rest/record/v1/salesOrder/SO-10042")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("inspection without credentials: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
}
