package intake_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/webhook"
)

// BenchmarkIngest measures the handler in-process with in-memory stores: signature check,
// validation, the at-rest DLP policy, claim and enqueue, without the network or the
// emulators.
func BenchmarkIngest(b *testing.B) {
	f := newFixture(b)
	ing := &intake.Ingest{Auth: fixedAuth(f.tenants, func() time.Time { return clock }), Claims: f.claims, Queue: f.queue,
		Mask: &syncerror.Masker{Scanner: dlp.NewScanner()}, Now: func() time.Time { return clock }}
	key, _ := webhook.ParseSecret(secretCurrent)
	bodies := make([][]byte, 1024)
	headers := make([]webhook.Headers, len(bodies))
	for i := range bodies {
		bodies[i] = body("acme", fmt.Sprintf("E-%d", i))
		headers[i] = webhook.Sign(key, fmt.Sprintf("msg_bench_%d", i), clock, bodies[i]) // one message, one id
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := i % len(bodies)
		if j == 0 && i > 0 {
			// Fresh stores, so every request is a first delivery, not a duplicate.
			b.StopTimer()
			ing.Claims, ing.Queue = syncerrortest.NewClaimStore(), &syncerrortest.Queue{}
			b.StartTimer()
		}
		r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/ingest", bytes.NewReader(bodies[j]))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(intake.HeaderTenantID, "acme")
		headers[j].Set(r.Header)
		w := httptest.NewRecorder()
		ing.ServeHTTP(w, r)
		if w.Code != http.StatusAccepted {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
