package flow_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// lateCRM is the CRM of a matchEnv whose next create is taken and not answered, and
// applied only when commit is called: a vendor still processing a request after the
// caller gave up on it (Salesforce's timeout for an API call is 10 minutes).
type lateCRM struct {
	e     *matchEnv
	mu    sync.Mutex
	late  int
	held  []*http.Request
	posts int
}

func (l *lateCRM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	if r.Method == http.MethodPost {
		l.posts++
	}
	hold := r.Method == http.MethodPost && l.late > 0
	if hold {
		l.late--
		body, _ := io.ReadAll(r.Body)
		h := r.Clone(context.Background())
		h.Body = io.NopCloser(bytes.NewReader(body))
		l.held = append(l.held, h)
	}
	l.mu.Unlock()
	if hold {
		panic(http.ErrAbortHandler)
	}
	l.e.crm.ServeHTTP(w, r)
}

// commit applies the creates taken and not answered.
func (l *lateCRM) commit() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.held {
		l.e.crm.ServeHTTP(httptest.NewRecorder(), r)
	}
	l.held = nil
}

func (l *lateCRM) postCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.posts
}

// TestLostCreateIsWaitedForUntilItCanNoLongerLand: a create whose answer was lost may
// still be applied by the vendor until its own timeout. A lookup in that time that finds
// nothing waits (no second POST); the record landing meanwhile is linked as created; once
// it can no longer land, nothing found means nothing was made, and it is created.
func TestLostCreateIsWaitedForUntilItCanNoLongerLand(t *testing.T) {
	for name, lands := range map[string]bool{"lands late": true, "never lands": false} {
		t.Run(name, func(t *testing.T) {
			e := newMatchEnv(t, matches["lookup"])
			crm := &lateCRM{e: e, late: 1}
			e.serveCRM(crm)
			e.x.Backoff = []time.Duration{time.Minute, time.Minute, time.Minute}
			r := e.change("C-9201", "+1")
			if r = e.run(r.ID); r.Outcome != flow.OutcomeRetrying || crm.postCount() != 1 {
				t.Fatalf("first attempt %+v, %d POSTs; want retrying after one", r, crm.postCount())
			}
			e.advance(2 * time.Minute) // past the backoff, within the CRM's 10 minutes
			if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
				t.Fatal(err)
			}
			r = e.run(r.ID)
			window := r.CreatedAt.Add(connector.LateCommit(connector.SystemCRM))
			if r.Outcome != flow.OutcomeRetrying || crm.postCount() != 1 || r.NextAttemptAt == nil || r.NextAttemptAt.Before(window) {
				t.Fatalf("attempt within the vendor's timeout %+v, %d POSTs; want it waiting until %s, one POST", r, crm.postCount(), window)
			}
			if lands {
				crm.commit()
			}
			e.redriveAll()
			r = e.run(r.ID)
			if accounts := e.accounts("C-9201"); r.Outcome != flow.OutcomeWritten || len(accounts) != 1 {
				t.Fatalf("run %+v; accounts %v; want written and one account", r, accounts)
			}
			want := 1
			if !lands {
				want = 2 // the vendor failed the first: created once, now
			}
			if crm.postCount() != want || r.TargetAction != flow.ActionCreated {
				t.Fatalf("%d POSTs, action %q; want %d and created", crm.postCount(), r.TargetAction, want)
			}
		})
	}
}

func (e *matchEnv) serveCRM(h http.Handler) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.crmServe = h
}

func (e *matchEnv) advance(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.now = e.now.Add(d)
}
