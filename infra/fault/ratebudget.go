package fault

// "rate-budget" (issue 34 §4): 200 writes at once to one account of each vendor
// (budgetVendors in ratebudget_vendors.go: ShipStation, NetSuite, Business Central,
// Mailchimp, Salesforce), each write its own connector client and its own ratebudget.Budget
// (as sixty Lambdas would have), all sharing the DynamoDB budget on dynalite. The fake
// ShipStation enforces 40 requests a minute in fixed windows with X-Rate-Limit-* headers,
// as ShipStation documents; a gate in front of the fake NetSuite counts the requests in
// flight, as it does for Business Central and Mailchimp; Salesforce's gate keeps a scaled
// daily allowance (ratebudget_vendors.go). Decisions:
//
//   - Time is a fake clock the budget and the fake ShipStation share, so ten minutes of
//     ShipStation windows run in seconds, at the documented 60 s, unscaled. The clock
//     starts 17 s into a minute, so the fake's windows are out of phase with the budget's
//     (which start on the minute) and the budget must follow the vendor's reset headers.
//   - A write the budget refuses is deferred as its scheduler would defer it (the flow
//     run's NextAttemptAt, the retry schedule): it is tried again when the clock reaches
//     its RetryAfter. The writes due at one instant all run at once (real goroutines, real
//     HTTP, real DynamoDB); then the clock moves to the next instant a write is due.
//   - NetSuite holds each answer 5 ms (real time) so that writes overlap; the lease bounds
//     the account's writes in flight to 5, Oracle's floor for an account.
//   - Each write goes through its own governance guard (as each Lambda has one), the only
//     way to write through a connector; the guard's stores are in memory, the budget's not.
//   - lost: a write that ended in a refusal other than a deferral, or a record that does
//     not hold its write's value at the end; doubled: a record the fake applied more than
//     one write to.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/ratebudget"
)

// budgetWrites is how many writes each account takes at once (the 200).
const budgetWrites = 200

// fakeClock is the scenario's time, moved only by the scheduler.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// budgetFigures are one account's figures.
type budgetFigures struct {
	written, deferrals, retried, lost, doubled int
	limited                                    int           // vendor 429 answers
	peakMinute, peakInFlight                   int           // most requests in any 60 s; most in flight
	span                                       time.Duration // fake time from first to last write
	sforce                                     *sforceDay    // Salesforce's allowance, nil for the others
}

// budgetGate counts what reaches a fake: each request's fake time, its status, and how
// many are in flight.
type budgetGate struct {
	next     http.Handler
	clock    *fakeClock
	mu       sync.Mutex
	at       []time.Time
	limited  int
	inFlight atomic.Int64
	peak     atomic.Int64
}

func (g *budgetGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := g.inFlight.Add(1)
	defer g.inFlight.Add(-1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	g.next.ServeHTTP(rec, r)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.at = append(g.at, g.clock.Now())
	if rec.status == http.StatusTooManyRequests {
		g.limited++
	}
}

// peakMinute is the most requests sent in any 60 s of fake time.
func (g *budgetGate) peakMinute() int {
	g.mu.Lock()
	at := slices.Clone(g.at)
	g.mu.Unlock()
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	peak, lo := 0, 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= time.Minute {
			lo++
		}
		peak = max(peak, hi-lo+1)
	}
	return peak
}

// budgetTenant is the tenant whose accounts the scenario writes to.
const budgetTenant = "t-budget"

