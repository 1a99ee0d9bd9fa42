package fault

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/webhook"
)

// redeliveries counts, per SQS message id, how often the worker was handed the message,
// and makes SQS deliver each one want times: every delivery runs the real worker, and all
// but the last are then reported as failed, as when a worker dies after its work but
// before its batch response reaches the event source. The message comes back after the
// visibility timeout with the same id and receipt count + 1.
type redeliveries struct {
	want int
	mu   sync.Mutex
	seen map[string]int
	lat  []time.Duration
}

func (r *redeliveries) wrap(next sqsqueue.BatchHandler) sqsqueue.BatchHandler {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		t0 := time.Now()
		resp, err := next(ctx, ev)
		d := time.Since(t0)
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, m := range ev.Records {
			r.seen[m.MessageId]++
			r.lat = append(r.lat, d)
			if r.seen[m.MessageId] < r.want {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			}
		}
		return resp, err
	}
}

// done says every message was delivered want times; total is the deliveries so far.
func (r *redeliveries) done(messages int) (ok bool, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	full := 0
	for _, n := range r.seen {
		total += n
		if n >= r.want {
			full++
		}
	}
	return len(r.seen) == messages && full == messages, total
}

// runRedelivery: each claim's diagnosis message is delivered cfg.Redeliveries (5) times by
// SQS itself (visibility timeout 1 s). The worker must diagnose each claim once: one
// trace, one inference's cost records (one per provider call), nothing in the DLQ.
func runRedelivery(ctx context.Context, h *Harness, cfg Config) (row Row) {
	st, err := h.NewStage(ctx, stageName("redelivery"), StageOptions{Visibility: 1})
	if err != nil {
		row.failf("stage: %v", err)
		return row
	}
	defer st.Close()
	logStart := h.Logs.Len()
	var posts []Post
	var ids []string
	for i := range cfg.RedeliveryClaims {
		id := fmt.Sprintf("FRED-%05d", i)
		posts = append(posts, Post{ErrorID: id, MsgID: webhook.NewMessageID(), Body: syncErrorBody(id, i, i == 0)})
		ids = append(ids, id)
	}
	b := st.burst(ctx, posts, 4, nil)
	if b.Run.Failures > 0 {
		row.failf("%d posts failed", b.Run.Failures)
		return row
	}
	red := &redeliveries{want: cfg.Redeliveries, seen: map[string]int{}}
	start := time.Now()
	st.StartPollers(2, red.wrap)
	total := waitRedelivered(red, len(ids), 2*time.Minute)
	elapsed := time.Since(start)
	row.Ops, row.Rate = total, float64(total)/elapsed.Seconds()
	row.latencies(fakeRun(total, elapsed), red.lat)
	st.checkRedelivered(ctx, &row, ids, red)
	row.Leaked = int(b.Leaked) + st.logLeaks(logStart)
	row.Note = fmt.Sprintf("%d claims, each message delivered %d times by SQS (the first %d reported failed after the worker ran); "+
		"ops are deliveries, latencies per batch.", len(ids), cfg.Redeliveries, cfg.Redeliveries-1)
	return row
}

func waitRedelivered(red *redeliveries, messages int, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		ok, total := red.done(messages)
		if ok || time.Now().After(deadline) {
			return total
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkRedelivered: every message delivered exactly want times, every claim diagnosed
// once, nothing in the DLQ.
func (st *Stage) checkRedelivered(ctx context.Context, row *Row, ids []string, red *redeliveries) {
	if ok, total := red.done(len(ids)); !ok {
		row.failf("not every message was delivered %d times (%d deliveries seen for %d claims)", red.want, total, len(ids))
	}
	// The last delivery is acknowledged once its batch returns: wait for the queue to be
	// empty, so the DLQ count below is final.
	if depth, err := st.drained(ctx); err != nil || depth > 0 {
		row.failf("the diagnosis queue still held %d messages %s after the last delivery (%v)", depth, drainTimeout, err)
	}
	pending, missing, err := st.notReady(ctx, ids)
	if err != nil {
		row.failf("claims: %v", err)
		return
	}
	row.Lost = len(pending)
	if len(pending) > 0 {
		row.failf("%d claims not diagnosed (%d missing)", len(pending), len(missing))
	}
	recs, err := st.aiRecords(ctx, ids)
	if err != nil {
		row.failf("AI records: %v", err)
		return
	}
	for i, r := range recs {
		if r.Doubled() {
			row.Doubled++
		}
		if r.Traces == 0 || r.Costs == 0 {
			row.failf("%s has %d traces and %d cost records", ids[i], r.Traces, r.Costs)
		}
	}
	st.checkDLQ(ctx, row, "", ids)
}
