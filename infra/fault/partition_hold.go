package fault

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// holdUntilSeen is the hot partition's answer to a slow machine. Its limits are scaled to
// the emulator's speed on a quiet machine; on a loaded one the burst posts slower than
// they allow and too few posts are answered 503 for ingest-accepted to burn (2 of 212 in
// a run of the short suite under -race beside two busy loops: the drill failed). As
// holdOutage does for the kills, the fault is held until users saw it: from a third into
// the burst, while fewer than need ingest answers were 5xx, the limits are halved each
// second (to at least one unit a second), and put back once they were, or after
// maxOutage. It returns the note's sentence.
func (pt *PartitionThrottle) holdUntilSeen(h *Harness, logStart int, rcu, wcu float64, need int) string {
	start := time.Now()
	r, w := rcu, wcu
	for time.Since(start) < maxOutage && ingest5xx(h.Logs.From(logStart)) < need {
		if r > 1 || w > 1 {
			r, w = max(1, r/2), max(1, w/2)
			pt.SetLimits(r, w)
		}
		time.Sleep(time.Second)
	}
	if r == rcu {
		return ""
	}
	pt.SetLimits(rcu, wcu)
	return fmt.Sprintf(" The burst met the limits too seldom (a slow machine): they were lowered to %.0f WCU/s and %.0f RCU/s for "+
		"%.1f s, until %d ingest answers were 5xx.", w, r, time.Since(start).Seconds(), need)
}

// alongside runs inject and, beside it, hold; the note is both of theirs.
func alongside(inject func(context.Context, *Stage) (string, error), hold func() string) func(context.Context, *Stage) (string, error) {
	return func(ctx context.Context, st *Stage) (string, error) {
		var wg sync.WaitGroup
		var held string
		wg.Add(1)
		go func() { defer wg.Done(); held = hold() }()
		note, err := inject(ctx, st)
		wg.Wait()
		return note + held, err
	}
}
