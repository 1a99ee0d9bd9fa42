package intake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
)

func TestIngestAcceptsSignedError(t *testing.T) {
	f := newFixture(t)
	rec := f.do(t, req{tenant: "acme", body: body("acme", "E-1")})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var got intake.IngestResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := intake.IngestResponse{ID: rowID("acme", "E-1"), Status: syncerror.StatusPending}
	if got != want {
		t.Fatalf("body %+v, want %+v", got, want)
	}
	if f.claims.Len() != 1 {
		t.Fatalf("%d rows, want 1", f.claims.Len())
	}
	row, err := f.claims.Get(context.Background(), "acme", want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if row.Diagnosis != syncerror.DiagnosisQueued || row.Status != syncerror.StatusPending || row.Record.ErrorID != "E-1" ||
		row.WebhookID != msgID(body("acme", "E-1")) || row.Source != syncerror.SourceWebhook || string(row.Record.Payload) != `{"shipcountry":"Deutschland"}` {
		t.Fatalf("row %+v", row)
	}
	if sent := f.queue.Sent(); len(sent) != 1 || sent[0] != (syncerror.Message{TenantID: "acme", ID: want.ID}) {
		t.Fatalf("sent %+v", sent)
	}
}

func TestIngestRedeliveryIsDuplicate(t *testing.T) {
	f := newFixture(t)
	for i, wantDup := range []bool{false, true, true} {
		rec := f.do(t, req{tenant: "acme", body: body("acme", "E-1")})
		var got intake.IngestResponse
		_ = json.Unmarshal(rec.Body.Bytes(), &got)
		if rec.Code != http.StatusAccepted || got.Duplicate != wantDup || got.Status != syncerror.StatusPending {
			t.Fatalf("delivery %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if f.claims.Len() != 1 || len(f.queue.Sent()) != 1 {
		t.Fatalf("%d rows, %d messages; want 1 and 1", f.claims.Len(), len(f.queue.Sent()))
	}
}

func TestIngestConcurrentDeliveriesClaimOnce(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	fresh := 0
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := f.do(t, req{tenant: "acme", body: body("acme", "E-race")})
			var got intake.IngestResponse
			_ = json.Unmarshal(rec.Body.Bytes(), &got)
			if rec.Code != http.StatusAccepted {
				t.Errorf("status %d", rec.Code)
			}
			if !got.Duplicate {
				mu.Lock()
				fresh++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if fresh != 1 || f.claims.Len() != 1 || len(f.queue.Sent()) != 1 {
		t.Fatalf("%d non-duplicate answers, %d rows, %d messages; want 1, 1, 1", fresh, f.claims.Len(), len(f.queue.Sent()))
	}
}

func TestIngestRejectsBadInput(t *testing.T) {
	good := body("acme", "E-1")
	huge := body("acme", "E-big")
	huge = append(huge[:len(huge)-1], []byte(`,"context":{"pad":"`+strings.Repeat("x", syncerror.MaxBodyBytes)+`"}}`)...)

	cases := []struct {
		name   string
		r      req
		status int
		code   string
		check  func(*testing.T, httpapi.Problem)
	}{
		{"no signature headers", req{tenant: "acme", body: good, noSig: true}, 401, "signature_missing", nil},
		{"wrong secret", req{tenant: "acme", body: good, secret: "whsec_d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA=="}, 401, "invalid_signature", nil},
		{"retired secret", req{tenant: "acme", body: good, secret: secretRetired}, 401, "invalid_signature", nil},
		{"tampered body", req{tenant: "acme", body: body("acme", "E-2"), signedBody: good}, 401, "invalid_signature", nil},
		{"stale timestamp", req{tenant: "acme", body: good, at: clock.Add(-5*time.Minute - time.Second)}, 401, "timestamp_out_of_tolerance", nil},
		{"future timestamp", req{tenant: "acme", body: good, at: clock.Add(5*time.Minute + time.Second)}, 401, "timestamp_out_of_tolerance", nil},
		{"timestamp not a number", req{tenant: "acme", body: good, timestamp: "2026-11-22T10:00:00Z"}, 401, "timestamp_out_of_tolerance", func(t *testing.T, p httpapi.Problem) {
			if !strings.Contains(p.Detail, "not a Unix timestamp in seconds") || strings.Contains(p.Detail, "minutes") {
				t.Fatalf("detail %q does not say what is wrong", p.Detail)
			}
		}},
		{"timestamp in milliseconds", req{tenant: "acme", body: good, timestamp: fmt.Sprint(clock.UnixMilli())}, 401, "timestamp_out_of_tolerance", func(t *testing.T, p httpapi.Problem) {
			if !strings.Contains(p.Detail, "more than 5 minutes") {
				t.Fatalf("detail %q", p.Detail)
			}
		}},
		{"tenant header missing", req{tenant: "-", body: good}, 400, "tenant_header_missing", nil},
		{"tenant header not matching body", req{tenant: "acme", body: body("other", "E-1")}, 400, "validation_failed", func(t *testing.T, p httpapi.Problem) {
			if len(p.Errors) != 1 || p.Errors[0].Field != "tenantId" {
				t.Fatalf("errors %+v", p.Errors)
			}
		}},
		{"unknown tenant", req{tenant: "ghost", body: body("ghost", "E-1")}, 401, "invalid_signature", nil},
		{"malformed tenant header", req{tenant: "../acme", body: body("../acme", "E-1")}, 401, "invalid_signature", nil},
		{"enabled flag off", req{tenant: "off-enabled", body: body("off-enabled", "E-1")}, 403, "feature_disabled", func(t *testing.T, p httpapi.Problem) {
			if !strings.Contains(p.Detail, tenant.KeyEnabled) {
				t.Fatalf("detail %q does not name the flag", p.Detail)
			}
		}},
		{"webhook flag off", req{tenant: "off-webhook", body: body("off-webhook", "E-1")}, 403, "feature_disabled", func(t *testing.T, p httpapi.Problem) {
			if !strings.Contains(p.Detail, tenant.KeyWebhookEnabled) {
				t.Fatalf("detail %q does not name the flag", p.Detail)
			}
		}},
		{"flag TRUE", req{tenant: "upper", body: body("upper", "E-1")}, 403, "feature_disabled", nil},
		{"flag yes", req{tenant: "yes", body: body("yes", "E-1")}, 403, "feature_disabled", nil},
		{"malformed json", req{tenant: "acme", body: []byte(`{"tenantId": "acme",`)}, 400, "malformed_json", nil},
		{"json array", req{tenant: "acme", body: []byte(`[1,2]`)}, 400, "malformed_json", nil},
		{"missing required fields", req{tenant: "acme", body: []byte(`{"tenantId":"acme","errorId":"E-1"}`)}, 400, "validation_failed", func(t *testing.T, p httpapi.Problem) {
			var fields []string
			for _, e := range p.Errors {
				fields = append(fields, e.Field)
			}
			want := "recordType,recordId,errorCode,message,occurredAt"
			if strings.Join(fields, ",") != want {
				t.Fatalf("fields %v, want %s", fields, want)
			}
		}},
		{"body over 256 KiB", req{tenant: "acme", body: huge}, 413, "payload_too_large", nil},
		{"wrong content type", req{tenant: "acme", body: good, contentType: "text/plain"}, 415, "unsupported_media_type", nil},
		{"form content type", req{tenant: "acme", body: good, contentType: "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", nil},
	}
	var unknownTenant, wrongSecret httpapi.Problem
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			rec := f.do(t, tc.r)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			p := decodeProblem(t, rec)
			if p.Code != tc.code || p.Status != tc.status || p.Type != httpapi.ProblemTypeBase+tc.code || p.Title == "" || p.Detail == "" {
				t.Fatalf("problem %+v, want code %s", p, tc.code)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
			if f.claims.Len() != 0 || len(f.queue.Sent()) != 0 {
				t.Fatalf("stored %d rows and sent %d messages on an error", f.claims.Len(), len(f.queue.Sent()))
			}
			switch tc.name {
			case "unknown tenant":
				unknownTenant = p
			case "wrong secret":
				wrongSecret = p
			}
		})
	}
	unknownTenant.CorrelationID, wrongSecret.CorrelationID = "", ""
	if fmt.Sprint(unknownTenant) != fmt.Sprint(wrongSecret) {
		t.Fatalf("unknown tenant answers differently from a wrong secret:\n%+v\n%+v", unknownTenant, wrongSecret)
	}
}

func TestIngestAcceptsEitherActiveSecretDuringRotation(t *testing.T) {
	f := newFixture(t)
	for i, s := range []string{secretCurrent, secretPrevious} {
		rec := f.do(t, req{tenant: "acme", secret: s, body: body("acme", fmt.Sprintf("E-%d", i))})
		if rec.Code != http.StatusAccepted {
			t.Fatalf("secret %d: status %d %s", i, rec.Code, rec.Body)
		}
	}
	if rec := f.do(t, req{tenant: "acme", secret: secretRetired, body: body("acme", "E-9")}); rec.Code != http.StatusUnauthorized {
		t.Fatalf("retired secret: status %d", rec.Code)
	}
}

func TestIngestAcceptsBoundaryTimestamps(t *testing.T) {
	f := newFixture(t)
	for i, at := range []time.Time{clock.Add(-5 * time.Minute), clock.Add(5 * time.Minute)} {
		if rec := f.do(t, req{tenant: "acme", at: at, body: body("acme", fmt.Sprintf("E-%d", i))}); rec.Code != http.StatusAccepted {
			t.Fatalf("timestamp %s: status %d %s", at, rec.Code, rec.Body)
		}
	}
}

func TestIngestQueueFailureStillAcceptsAndReconcileRequeues(t *testing.T) {
	f := newFixture(t)
	f.queue.SetFail(errors.New("sqs unavailable"))
	rec := f.do(t, req{tenant: "acme", body: body("acme", "E-lost")})
	if rec.Code != http.StatusAccepted {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	id := rowID("acme", "E-lost")
	row, err := f.claims.Get(context.Background(), "acme", id)
	if err != nil || row.Diagnosis != syncerror.DiagnosisQueued {
		t.Fatalf("row %+v err=%v, want diagnosis queued", row, err)
	}
	f.queue.SetFail(nil)
	rc := &intake.Reconcile{Tenants: f.tenants, Claims: f.claims, Queue: f.queue, Log: discardLogger(),
		Now: func() time.Time { return clock.Add(intake.DefaultStuckAfter + time.Second) }}
	rep, err := rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Requeued != 1 {
		t.Fatalf("report %+v, want 1 requeued", rep)
	}
	if sent := f.queue.Sent(); len(sent) != 1 || sent[0].ID != id {
		t.Fatalf("sent %+v", sent)
	}
}

func TestIngestStoreFailureIs503AndSendsNothing(t *testing.T) {
	f := newFixture(t)
	ing := &intake.Ingest{Auth: fixedAuth(f.tenants, func() time.Time { return clock }), Claims: failingClaims{f.claims}, Queue: f.queue,
		Now: func() time.Time { return clock }}
	f.handler = httpapi.Instrument(discardLogger(), ing)
	rec := f.do(t, req{tenant: "acme", body: body("acme", "E-1")})
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if p := decodeProblem(t, rec); p.Code != "temporarily_unavailable" || strings.Contains(p.Detail, "boom") {
		t.Fatalf("problem %+v", p)
	}
	if len(f.queue.Sent()) != 0 {
		t.Fatal("sent a message without a claim")
	}
}

type failingClaims struct{ syncerror.ClaimStore }

func (failingClaims) Fold(context.Context, syncerror.Claim, string) (syncerror.FoldResult, syncerror.Claim, error) {
	return 0, syncerror.Claim{}, errors.New("boom: internal dynamo detail")
}

// A webhook-id is one message's (Standard Webhooks): sent again for the same sync error,
// its body the same or edited (the host ERP's script re-sends a saved record under its
// id), it is the redelivery it was (202 duplicate); for another sync error it is refused
// as the other signed routes refuse an id used for another message, 409
// request_replayed, and nothing is stored or enqueued.
func TestIngestRefusesAReusedWebhookIDWithAnotherBody(t *testing.T) {
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			f := foldFixture(t, newStore(t))
			first := body("acme", "E-1")
			if rec := f.do(t, req{tenant: "acme", body: first, id: "msg_once"}); rec.Code != http.StatusAccepted {
				t.Fatalf("first: %d %s", rec.Code, rec.Body)
			}
			rec := f.do(t, req{tenant: "acme", body: first, id: "msg_once"})
			var got intake.IngestResponse
			if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &got) != nil || !got.Duplicate {
				t.Fatalf("same id, same body: %d %s, want 202 duplicate", rec.Code, rec.Body)
			}
			rec = f.do(t, req{tenant: "acme", body: changed(first), id: "msg_once"})
			if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &got) != nil || !got.Duplicate {
				t.Fatalf("same id, the same error edited: %d %s, want 202 duplicate", rec.Code, rec.Body)
			}
			for _, other := range [][]byte{body("acme", "E-2"), recurring("E-3", 3)} {
				rec := f.do(t, req{tenant: "acme", body: other, id: "msg_once"})
				if p := decodeProblem(t, rec); rec.Code != http.StatusConflict || p.Code != "request_replayed" {
					t.Fatalf("same id, another error: %d %s, want 409 request_replayed", rec.Code, rec.Body)
				}
			}
			if n := len(f.queue.Sent()); n != 1 {
				t.Fatalf("%d diagnoses enqueued, want the first post's only", n)
			}
			// The refused body was not stored: sent with an id of its own, it is new.
			rec = f.do(t, req{tenant: "acme", body: body("acme", "E-2"), id: "msg_twice"})
			if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &got) != nil || got.Duplicate {
				t.Fatalf("E-2 under its own id: %d %s", rec.Code, rec.Body)
			}
		})
	}
}

// changed is b edited: the same errorId, another message (so another body and signature).
func changed(b []byte) []byte {
	return bytes.Replace(b, []byte("Invalid value for field shipcountry"), []byte("Invalid value for field shipcountry (edited)"), 1)
}
