package connector_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// profileCase is one system's profile and a record its vendor would hold.
type profileCase struct {
	sys        connector.System
	entity, id string
	seed       map[string]any
	change     map[string]any
	// cred is the credential the fake requires, as the vendor takes it.
	cred string
}

var profileCases = []profileCase{
	{sys: connector.SystemHostERP, entity: "salesOrder", id: "10042",
		seed:   map[string]any{"shipcountry": "Deutschland", "total": 129.5, "shipaddress": map[string]any{"city": "Berlin", "zip": "10115"}},
		change: map[string]any{"shipcountry": "DE", "shipaddress": map[string]any{"city": "Berlin"}}, cred: "ns-token"},
	{sys: connector.SystemERP2, entity: "customers", id: "5d115c9c-44e3-ea11-bb43-000d3a2feca1",
		seed:   map[string]any{"displayName": "Coho Winery", "balanceDue": 1500},
		change: map[string]any{"displayName": "Coho Winery Inc.", "balanceDue": 1500.0}, cred: "bc-token"},
	{sys: connector.SystemCRM, entity: "Account", id: "001000000000001AAA",
		seed:   map[string]any{"Name": "Acme", "BillingCountry": "Germany"},
		change: map[string]any{"BillingCountry": "DE"}, cred: "sf-session"},
	{sys: connector.SystemMarketing, entity: "a1b2c3d4e5", id: "Jana.Vogel@example.com",
		seed:   map[string]any{"email_address": "jana.vogel@example.com", "status": "subscribed", "merge_fields": map[string]any{"FNAME": "Jana", "LNAME": "Vogel"}},
		change: map[string]any{"merge_fields": map[string]any{"FNAME": "Jana-Marie"}}, cred: "anystring:mc-key-us6"},
	{sys: connector.SystemShipping, entity: "orders", id: "1001",
		seed: map[string]any{"orderKey": "SO-10042", "orderNumber": "10042", "orderDate": "2026-11-27T08:46:27.0000000", "orderStatus": "awaiting_shipment",
			"billTo": map[string]any{"name": "Jana Vogel"}, "shipTo": map[string]any{"name": "Jana Vogel", "country": "DE", "city": "Berlin"}},
		change: map[string]any{"orderStatus": "on_hold"}, cred: "ss-key:ss-secret"},
}

// startProfile serves pc's fake with its record seeded and returns a client configured as
// a tenant would configure it.
func startProfile(t *testing.T, pc profileCase, mod func(*connector.Config)) (*fakesystem.Server, *connector.Client, string) {
	t.Helper()
	fake := fakesystem.New(pc.sys)
	fake.Seed(pc.entity, pc.id, pc.seed)
	fake.RequireToken(pc.cred)
	srv := httptest.NewServer(conformant(t, pc.sys, fake.Handler()))
	t.Cleanup(srv.Close)
	cfg := connector.Config{AllowLoopback: true, System: pc.sys, BaseURL: srv.URL + fakesystem.BasePath(pc.sys), Token: pc.cred,
		BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	c, err := connector.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return fake, c, srv.URL
}

// eachProfile runs the same case against every system's profile and fake.
func eachProfile(t *testing.T, run func(t *testing.T, pc profileCase)) {
	t.Parallel()
	for _, pc := range profileCases {
		t.Run(string(pc.sys), func(t *testing.T) {
			t.Parallel()
			run(t, pc)
		})
	}
}

func (pc profileCase) write(key string) connector.WriteRequest {
	return connector.WriteRequest{Entity: pc.entity, RecordID: pc.id, Fields: pc.change, IdempotencyKey: key, Origin: "syncassist"}
}

func jsonShape(t *testing.T, v any) any {
	t.Helper()
	raw, _ := json.Marshal(v)
	var out any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestContractGetAndWrite(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		ctx := context.Background()
		got, err := c.Get(ctx, pc.entity, pc.id)
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if !reflect.DeepEqual(got.Fields, jsonShape(t, pc.seed)) || got.Version == "" || got.Entity != pc.entity || got.ID != pc.id {
			t.Fatalf("Get = %#v, want the seeded fields and a version", got)
		}
		res, err := c.Write(ctx, pc.write("k-1"))
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		stored, _ := fake.Get(pc.entity, pc.id)
		if res.Replayed || res.Record.Version == got.Version || !reflect.DeepEqual(res.Record, stored) {
			t.Fatalf("Write = %#v, want the stored record %#v with a new version", res, stored)
		}
		writes := fake.Writes()
		if len(writes) != 1 || writes[0].IdempotencyKey != "k-1" || writes[0].Origin != "syncassist" || writes[0].Version != stored.Version {
			t.Fatalf("applied writes = %#v, want one with key and origin", writes)
		}
	})
}

