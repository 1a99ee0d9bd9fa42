package connector_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// ShipStation v1 against shared/connector/vendors/shipstation: every request the
// connector sends is validated with kin-openapi against the v1 OpenAPI document.

var shipstationRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromFile("vendors/shipstation/openapi-v1-subset.yaml")
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	return gorillamux.NewRouter(doc)
})

// validateShipStation checks one recorded request against the OpenAPI document: path and
// method, path and query parameters, headers, HTTP Basic, and the JSON body's schema.
func validateShipStation(t *testing.T, r recorded) {
	t.Helper()
	router, err := shipstationRouter()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	target := "https://ssapi.shipstation.com" + r.url
	req, err := http.NewRequest(r.method, target, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = r.header.Clone()
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Errorf("%s %s: not in ShipStation v1: %v", r.method, r.url, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: func(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
			if _, _, ok := ai.RequestValidationInput.Request.BasicAuth(); !ok {
				return ai.NewError(errNoBasic)
			}
			return nil
		}}}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		t.Errorf("%s %s does not conform to ShipStation v1: %v\nbody: %s", r.method, r.url, err, r.body)
	}
}

// conformant puts a recorder in front of a ShipStation fake whose requests are validated
// against the OpenAPI document when the test ends, so every ShipStation test's requests
// are held to v1; other systems' handlers are returned as they are.
func conformant(t *testing.T, sys connector.System, h http.Handler) http.Handler {
	if sys == connector.SystemHostERP {
		return netsuiteConformant(t, h)
	}
	if sys != connector.SystemShipping {
		return h
	}
	rc := &recorder{next: h}
	t.Cleanup(func() {
		for _, r := range rc.requests() {
			validateShipStation(t, r)
		}
	})
	return rc
}

var errNoBasic = errors.New("no HTTP Basic credentials")

func TestShipStationRequestsConformToTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemShipping)
	fake, c, rc := startRecorded(t, pc)
	fake.Seed("products", "7001", map[string]any{"productId": 7001, "sku": "MUG-1", "name": "Coffee Mug", "price": 9.5, "active": true})
	fake.Seed("customers", "12345678", map[string]any{"customerId": 12345678, "name": "Cam Newton"})
	ctx := context.Background()
	steps := map[string]func() error{
		"get order":   func() error { _, err := c.Get(ctx, pc.entity, pc.id); return err },
		"write order": func() error { _, err := c.Write(ctx, pc.write("k-1")); return err },
		"upsert order": func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "orders", RecordID: "SO-2", UpsertKey: connector.ShipStationOrderKey,
				Fields: map[string]any{"orderNumber": "2", "orderDate": "2026-11-27T08:00:00.0000000", "orderStatus": "awaiting_payment",
					"billTo": map[string]any{"name": "A"}, "shipTo": map[string]any{"name": "A"}}, IdempotencyKey: "k-2", Origin: "syncassist"})
			return err
		},
		"create order": func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "orders", Create: true,
				Fields: map[string]any{"orderNumber": "3", "orderDate": "2026-11-27T08:00:00.0000000", "orderStatus": "awaiting_payment",
					"billTo": map[string]any{"name": "B"}, "shipTo": map[string]any{"name": "B"}}, IdempotencyKey: "k-3", Origin: "syncassist"})
			return err
		},
		"find order":  func() error { _, err := c.Find(ctx, "orders", "orderNumber", "10042"); return err },
		"changes":     func() error { _, err := c.Changes(ctx, "orders", time.Unix(0, 0), "", 10); return err },
		"check":       func() error { _, err := c.Check(ctx); return err },
		"get product": func() error { _, err := c.Get(ctx, "products", "7001"); return err },
		"write product": func() error {
			_, err := c.Write(ctx, connector.WriteRequest{Entity: "products", RecordID: "7001", Fields: map[string]any{"price": 11.25},
				IdempotencyKey: "k-4", Origin: "syncassist"})
			return err
		},
		"get customer": func() error { _, err := c.Get(ctx, "customers", "12345678"); return err },
	}
	for name, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	reqs := rc.requests()
	if len(reqs) < len(steps) {
		t.Fatalf("%d requests recorded for %d steps", len(reqs), len(steps))
	}
	for _, r := range reqs {
		validateShipStation(t, r)
	}
}