// runRateBudget is the scenario, at the sizes in both runs. The full run keeps the
// budget in DynamoDB (dynalite); the short one, which `go test` runs, in the memory store,
// which keeps the same contract (ratebudgettest, which also races takes on dynalite and
// moto): on dynalite the ~6,000 conditional updates take half a minute here.
func runRateBudget(ctx context.Context, h *Harness, cfg Config) (row Row) {
	var store ratebudget.Store = ratebudget.NewMemoryStore()
	where := "the memory store"
	if cfg.Posts >= Full().Posts {
		db := dynamodb.NewFromConfig(h.AWS)
		stage := stageName("ratebudget")
		if err := dynamostore.CreateTables(ctx, db, stage); err != nil {
			row.failf("tables: %v", err)
			return row
		}
		store, where = ratebudget.NewDynamoStore(db, blueprint.PhysicalName(stage, blueprint.TableGovernance)), "DynamoDB (dynalite)"
	}
	start := time.Now()
	notes := []string{"Budget in " + where + "."}
	for _, v := range budgetVendors {
		began := time.Now()
		fig, err := budgetAccount(ctx, store, v)
		if err != nil {
			row.failf("%s: %v", v.name, err)
			return row
		}
		row.Ops += fig.written
		row.Lost, row.Doubled, row.Retried = row.Lost+fig.lost, row.Doubled+fig.doubled, row.Retried+fig.retried
		notes = append(notes, v.name+": "+fig.note(v, time.Since(began)))
		if msg := fig.breach(v); msg != "" && row.Err == nil {
			row.failf("%s %s", v.name, msg)
		}
	}
	row.Rate = float64(row.Ops) / time.Since(start).Seconds()
	row.Note = strings.Join(notes, " ")
	return row
}

// note is one vendor's figures for the row's Note.
func (f budgetFigures) note(v budgetVendor, took time.Duration) string {
	s := fmt.Sprintf("%d writes (%d lost, %d doubled) in %s of fake time", f.written, f.lost, f.doubled, f.span.Round(time.Second))
	switch {
	case v.sys == connector.SystemShipping:
		s += fmt.Sprintf(", at most %d requests in any minute (limit 40), %d answered 429", f.peakMinute, f.limited)
	case v.concurrent > 0:
		s += fmt.Sprintf(", at most %d in flight (limit %d)", f.peakInFlight, v.concurrent)
	case f.sforce != nil:
		s += fmt.Sprintf(", allowance %d a scaled day spent on %d days, %d requests answered 403 REQUEST_LIMIT_EXCEEDED, "+
			"%d sent while the budget said spent", sforceAllowance, f.sforce.days, f.sforce.refused, f.sforce.sentWhileSpent())
	}
	return s + fmt.Sprintf(", %d deferrals (%s real).", f.deferrals, took.Round(100*time.Millisecond))
}

// breach says which of the vendor's limits the run broke; "" when none.
func (f budgetFigures) breach(v budgetVendor) string {
	switch {
	case v.sys == connector.SystemShipping && f.peakMinute > 40:
		return fmt.Sprintf("received %d requests in one minute, over its 40", f.peakMinute)
	case f.limited > 0:
		return fmt.Sprintf("refused %d requests with 429", f.limited)
	case v.concurrent > 0 && f.peakInFlight > v.concurrent:
		return fmt.Sprintf("had %d requests in flight, over its %d", f.peakInFlight, v.concurrent)
	case f.sforce != nil && f.sforce.sentWhileSpent() > 0:
		return fmt.Sprintf("received %d requests while the budget said its allowance was spent", f.sforce.sentWhileSpent())
	case f.sforce != nil && f.sforce.days == 0:
		return "never spent its allowance: the hold went untested"
	case f.written != budgetWrites || f.lost > 0 || f.doubled > 0:
		return fmt.Sprintf("wrote %d of %d, %d lost, %d doubled", f.written, budgetWrites, f.lost, f.doubled)
	}
	return ""
}

// vendorRetry is when a write the vendor refused as over its limit without saying until
// when (Salesforce's REQUEST_LIMIT_EXCEEDED) is tried again, as the sync error's retry
// schedule would (an assumption of the scenario: a minute); by then the budget's hold,
// set from the refusal's Sforce-Limit-Info, answers for it.
const vendorRetry = time.Minute

