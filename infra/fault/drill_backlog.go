package fault

import (
	"context"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/infra/oncall"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// backlog is how far behind the diagnosis worker falls in the diagnosis-backlog drill:
// past the 2 minutes of diagnosis-on-time, under the 10 minutes after which a diagnosing
// claim counts as stale and the 15 of the queue-age alarm's threshold.
const backlog = 3 * time.Minute

// runDiagnosisBacklog is "diagnosis falling behind": a burst is claimed while no worker
// polls the diagnosis queue, and the worker comes back once the claims are a backlog old.
// The wait is played on the stage's clock (the worker reads it for the latency from the
// claim), not slept: a real three-minute stall would triple make test's fault stage. Every
// claim must still be diagnosed (nothing lost), and the drill must see
// diagnosis-on-time burn from the worker's DiagnosisLatency lines. The queue-age alarm is
// SQS's own ApproximateAgeOfOldestMessage, which no EMF line carries: the row names the
// oldest claim's age instead.
func runDiagnosisBacklog(ctx context.Context, h *Harness, cfg Config) (row Row) {
	st, err := h.NewStage(ctx, stageName("diagnosis-backlog"), StageOptions{})
	if err != nil {
		row.failf("stage: %v", err)
		return row
	}
	defer st.Close()
	posts, unique := makePosts("FDBL", max(cfg.Posts/10, 20))
	b := st.burst(ctx, posts, cfg.Conc, nil)
	row.latencies(b.Run, b.Requests)
	if _, rejected := createdTwice(posts, b); rejected > 0 {
		row.failf("%d posts ended without a 202", rejected)
		return row
	}
	depth, err := st.QueueDepth(ctx, blueprint.Diagnosis.Name)
	if err != nil {
		row.failf("queue depth: %v", err)
		return row
	}
	claimed := time.Now()
	st.Deps.Now = func() time.Time { return time.Now().Add(backlog) }
	st.StartPollers(2, nil)
	s, err := st.settle(ctx, unique, settleTimeout, false)
	if err != nil {
		row.failf("settle: %v", err)
		return row
	}
	row.Lost = len(s.Missing) + len(s.Undiagnosed)
	if row.Lost > 0 {
		row.failf("%d errorIds without a claim, %d claimed but not diagnosed after the backlog", len(s.Missing), len(s.Undiagnosed))
	}
	row.Note = fmt.Sprintf("%d posts (%d unique errorIds) claimed with no worker polling (%d messages waiting); the worker "+
		"came back %s of clock later and diagnosed every claim in %.1f s. The oldest claim waited about %s: "+
		"%s's alarm fires at %s of SQS's ApproximateAgeOfOldestMessage, not an EMF metric.",
		len(posts), len(unique), depth, backlog, time.Since(claimed).Seconds(), backlog+time.Since(claimed).Round(time.Second),
		oncall.DiagnosisQueueAge.Name, time.Duration(oncall.DiagnosisQueueAge.Threshold)*time.Second)
	return row
}