// The validator is not a formality: the mistakes issue 34 names fail it.
func TestShipStationOpenAPIDocumentRefusesWhatV1DoesNotTake(t *testing.T) {
	t.Parallel()
	router, err := shipstationRouter()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]struct{ method, url, body string }{
		"PUT a customer":                {"PUT", "/customers/12345678", `{"name":"x"}`},
		"createorder without orderDate": {"POST", "/orders/createorder", `{"orderNumber":"1","orderStatus":"on_hold","billTo":{"name":"a"},"shipTo":{"name":"a"}}`},
		"an order addressed by its key": {"GET", "/orders/SO-10042", ""},
	} {
		req, _ := http.NewRequest(r.method, "https://ssapi.shipstation.com"+r.url, strings.NewReader(r.body))
		req.SetBasicAuth("k", "s")
		req.Header.Set("Content-Type", "application/json")
		route, params, err := router.FindRoute(req)
		if err == nil {
			err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}})
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// v1 has no write of customers: the connector refuses it without a request, metadata does
// not offer customers, and the fake answers a PUT with 405.
func TestShipStationWritesOrdersAndProductsOnly(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemShipping)
	fake, c, _ := startProfile(t, pc, nil)
	fake.Seed("customers", "12345678", map[string]any{"name": "Cam Newton"})
	_, err := c.Write(context.Background(), connector.WriteRequest{Entity: "customers", RecordID: "12345678",
		Fields: map[string]any{"name": "Cam"}, IdempotencyKey: "k-1", Origin: "syncassist"})
	asError(t, err, connector.ErrUnsupported)
	if n := fake.Requests(); n != 0 {
		t.Fatalf("%d requests sent for a write v1 does not have", n)
	}
	entities, err := c.Entities(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entities {
		if e.Name == "customers" {
			t.Fatal("metadata offers customers as writable")
		}
	}
	resp := fakeRaw(t, pc, func(s *fakesystem.Server) { s.Seed("customers", "12345678", map[string]any{"name": "Cam"}) },
		"PUT", "/customers/12345678", nil, `{"name":"x"}`)
	checkAnswerShape(t, loadFixtures(t, "shipstation")["error-405-no-put-customers"], resp)
}

// A 429 goes back at once with the window's reset as RetryAfter, however short: the
// write is deferred by its caller, and no Lambda sleeps on ShipStation's window.
func TestShipStation429IsDeferredNotSlept(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemShipping)
	fake, c, _ := startProfile(t, pc, func(cfg *connector.Config) { cfg.MaxRetryAfter = time.Minute })
	fake.FailNextRetryAfter(1, http.StatusTooManyRequests, "2")
	waits := connector.RecordWaits(c)
	_, err := c.Write(context.Background(), pc.write("k-1"))
	ce := asError(t, err, connector.ErrRateLimited)
	if ce.RetryAfter != 2*time.Second || ce.Attempts != 1 || !ce.Retryable || len(waits()) != 0 || fake.WriteCount() != 0 {
		t.Fatalf("error = %#v after waiting %v; want RetryAfter 2s at once, nothing written", ce, waits())
	}
}

func TestShipStationReadsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	checkErrorReadings(t, profileOf(connector.SystemShipping), loadFixtures(t, "shipstation"))
}

func TestShipStationFakeAnswersInTheDocumentedShapes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemShipping)
	all := loadFixtures(t, "shipstation")
	limited := func(s *fakesystem.Server) { s.RateLimit(40, time.Minute) }
	order := `{"orderKey":"SO-10042","orderNumber":"10042","orderDate":"2026-11-27T08:46:27.0000000","orderStatus":"on_hold","billTo":{"name":"a"},"shipTo":{"name":"a"}}`
	for name, provoke := range map[string]struct {
		method, path, body string
		prepare            func(*fakesystem.Server)
	}{
		"success-get-order":      {method: "GET", path: "/orders/" + pc.id, prepare: limited},
		"success-createorder":    {method: "POST", path: "/orders/createorder", body: order},
		"error-404-not-found":    {method: "GET", path: "/orders/999999"},
		"error-400-modelstate":   {method: "POST", path: "/orders/createorder", body: `not json`},
		"error-401-unauthorized": {method: "GET", path: "/orders/" + pc.id, prepare: func(s *fakesystem.Server) { s.RequireToken("ss-key:ss-secret") }},
		"error-429-rate-limited": {method: "GET", path: "/orders/" + pc.id, prepare: func(s *fakesystem.Server) {
			s.RateLimit(40, time.Minute)
			s.FailNextRetryAfter(1, http.StatusTooManyRequests, "37")
		}},
	} {
		t.Run(name, func(t *testing.T) {
			f, ok := all[name]
			if !ok {
				t.Fatalf("no fixture %s", name)
			}
			checkAnswerShape(t, f, fakeRaw(t, pc, provoke.prepare, provoke.method, provoke.path, nil, provoke.body))
		})
	}
}
