package wire

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// lateCommitGateway answers the first write request 504 and keeps it, for the test to
// pass on to the system later (commit), as an ERP that goes on with a request its gateway
// gave up on; every later write is refused 429 (NetSuite's concurrency limit while the
// first still runs). Reads pass.
type lateCommitGateway struct {
	mu     sync.Mutex
	writes int
	held   func()
}

func (g *lateCommitGateway) front(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.writes++; g.writes > 1 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		body, _ := io.ReadAll(r.Body)
		late := r.Clone(context.Background())
		g.held = func() {
			late.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(httptest.NewRecorder(), late)
		}
		w.WriteHeader(http.StatusGatewayTimeout)
	})
}

func (g *lateCommitGateway) commit(t *testing.T) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		t.Fatal("no write request reached the gateway")
	}
	g.held()
}

// A write-back whose first request went unanswered (504) and whose second was refused 429
// is a lost answer, not a failure: the first request may still commit, so the approve
// leaves the row applying (202) after reading the record back, and the reconcile settles
// it once the ERP holds the fix. The approve used to take the 429 for the write's answer,
// return the row to pending with 502, and leave the fix committed behind it.
func TestAnUnansweredWriteThenRateLimitedIsALostAnswer(t *testing.T) {
	gw := &lateCommitGateway{}
	f := newHostFixtureBehind(t, gw.front)
	c := f.readyWith(t, "E-busy", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	reader := f.op.Assist.Reader
	f.op.Fields, f.op.Assist = nil, nil

	r := httptest.NewRequest(http.MethodPost, "/p/"+c.ID+"/approve", nil)
	r.SetPathValue("id", c.ID)
	ctx := identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"approver"}})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	w := httptest.NewRecorder()
	f.op.ApproveHandler().ServeHTTP(w, r.WithContext(ctx))
	if row := f.row(t, c.ID); w.Code != http.StatusAccepted || row.Status != syncerror.StatusApplying {
		t.Fatalf("the first write may still commit, yet approve answered %d %s and the row is %s", w.Code, w.Body, row.Status)
	}

	gw.commit(t)
	f.rc.Writes = ledgerWrites{ledger: f.ledger, records: reader}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	if _, err := f.rc.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if row := f.row(t, c.ID); row.Status != syncerror.StatusApproved || f.held(t)["shipzip"] != "01067" {
		t.Fatalf("the record holds %v, the row is %s; want the fix settled as written", f.held(t), row.Status)
	}
}
