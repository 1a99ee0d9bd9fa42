package connector_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// Business Central against shared/connector/vendors/businesscentral.

func TestBusinessCentralReadsEveryDocumentedError(t *testing.T) {
	t.Parallel()
	checkErrorReadings(t, profileOf(connector.SystemERP2), loadFixtures(t, "businesscentral"))
}

func TestBusinessCentralRequestsAreTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemERP2)
	fake, c, rc := startRecorded(t, pc)
	ctx := context.Background()
	fake.EditAfterNextReads(1)
	if _, err := c.Write(ctx, pc.write("k-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, connector.WriteRequest{Entity: pc.entity, Create: true, Fields: map[string]any{"displayName": "New"},
		IdempotencyKey: "k-2", Origin: "syncassist"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Changes(ctx, pc.entity, time.Unix(0, 0), "", 10); err != nil {
		t.Fatal(err)
	}
	checkRequests(t, rc.requests(), loadFixtures(t, "businesscentral"))
}

func TestBusinessCentralFakeAnswersInTheDocumentedShapes(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemERP2)
	all := loadFixtures(t, "businesscentral")
	entity := "/api/v2.0/companies(" + fakesystem.FakeCompanyID + ")/" + pc.entity + "(" + pc.id + ")"
	for name, provoke := range map[string]struct {
		method, path string
		header       map[string]string
		body         string
		prepare      func(*fakesystem.Server)
	}{
		"success-get-customer":              {method: "GET", path: entity},
		"error-409-request-entitychanged":   {method: "PATCH", path: entity, header: map[string]string{"If-Match": `W/"stale"`}, body: `{"displayName":"x"}`},
		"error-400-badrequest-invalidtoken": {method: "PATCH", path: entity, body: `{"displayName":"x"}`},
		"error-404-badrequest-notfound":     {method: "GET", path: "/api/v2.0/companies(" + fakesystem.FakeCompanyID + ")/" + pc.entity + "(00000000-0000-0000-0000-000000000000)"},
		"error-401-authentication-invalidcredentials": {method: "GET", path: entity,
			prepare: func(s *fakesystem.Server) { s.RequireToken("bc-token") }},
		"error-503-retry-after": {method: "GET", path: entity,
			prepare: func(s *fakesystem.Server) { s.FailNextRetryAfter(1, http.StatusServiceUnavailable, "6") }},
		"error-502-retry-after": {method: "GET", path: entity,
			prepare: func(s *fakesystem.Server) { s.FailNextRetryAfter(1, http.StatusBadGateway, "4") }},
	} {
		t.Run(name, func(t *testing.T) {
			f, ok := all[name]
			if !ok {
				t.Fatalf("no fixture %s", name)
			}
			if len(f.Response.Body) == 0 {
				// A gateway's answer: status and headers only.
				f.Response.Body = nil
			}
			checkAnswerShape(t, f, fakeRaw(t, pc, provoke.prepare, provoke.method, provoke.path, provoke.header, provoke.body))
		})
	}
}

// A 502's Retry-After is the caller's wait when it is longer than the client may block,
// and waited out by the client when it is not.
func TestBusinessCentralHonoursRetryAfterOn502(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemERP2)
	fake, c, _ := startProfile(t, pc, func(cfg *connector.Config) { cfg.MaxRetryAfter = time.Second })
	fake.FailNextRetryAfter(1, http.StatusBadGateway, "30")
	_, err := c.Get(context.Background(), pc.entity, pc.id)
	if ce := asError(t, err, connector.ErrUnavailable); ce.RetryAfter != 30*time.Second || ce.Attempts != 1 {
		t.Fatalf("error = %#v, want the 502's Retry-After handed back after one attempt", ce)
	}
}
