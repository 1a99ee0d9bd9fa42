package connector

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Budget is a vendor account's request allowance, shared by every function that calls it
// (shared/ratebudget keeps it in DynamoDB). The vendors count per account, not per
// process, so pacing inside one client cannot keep sixty Lambdas under a limit.
type Budget interface {
	// Take reserves calls requests of the tenant's account at system before they are
	// sent. With budget it returns release, to be called when the requests are done (it
	// gives back a concurrency lease); without, the wait until the budget returns. An error
	// is the budget's store failing.
	Take(ctx context.Context, tenantID string, system System, calls int) (release func(), wait time.Duration, err error)
	// Observe tells the budget what an answer said about the allowance (X-Rate-Limit-*,
	// Sforce-Limit-Info, Retry-After); it must be cheap when the answer says nothing new.
	Observe(ctx context.Context, tenantID string, system System, status int, header http.Header)
}

// defaultWriteCalls is what a write reserves unless its profile says otherwise: its read
// and its write. A replayed write sends one request and a retried attempt one more; the
// vendor's own count, fed back through Observe, corrects the difference.
const defaultWriteCalls = 2

// writeCoster is a profile whose writes send another number of requests.
type writeCoster interface {
	writeCalls(req writeOp) int
}

func (c *Client) writeCalls(req writeOp) int {
	if wc, ok := c.prof.(writeCoster); ok {
		return wc.writeCalls(req)
	}
	return defaultWriteCalls
}

// errNoBudget is an ErrRateLimited's cause when the shared budget, not the vendor, refused.
var errNoBudget = errors.New("the account's shared rate budget is spent")

// errBudgetStore is an ErrUnavailable's cause when the budget could not be read: sending
// unbudgeted could break the vendor's limit for every function, so the write waits.
var errBudgetStore = errors.New("the account's shared rate budget could not be read")

// noRelease is the release of a call without a budget.
func noRelease() {}

// takeBudget reserves calls requests for op. A call that finds no budget fails at once,
// retryable with the wait as RetryAfter, and is never waited out here: the caller's
// scheduler (an SQS message, a retry schedule) holds it until then.
func (c *Client) takeBudget(ctx context.Context, op string, calls int) (func(), *Error) {
	if c.budget == nil {
		return noRelease, nil
	}
	release, wait, err := c.budget.Take(ctx, c.tenantID, c.sys, calls)
	switch {
	case err != nil:
		return nil, &Error{System: c.sys, Op: op, Err: ErrUnavailable, Retryable: true, Cause: errBudgetStore, deferred: true}
	case wait > 0:
		return nil, &Error{System: c.sys, Op: op, Err: ErrRateLimited, Retryable: true, RetryAfter: wait,
			Cause: errNoBudget, deferred: true}
	case release == nil:
		return noRelease, nil
	}
	return release, nil
}

// observe feeds an answer's headers to the budget.
func (c *Client) observe(ctx context.Context, status int, h http.Header) {
	if c.budget != nil {
		c.budget.Observe(ctx, c.tenantID, c.sys, status, h)
	}
}
