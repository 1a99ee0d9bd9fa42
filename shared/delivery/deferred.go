package delivery

import (
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// Deferred is how long a write must wait when the account's shared rate budget had no
// room, or the vendor refused it as over its limit and said until when: nothing was
// written, and the wait is the vendor's allowance coming back, not a failure. A scheduler
// holds the write that long and does not count the wait against its attempts; 0 means the
// failure is not such a wait.
func Deferred(err error) time.Duration {
	var ce *connector.Error
	if errors.As(err, &ce) && errors.Is(ce.Err, connector.ErrRateLimited) && ce.RetryAfter > 0 {
		return ce.RetryAfter
	}
	return 0
}
