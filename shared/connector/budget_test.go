package connector_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// stubBudget records what the client asks of the budget.
type stubBudget struct {
	mu       sync.Mutex
	wait     time.Duration
	err      error
	takes    []int
	released int
	observed []http.Header
}

func (b *stubBudget) Take(_ context.Context, tenant string, sys connector.System, calls int) (func(), time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.takes = append(b.takes, calls)
	if b.err != nil || b.wait > 0 {
		return nil, b.wait, b.err
	}
	return func() { b.mu.Lock(); b.released++; b.mu.Unlock() }, 0, nil
}

func (b *stubBudget) Observe(_ context.Context, _ string, _ connector.System, _ int, h http.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.observed = append(b.observed, h)
}

func shipstationOrder() connector.WriteRequest {
	return connector.WriteRequest{Entity: "products", RecordID: "7001", Fields: map[string]any{"price": 11.0},
		IdempotencyKey: "k-1", Origin: "syncassist"}
}

// A write that finds no budget is handed back at once, retryable with the budget's wait,
// and sends nothing: the caller's scheduler holds it, no Lambda sleeps through a minute.
func TestWriteWithoutBudgetIsDeferredUnsent(t *testing.T) {
	budget := &stubBudget{wait: 42 * time.Second}
	fake, c := startFake(t, connector.SystemShipping, func(cfg *connector.Config) { cfg.Token = "k:s"; cfg.Budget = budget; cfg.TenantID = "t1" })
	fake.Seed("products", "7001", map[string]any{"productId": 7001, "sku": "MUG-1", "price": 9.5})
	waits := connector.RecordWaits(c)
	_, err := c.Write(context.Background(), shipstationOrder())
	ce := asError(t, err, connector.ErrRateLimited)
	if !ce.Retryable || ce.RetryAfter != 42*time.Second || ce.Attempts != 0 {
		t.Fatalf("error %+v, want retryable with RetryAfter 42s and no attempt", ce)
	}
	if fake.Requests() != 0 {
		t.Fatalf("%d requests sent without budget", fake.Requests())
	}
	if w := waits(); len(w) != 0 {
		t.Fatalf("the write waited %v for the budget", w)
	}
}

func TestWriteWhenTheBudgetCannotBeReadIsDeferred(t *testing.T) {
	budget := &stubBudget{err: errors.New("throttled table")}
	fake, c := startFake(t, connector.SystemShipping, func(cfg *connector.Config) { cfg.Token = "k:s"; cfg.Budget = budget })
	_, err := c.Write(context.Background(), shipstationOrder())
	if ce := asError(t, err, connector.ErrUnavailable); !ce.Retryable {
		t.Fatalf("error %+v, want retryable", ce)
	}
	if fake.Requests() != 0 {
		t.Fatal("a write was sent unbudgeted")
	}
}

// A write takes its two requests once, gives the take back when done, and every answer's
// rate headers reach the budget.
func TestWriteTakesBudgetAndFeedsHeadersBack(t *testing.T) {
	budget := &stubBudget{}
	fake, c := startFake(t, connector.SystemShipping, func(cfg *connector.Config) { cfg.Token = "k:s"; cfg.Budget = budget })
	fake.RateLimit(40, time.Minute)
	fake.Seed("products", "7001", map[string]any{"productId": 7001, "sku": "MUG-1", "price": 9.5})
	if _, err := c.Write(context.Background(), shipstationOrder()); err != nil {
		t.Fatal(err)
	}
	// A product is read, PUT whole and read back: three of the account's requests.
	if len(budget.takes) != 1 || budget.takes[0] != 3 || budget.released != 1 {
		t.Fatalf("takes %v released %d, want one take of 3 given back once", budget.takes, budget.released)
	}
	if len(budget.observed) != 3 || budget.observed[2].Get("X-Rate-Limit-Remaining") != "37" {
		t.Fatalf("observed %v, want every answer's headers, 37 remaining after the three", budget.observed)
	}
}
