package intake_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

var (
	// Two active secrets (rotation in progress) and one retired.
	secretCurrent  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secretPrevious = "whsec_cHJldmlvdXMtc2VjcmV0LWZvci10ZXN0cw=="
	secretRetired  = "whsec_cmV0aXJlZC1zZWNyZXQtZm9yLXRlc3Rz"
)

// fixture is the signed webhook over the in-memory store: the package's tests make their
// rows the way the host ERP does.
type fixture struct {
	tenants *tenanttest.Store
	claims  *syncerrortest.ClaimStore
	queue   *syncerrortest.Queue
	handler http.Handler
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{tenants: tenanttest.NewStore(), claims: syncerrortest.NewClaimStore(), queue: &syncerrortest.Queue{}}
	ctx := context.Background()
	for _, id := range []string{"acme", "off-enabled", "off-webhook", "upper", "yes"} {
		err := f.tenants.Create(ctx, tenant.Config{
			ID: id,
			Settings: map[string]string{
				tenant.KeyEnabled:        map[string]string{"off-enabled": "false", "upper": "TRUE"}[id],
				tenant.KeyWebhookEnabled: map[string]string{"off-webhook": "false", "yes": "yes"}[id],
			},
			WebhookSecrets: []tenant.Secret{
				{Value: secretCurrent, CreatedAt: clock.Add(-time.Hour)},
				{Value: secretPrevious, CreatedAt: clock.Add(-48 * time.Hour), RetireAt: clock.Add(time.Hour)},
				{Value: secretRetired, CreatedAt: clock.Add(-96 * time.Hour), RetireAt: clock.Add(-time.Second)},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		// Flags that the map left empty are on.
		c, _ := f.tenants.Get(ctx, id)
		for k, v := range c.Settings {
			if v == "" {
				c.Settings[k] = "true"
			}
		}
		if err := f.tenants.Update(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	ing := &intake.Ingest{
		Auth:   fixedAuth(f.tenants, func() time.Time { return clock }),
		Claims: f.claims,
		Queue:  f.queue,
		Now:    func() time.Time { return clock },
	}
	f.handler = httpapi.Instrument(discardLogger(), ing)
	return f
}

func body(tenantID, errorID string) []byte {
	b, _ := json.Marshal(map[string]any{
		"tenantId": tenantID, "errorId": errorID, "recordType": "salesOrder", "recordId": "SO-" + errorID,
		"errorCode": "INVALID_FIELD_VALUE", "message": "Invalid value for field shipcountry",
		"occurredAt": "2026-11-22T09:59:00Z", "payload": map[string]any{"shipcountry": "Deutschland"},
	})
	return b
}

// rowID is the row body(tenantID, errorID) opens: each errorId is its own record, so
// each opens a row of its own.
func rowID(tenantID, errorID string) string {
	r, err := syncerror.ParseRecord(body(tenantID, errorID), tenantID)
	if err != nil {
		panic(err)
	}
	return syncerror.RowID(r)
}

type req struct {
	tenant      string // X-Tenant-Id; "-" omits it
	secret      string
	body        []byte
	signedBody  []byte // when set, the signature covers this instead of body
	at          time.Time
	contentType string
	noSig       bool
	// id is the webhook-id; "" means one per signed body, as a sender makes them (one
	// message, one id; a redelivery sends the same id and body).
	id string
	// timestamp, when set, replaces the signed webhook-timestamp header's text.
	timestamp string
}

func msgID(signed []byte) string {
	sum := sha256.Sum256(signed)
	return "msg_" + hex.EncodeToString(sum[:10])
}

func (f *fixture) do(t testing.TB, r req) *httptest.ResponseRecorder {
	t.Helper()
	if r.secret == "" {
		r.secret = secretCurrent
	}
	if r.at.IsZero() {
		r.at = clock
	}
	if r.contentType == "" {
		r.contentType = "application/json"
	}
	if r.signedBody == nil {
		r.signedBody = r.body
	}
	hr := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/ingest", bytes.NewReader(r.body))
	hr.Header.Set("Content-Type", r.contentType)
	if r.tenant != "-" {
		hr.Header.Set(intake.HeaderTenantID, r.tenant)
	}
	if !r.noSig {
		key, err := webhook.ParseSecret(r.secret)
		if err != nil {
			t.Fatal(err)
		}
		if r.id == "" {
			r.id = msgID(r.signedBody)
		}
		webhook.Sign(key, r.id, r.at, r.signedBody).Set(hr.Header)
		if r.timestamp != "" {
			hr.Header.Set(webhook.HeaderTimestamp, r.timestamp)
		}
	}
	rec := httptest.NewRecorder()
	f.handler.ServeHTTP(rec, hr)
	return rec
}

func decodeProblem(t testing.TB, rec *httptest.ResponseRecorder) httpapi.Problem {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json; body %s", ct, rec.Body)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.CorrelationID == "" || p.CorrelationID != rec.Header().Get(httpapi.HeaderCorrelationID) {
		t.Fatalf("problem correlation id %q does not match header %q", p.CorrelationID, rec.Header().Get(httpapi.HeaderCorrelationID))
	}
	return p
}
