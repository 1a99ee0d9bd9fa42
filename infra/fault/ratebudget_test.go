package fault

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ratebudget"
)

// The rate-budget scenario alone, for a quick run while working on the budget: the
// short suite runs it with the others, and where it ran in this process its row is the one
// judged here (the same scenario, the same sizes).
func TestRateBudgetScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the emulators; -short skips it")
	}
	var row Row
	if full := os.Getenv("FAULT_FULL") != ""; suiteRateBudget != nil && !full {
		row = *suiteRateBudget
	} else {
		h, err := StartHarness(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		cfg := Short()
		if full {
			cfg = Full() // the budget in dynalite
		}
		row = runRateBudget(context.Background(), h, cfg)
	}
	t.Logf("%s: ops %d, lost %d, doubled %d, retried %d; %s", "rate-budget", row.Ops, row.Lost, row.Doubled, row.Retried, row.Note)
	if !row.Pass() {
		t.Fatalf("lost %d, doubled %d, error %v", row.Lost, row.Doubled, row.Err)
	}
}

// The Salesforce gate counts its scaled allowance, answers Sforce-Limit-Info and 403 once
// spent, and counts as sent while spent a request at a later instant than the spending
// answer, never one of the burst that spent it, nor one after the day resets.
func TestRateBudgetSalesforceGate(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	day := &sforceDay{next: ok, clock: clock, store: ratebudget.NewMemoryStore(), limit: 2, length: 10 * time.Minute,
		start: clock.Now(), spent: map[time.Time]bool{}}
	send := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		day.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		return rec
	}
	for i, want := range []int{http.StatusNoContent, http.StatusNoContent, http.StatusForbidden} {
		if rec := send(); rec.Code != want {
			t.Fatalf("request %d of the burst: %d, want %d", i+1, rec.Code, want)
		}
	}
	if got := day.sentWhileSpent(); got != 0 {
		t.Fatalf("the burst that spent the allowance counted %d sent while spent", got)
	}
	clock.Set(clock.Now().Add(time.Minute))
	if rec := send(); rec.Code != http.StatusForbidden || rec.Header().Get("Sforce-Limit-Info") != "api-usage=2/2" {
		t.Fatalf("a minute later: %d %q", rec.Code, rec.Header().Get("Sforce-Limit-Info"))
	}
	clock.Set(clock.Now().Add(10 * time.Minute))
	if rec := send(); rec.Code != http.StatusNoContent || rec.Header().Get("Sforce-Limit-Info") != "api-usage=1/2" {
		t.Fatalf("the next day: %d %q", rec.Code, rec.Header().Get("Sforce-Limit-Info"))
	}
	if got := day.sentWhileSpent(); got != 1 || day.days != 1 || day.refused != 2 {
		t.Fatalf("sent while spent %d (want 1), days %d (want 1), refused %d (want 2)", got, day.days, day.refused)
	}
}
