package ai_test

import (
	"context"
	"sync"
	"testing"
	"time"
)

// arrivalDeadline is a caller's context whose deadline passes a set time after the model
// server received the request, so a timeout case tests the provider's handling of an
// expired deadline and not how fast the machine sent the request. With no timeout it
// never expires.
type arrivalDeadline struct {
	context.Context
	timeout time.Duration
	once    sync.Once
	at      time.Time
	done    chan struct{}
	stop    chan struct{}
}

func newArrivalDeadline(t *testing.T, timeout time.Duration) *arrivalDeadline {
	c := &arrivalDeadline{Context: context.Background(), timeout: timeout, done: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { close(c.stop) })
	return c
}

// arrive starts the deadline's clock at the server's first receipt of a request.
func (c *arrivalDeadline) arrive() {
	c.once.Do(func() {
		c.at = time.Now()
		if c.timeout <= 0 {
			return
		}
		go func() {
			select {
			case <-time.After(c.timeout):
				close(c.done)
			case <-c.stop:
			}
		}()
	})
}

func (c *arrivalDeadline) sinceArrival() time.Duration {
	c.arrive() // a case with no request: its clock starts now
	return time.Since(c.at)
}

func (c *arrivalDeadline) Done() <-chan struct{} { return c.done }

func (c *arrivalDeadline) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