// budgetAccount sends budgetWrites writes at once to one account of v and defers each
// refused one until its RetryAfter.
func budgetAccount(ctx context.Context, store ratebudget.Store, v budgetVendor) (budgetFigures, error) {
	var fig budgetFigures
	clock := &fakeClock{t: time.Date(2026, 11, 29, 10, 0, 17, 0, time.UTC)}
	fake := fakesystem.New(v.sys)
	fake.SetClock(clock.Now)
	handler, day := v.setup(fake, clock, store)
	fig.sforce = day
	gate := &budgetGate{next: handler, clock: clock}
	srv := httptest.NewServer(gate)
	defer srv.Close()
	ids := make([]string, budgetWrites)
	guards := make([]*governance.Guard, budgetWrites)
	scanner := dlp.NewScanner()
	for i := range ids {
		ids[i] = v.id(i)
		fake.Seed(v.entity, ids[i], v.seed(ids[i]))
		c, err := connector.New(connector.Config{System: v.sys, BaseURL: srv.URL + fakesystem.BasePath(v.sys), TenantID: budgetTenant,
			AllowLoopback: true, Budget: ratebudget.New(store, clock.Now)})
		if err != nil {
			return fig, err
		}
		defer c.CloseIdleConnections()
		if guards[i], err = budgetGuard(c, scanner, clock.Now); err != nil {
			return fig, err
		}
	}
	due := map[int]time.Time{}
	for i := range ids {
		due[i] = clock.Now()
	}
	first := clock.Now()
	for round := 0; len(due) > 0; round++ {
		if round > 2000 {
			return fig, errors.New("the writes did not finish in 2000 rounds")
		}
		now := clock.Now()
		var (
			wg sync.WaitGroup
			mu sync.Mutex
		)
		var ready []int // taken before any write starts: the writes change due
		for i, at := range due {
			if !at.After(now) {
				ready = append(ready, i)
			}
		}
		for _, i := range ready {
			wg.Go(func() {
				_, err := guards[i].Write(ctx, identity.ForTenant(budgetTenant, "fault:rate-budget"), governance.WriteRequest{
					Target: v.sys, Source: v.sys, Entity: v.entity, RecordID: ids[i], Fields: map[string]any{v.field: "budget-" + ids[i]},
					IdempotencyKey: "budget-" + ids[i], Reason: "fault.rate_budget"})
				mu.Lock()
				defer mu.Unlock()
				var ce *connector.Error
				switch wait := delivery.Deferred(err); {
				case err == nil:
					fig.written++
					fig.span = clock.Now().Sub(first)
					delete(due, i)
				case wait > 0:
					fig.deferrals++
					due[i] = now.Add(wait)
				case errors.As(err, &ce) && ce.Retryable:
					fig.retried++
					due[i] = now.Add(time.Second)
				case errors.Is(err, connector.ErrRateLimited):
					fig.retried++
					due[i] = now.Add(vendorRetry)
				default:
					fig.lost++
					delete(due, i)
				}
			})
		}
		wg.Wait()
		next := time.Time{}
		for _, at := range due {
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
		if next.After(now) {
			clock.Set(next)
		}
	}
	perRecord := map[string]int{}
	for _, w := range fake.Writes() {
		perRecord[w.ID]++
	}
	for _, id := range ids {
		rec, ok := fake.Get(v.entity, id)
		if !ok || rec.Fields[v.field] != "budget-"+id {
			fig.lost++
		}
		if perRecord[id] > 1 {
			fig.doubled++
		}
	}
	fig.limited, fig.peakMinute, fig.peakInFlight = gate.limited, gate.peakMinute(), int(gate.peak.Load())
	return fig, nil
}

// oneWriter gives a guard the one client of its write.
type oneWriter struct{ c *connector.Client }

func (w oneWriter) Client(context.Context, string, connector.System) (governance.Writer, error) {
	return w.c, nil
}

// budgetGuard is one Lambda's guard over its own client.
func budgetGuard(c *connector.Client, scanner *dlp.Scanner, now func() time.Time) (*governance.Guard, error) {
	return governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    &governancetest.Ledger{}, Records: &governancetest.Store{}, Connectors: oneWriter{c}, Scanner: scanner,
		Audit: &audit.Log{Store: &audittest.Store{}, Redactor: platform.RecordRedactor{Scanner: scanner}, Now: now},
		Now:   now, Metrics: io.Discard,
	})
}
