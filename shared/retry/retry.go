// Package retry runs a store write again while it fails for a passing reason. It is for
// the writes that record something that already happened elsewhere (an ERP update that
// went through): one throttled request must not turn a fact into a lie.
package retry

import (
	"context"
	"time"
)

// Attempts and FirstWait shape Store: three attempts, 50 ms then 200 ms apart, which fits
// well inside the reserve an approve keeps after its ERP call.
const (
	Attempts  = 3
	FirstWait = 50 * time.Millisecond
)

// Store runs op until it succeeds, fails with an error final says is the answer (the
// row's state changed, it does not exist), has run Attempts times, or ctx is done. It
// returns op's last error.
func Store(ctx context.Context, op func() error, final func(error) bool) error {
	var err error
	wait := FirstWait
	for attempt := 1; ; attempt++ {
		if err = op(); err == nil || final(err) || attempt == Attempts {
			return err
		}
		if !Sleep(ctx, wait) {
			return err
		}
		wait *= 4
	}
}

// Sleep waits d unless ctx is done first, and says whether it waited the whole time.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
