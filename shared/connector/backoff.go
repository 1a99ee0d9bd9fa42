package connector

import (
	"math/rand/v2"
	"time"
)

// fullJitter waits a uniformly random time up to the ceiling ("full jitter"), which spreads
// the retries of many clients hit by the same outage instead of synchronising them.
func fullJitter(ceiling time.Duration) time.Duration {
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}
