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
// failure is not such a wait. A write whose answer was lost and whose later attempt was
// refused so (connector.Error.Later, its RetryAfter carried) waits the same: it may be in
// the record, which the next attempt's read settles, and that read is the vendor's to time.
func Deferred(err error) time.Duration {
	var ce *connector.Error
	if errors.As(err, &ce) && ce.RetryAfter > 0 &&
		(errors.Is(ce.Err, connector.ErrRateLimited) || ce.Later != nil && errors.Is(ce.Later, connector.ErrRateLimited)) {
		return ce.RetryAfter
	}
	return 0
}
