package fault

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
)

// Settled is where the claims of a scenario ended up once the pipeline went quiet.
type Settled struct {
	Missing     []string // errorIds without a claim: lost at ingest
	Undiagnosed []string // claimed but not diagnosed ready by the deadline: lost downstream
	Reconciles  int
	Report      intake.Report // the reconcile runs' figures, summed
}

// settle waits until every errorId's claim is diagnosed ready. When reconcile is set, it
// runs the reconcile (as its schedule would) each time progress stalls for a while; without
// it only the queue and the worker may bring the claims there.
func (st *Stage) settle(ctx context.Context, errorIDs []string, timeout time.Duration, reconcile bool) (Settled, error) {
	var s Settled
	pending := errorIDs
	deadline := time.Now().Add(timeout)
	lastProgress := time.Now()
	for {
		var err error
		var missing []string
		before := len(pending)
		if pending, missing, err = st.notReady(ctx, pending); err != nil {
			return s, err
		}
		if len(pending) < before {
			lastProgress = time.Now()
		}
		if len(pending) == 0 || time.Now().After(deadline) {
			s.Missing = missing
			for _, id := range pending {
				if !contains(missing, id) {
					s.Undiagnosed = append(s.Undiagnosed, id)
				}
			}
			return s, nil
		}
		if reconcile && time.Since(lastProgress) > st.opt.StuckAfter+time.Second {
			rep, err := st.Reconcile(ctx)
			if err != nil {
				return s, err
			}
			s.Reconciles++
			addReport(&s.Report, rep)
			lastProgress = time.Now()
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// notReady returns the errorIds whose claim is not diagnosed ready, and of those the ones
// with no claim at all.
func (st *Stage) notReady(ctx context.Context, errorIDs []string) (pending, missing []string, err error) {
	var mu sync.Mutex
	err = parallel(len(errorIDs), 8, func(i int) error {
		c, err := st.View.Claims.Get(ctx, tenantID, rowIDOf(errorIDs[i]))
		if errors.Is(err, syncerror.ErrNotFound) {
			mu.Lock()
			pending, missing = append(pending, errorIDs[i]), append(missing, errorIDs[i])
			mu.Unlock()
			return nil
		}
		if err != nil {
			return err
		}
		if c.Diagnosis != syncerror.DiagnosisReady {
			mu.Lock()
			pending = append(pending, errorIDs[i])
			mu.Unlock()
		}
		return nil
	})
	return pending, missing, err
}

func addReport(sum *intake.Report, r intake.Report) {
	sum.Requeued += r.Requeued
	sum.SendFailed += r.SendFailed
	sum.LeasesCompleted += r.LeasesCompleted
	sum.LeasesExpired += r.LeasesExpired
	sum.Errors += r.Errors
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// canaries are the values that must never appear in a log line or an answer: the tenant's
// webhook secret (whole, and its key) and the DLP canaries the posts carry, raw and as
// JSON encodes them.
func (st *Stage) canaries() []string {
	out := []string{st.Secret, strings.TrimPrefix(st.Secret, "whsec_"), "4111111111111111"}
	for _, c := range aitest.Canaries {
		out = append(out, c.Value, strings.ReplaceAll(c.Value, "/", `\/`))
	}
	return out
}

// countLeaks counts occurrences of the canaries in text.
func countLeaks(text string, canaries []string) int {
	n := 0
	for _, c := range canaries {
		n += strings.Count(text, c)
	}
	return n
}

// logLeaks counts canary occurrences in what the service logged since offset.
func (st *Stage) logLeaks(offset int) int {
	return countLeaks(st.h.Logs.From(offset), st.canaries())
}
