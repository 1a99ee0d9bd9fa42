package intake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
)

// The host ERP's script and this service derive the same webhook-id from tenant and
// errorId. The JavaScript side pins the same value (netsuite/test/ingest.test.js), so a
// change to either derivation fails one of the two.
func TestHostMessageIDIsTheScriptsDerivation(t *testing.T) {
	if got, want := syncerror.HostMessageID("demo", "NS-ERR-1001"), "msg_de737aff22fe8192c9d61050243aed8b"; got != want {
		t.Fatalf("HostMessageID = %s, want %s", got, want)
	}
}

// webhookIDCount counts the webhook-id records a store is asked to make.
type webhookIDCount struct {
	syncerror.ClaimStore
	n atomic.Int32
}

func (s *webhookIDCount) RecordWebhookID(ctx context.Context, tenantID string, d syncerror.Arrival, now time.Time) (string, bool, error) {
	s.n.Add(1)
	return s.ClaimStore.RecordWebhookID(ctx, tenantID, d, now)
}

// Under the id the host ERP's script derives from the errorId, the webhook records no
// webhook-id (one conditional write fewer): the id names its sync error by construction,
// so a redelivery, edited or not, is the duplicate the errorId's record says it is. The
// same id sent with another errorId is not that error's derived id, so it is recorded and
// checked like any other sender's.
func TestIngestRecordsNoWebhookIDForTheHostsDerivedID(t *testing.T) {
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			claims := &webhookIDCount{ClaimStore: newStore(t)}
			f := foldFixture(t, claims)
			first, id := body("acme", "E-1"), syncerror.HostMessageID("acme", "E-1")
			answer := func(b []byte, id string) (int, intake.IngestResponse) {
				rec := f.do(t, req{tenant: "acme", body: b, id: id})
				var got intake.IngestResponse
				_ = json.Unmarshal(rec.Body.Bytes(), &got)
				return rec.Code, got
			}
			if code, got := answer(first, id); code != http.StatusAccepted || got.Duplicate {
				t.Fatalf("first: %d %+v", code, got)
			}
			if code, got := answer(changed(first), id); code != http.StatusAccepted || !got.Duplicate {
				t.Fatalf("the same error edited, under its id: %d %+v, want 202 duplicate", code, got)
			}
			if n := claims.n.Load(); n != 0 {
				t.Fatalf("%d webhook-id records for the host's derived id, want none", n)
			}
			if code, got := answer(body("acme", "E-2"), id); code != http.StatusAccepted || got.Duplicate || claims.n.Load() != 1 {
				t.Fatalf("E-1's id with E-2: %d %+v after %d records, want 202 new, recorded once", code, got, claims.n.Load())
			}
			if code, _ := answer(body("acme", "E-3"), id); code != http.StatusConflict {
				t.Fatalf("E-1's id, recorded for E-2, with E-3: %d, want 409", code)
			}
			if n := len(f.queue.Sent()); n != 2 {
				t.Fatalf("%d diagnoses enqueued, want E-1's and E-2's", n)
			}
		})
	}
}