// TestContractReadCompareWrite: none of the vendors keeps idempotency keys; a write whose
// fields already hold (a retry after a lost answer) sends nothing and reports Replayed.
func TestContractReadCompareWrite(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		ctx := context.Background()
		first, err := c.Write(ctx, pc.write("k-1"))
		if err != nil {
			t.Fatal(err)
		}
		before := fake.Requests()
		again, err := c.Write(ctx, pc.write("k-1"))
		if err != nil || !again.Replayed || !reflect.DeepEqual(again.Record, first.Record) {
			t.Fatalf("repeated write = %#v, %v; want Replayed with the same record", again, err)
		}
		if fake.WriteCount() != 1 || fake.Requests() != before+1 {
			t.Fatalf("writes = %d, requests = %d; want 1 write and only a read", fake.WriteCount(), fake.Requests()-before)
		}
	})
}

func TestContractNotFoundKeepsCustomerDataOut(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		_, c, _ := startProfile(t, pc, nil)
		missing := "9d115c9c-44e3-ea11-bb43-000d3a2feca9"
		switch pc.sys {
		case connector.SystemMarketing:
			missing = "secret.person@example.com"
		case connector.SystemShipping:
			// ShipStation's orderId is a number (its OpenAPI document).
			missing = "9999999"
		}
		_, err := c.Get(context.Background(), pc.entity, missing)
		ce := asError(t, err, connector.ErrNotFound)
		// ShipStation's errors carry no code; the others' do.
		if (ce.Code == "") != (pc.sys == connector.SystemShipping) || strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), "secret") {
			t.Fatalf("error %q: want the vendor's code and no id or message", err)
		}
	})
}

func TestContractVendorErrorCodes(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		fake.FailNextWithCode(1, http.StatusBadRequest, "VENDOR_CODE")
		_, err := c.Write(context.Background(), pc.write("k-1"))
		want := "VENDOR_CODE"
		if pc.sys == connector.SystemShipping {
			// ShipStation v1's errors carry no code ({"Message","ModelState"}).
			want = ""
		}
		if ce := asError(t, err, connector.ErrValidation); ce.Code != want || ce.Attempts != 1 || ce.Retryable {
			t.Fatalf("error = %#v, want the vendor's code, one attempt, not retryable", ce)
		}
		if fake.WriteCount() != 0 {
			t.Fatal("a refused write was applied")
		}
	})
}

func TestContractStaleVersionIsAConflict(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		req := pc.write("k-1")
		req.IfVersion = "stale"
		_, err := c.Write(context.Background(), req)
		asError(t, err, connector.ErrConflict)
		if fake.WriteCount() != 0 {
			t.Fatal("a conditional write on a stale version was applied")
		}
	})
}

func TestContractRateLimitHonoursReset(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		fake.FailNextRetryAfter(1, http.StatusTooManyRequests, "1")
		if pc.sys == connector.SystemShipping {
			// ShipStation's window reset is the caller's to wait out, however short: the
			// write is deferred, not slept on (vendor_shipstation_conformance_test.go).
			_, err := c.Write(context.Background(), pc.write("k-1"))
			if ce := asError(t, err, connector.ErrRateLimited); ce.RetryAfter != time.Second || ce.Attempts != 1 || !ce.Retryable {
				t.Fatalf("error = %#v, want RetryAfter 1s after one attempt", ce)
			}
			return
		}
		start := time.Now()
		if _, err := c.Write(context.Background(), pc.write("k-1")); err != nil {
			t.Fatalf("Write after a 429: %v", err)
		}
		if waited := time.Since(start); waited < time.Second {
			t.Fatalf("retried after %v, before the system's reset", waited)
		}
		// A reset longer than the client may block goes back to the caller at once.
		fake.FailNextRetryAfter(1, http.StatusTooManyRequests, "120")
		_, err := c.Get(context.Background(), pc.entity, pc.id)
		if ce := asError(t, err, connector.ErrRateLimited); ce.RetryAfter != 120*time.Second || ce.Attempts != 1 || !ce.Retryable {
			t.Fatalf("error = %#v, want RetryAfter 2m after one attempt", ce)
		}
	})
}

func TestContractUnavailableIsRetried(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		fake.FailNext(2, http.StatusServiceUnavailable)
		if _, err := c.Write(context.Background(), pc.write("k-1")); err != nil {
			t.Fatalf("Write after two 503s: %v", err)
		}
		fake.FailNext(3, http.StatusBadGateway)
		_, err := c.Get(context.Background(), pc.entity, pc.id)
		if ce := asError(t, err, connector.ErrUnavailable); ce.Attempts != 3 || !ce.Retryable {
			t.Fatalf("error = %#v, want 3 attempts, retryable", ce)
		}
	})
}

func TestContractAuth(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		_, c, _ := startProfile(t, pc, func(cfg *connector.Config) { cfg.Token = "wrong:credential" })
		_, err := c.Get(context.Background(), pc.entity, pc.id)
		if ce := asError(t, err, connector.ErrUnauthorized); ce.Attempts != 1 || strings.Contains(err.Error(), "wrong") {
			t.Fatalf("error = %v, want one attempt and no credential in the text", err)
		}
	})
}
