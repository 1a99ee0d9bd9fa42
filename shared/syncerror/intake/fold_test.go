package intake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo/dynamotest"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// recurring is the same error on the same record, reported under errorID; only numbers in
// the message differ (a line number, an internal id), which the signature normalises.
func recurring(errorID string, n int) []byte {
	b, _ := json.Marshal(map[string]any{
		"tenantId": "acme", "errorId": errorID, "recordType": "salesOrder", "recordId": "SO-10042",
		"errorCode": "INVALID_FIELD_VALUE", "externalSystem": "shopify", "direction": "inbound",
		"message":    fmt.Sprintf("Invalid value for field shipcountry on line %d (request 7f3a9c21b4e8%04d)", n, n),
		"occurredAt": "2026-11-22T09:59:00Z", "payload": map[string]any{"shipcountry": "Deutschland"},
	})
	return b
}

func foldStores() map[string]func(t *testing.T) syncerror.ClaimStore {
	return map[string]func(t *testing.T) syncerror.ClaimStore{
		"memory":   func(*testing.T) syncerror.ClaimStore { return syncerrortest.NewClaimStore() },
		"dynalite": func(t *testing.T) syncerror.ClaimStore { return dynamotest.Claims(t, emutest.Pair) },
		"moto":     func(t *testing.T) syncerror.ClaimStore { return dynamotest.Claims(t, emutest.Moto) },
	}
}

func foldFixture(t *testing.T, claims syncerror.ClaimStore) *fixture {
	f := newFixture(t)
	f.handler = httpapi.Instrument(discardLogger(), &intake.Ingest{Auth: fixedAuth(f.tenants, clockFunc), Claims: claims,
		Queue: f.queue, Now: clockFunc})
	return f
}

func post(t *testing.T, f *fixture, b []byte) intake.IngestResponse {
	rec := f.do(t, req{tenant: "acme", body: b})
	var got intake.IngestResponse
	if rec.Code != http.StatusAccepted || json.Unmarshal(rec.Body.Bytes(), &got) != nil {
		t.Errorf("status %d: %s", rec.Code, rec.Body)
	}
	return got
}

// Ten posts with distinct errorIds and one signature give one open row with ten
// occurrences and one diagnosis; a redelivery is a duplicate; once the row is closed the
// signature opens a new row flagged as a recurrence, and a late redelivery of an errorId
// of the closed row is still a duplicate of it.
func TestIngestFoldsRecurringErrors(t *testing.T) {
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			claims := newStore(t)
			f := foldFixture(t, claims)
			var first string
			for i := range 10 {
				got := post(t, f, recurring(fmt.Sprintf("F-%d", i), i))
				if i == 0 {
					first = got.ID
				}
				if got.ID != first || got.Duplicate || got.Status != syncerror.StatusPending {
					t.Fatalf("post %d: %+v, want an occurrence of %s", i, got, first)
				}
			}
			row, err := claims.Get(ctx, "acme", first)
			if err != nil || row.Retry.Occurrences != 10 || row.Record.ErrorID != "F-0" || len(f.queue.Sent()) != 1 {
				t.Fatalf("row %+v err=%v, %d diagnoses", row.Retry, err, len(f.queue.Sent()))
			}
			if got := post(t, f, recurring("F-3", 3)); !got.Duplicate || got.ID != first {
				t.Fatalf("redelivery %+v", got)
			}
			if row, _ := claims.Get(ctx, "acme", first); row.Retry.Occurrences != 10 {
				t.Fatalf("a redelivery counted: %d", row.Retry.Occurrences)
			}
			closeRow(t, claims, first)

			again := post(t, f, recurring("F-10", 10))
			if again.ID == first || again.Duplicate {
				t.Fatalf("recurrence after close %+v", again)
			}
			rec, err := claims.Get(ctx, "acme", again.ID)
			if err != nil || rec.Retry.RecurrenceOf != first || rec.Retry.Occurrences != 1 || len(f.queue.Sent()) != 2 {
				t.Fatalf("recurrence row %+v err=%v", rec.Retry, err)
			}
			if late := post(t, f, recurring("F-4", 4)); !late.Duplicate || late.ID != first {
				t.Fatalf("late redelivery of a closed row's error %+v", late)
			}
			if got := post(t, f, recurring("F-11", 11)); got.ID != again.ID || got.Duplicate {
				t.Fatalf("fold into the recurrence %+v", got)
			}
			// The host edited an error it had posted: another message, the same errorId.
			edited := []byte(strings.Replace(string(recurring("F-11", 11)), "Invalid value", "Edited: invalid value", 1))
			if got := post(t, f, edited); got.ID != again.ID || !got.Duplicate {
				t.Fatalf("an edited redelivery %+v", got)
			}
		})
	}
}

// Concurrent posts lose no occurrence and open one row.
func TestIngestFoldsConcurrentPosts(t *testing.T) {
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			claims := newStore(t)
			f := foldFixture(t, claims)
			const n = 10
			ids := make([]string, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ids[i] = post(t, f, recurring(fmt.Sprintf("C-%d", i), i)).ID
				}()
			}
			wg.Wait()
			for _, id := range ids {
				if id != ids[0] {
					t.Fatalf("posts answered different rows: %v", ids)
				}
			}
			row, err := claims.Get(context.Background(), "acme", ids[0])
			if err != nil || row.Retry.Occurrences != n || len(row.Retry.ErrorKeys) != n || len(f.queue.Sent()) != 1 {
				t.Fatalf("row %+v err=%v, %d diagnoses", row.Retry, err, len(f.queue.Sent()))
			}
		})
	}
}

// closeRow resolves a row as an operator would.
func closeRow(t *testing.T, claims syncerror.ClaimStore, id string) {
	t.Helper()
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: claims, Now: clockFunc}}}}
	r := operatorRequest(t, id, `{"reason":"fixed_at_source","note":"corrected in Shopify"}`)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{"operator"}}))
	w := recorder()
	op.ResolveHandler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("resolve %d %s", w.Code, w.Body)
	}
}
