package connector_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// A write whose own request was answered 2xx has landed; when the read of the record after
// it fails (here a 429: NetSuite's concurrency limit, Salesforce's or ShipStation's rate
// limit), the write's error must not be that read's, which callers take for nothing
// written: it is a lost answer (ErrUnavailable, MayHaveApplied), the read's failure kept
// in Later, and the caller settles it by reading again. It used to be the read's 429.
func TestAWriteWhoseReadBackFailsIsNotReportedUnwritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sys        connector.System
		entity, id string
		fields     map[string]any
	}{
		{connector.SystemHostERP, "customer", "C-1", map[string]any{"credit": 2}},
		{connector.SystemCRM, "Account", "001000000000001AAA", map[string]any{"Name": "Nordwind"}},
		{connector.SystemShipping, "products", "7001", map[string]any{"name": "Tea Mug"}},
	} {
		t.Run(string(tc.sys), func(t *testing.T) {
			t.Parallel()
			// Reads pass until a write went through; every read after it is refused 429.
			var mu sync.Mutex
			wrote := false
			limitAfterWrite := func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					limited := wrote && r.Method == http.MethodGet
					wrote = wrote || r.Method != http.MethodGet
					mu.Unlock()
					if limited {
						w.WriteHeader(http.StatusTooManyRequests)
						return
					}
					h.ServeHTTP(w, r)
				})
			}
			fake, c := startFakeBehind(t, tc.sys, limitAfterWrite, nil)
			fake.Seed(tc.entity, tc.id, map[string]any{"seeded": true})
			_, err := c.Write(context.Background(), connector.WriteRequest{Entity: tc.entity, RecordID: tc.id,
				Fields: tc.fields, IdempotencyKey: "k-read-back", Origin: "syncassist"})
			t.Logf("%v", err)
			if fake.WriteCount() != 1 {
				t.Fatalf("%d writes applied, want 1", fake.WriteCount())
			}
			ce := asError(t, err, connector.ErrUnavailable)
			switch {
			case !connector.MayHaveApplied(err) || connector.Answered(err):
				t.Fatalf("%v: MayHaveApplied %v, Answered %v; want a lost answer (true, false)", err, connector.MayHaveApplied(err), connector.Answered(err))
			case !connector.WriteSent(err):
				// A governance release takes an unsent write for nothing written (pending, deniable).
				t.Fatalf("%v: WriteSent false; the write's own request went out and was answered 2xx", err)
			case errors.Is(err, connector.ErrRateLimited):
				t.Fatalf("%v: errors.Is finds ErrRateLimited, which callers take for nothing written", err)
			case !errors.Is(ce.Later, connector.ErrRateLimited):
				t.Fatalf("%v: Later = %v, want the read's 429 kept", err, ce.Later)
			}
		})
	}
}
