package fault

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// settleTimeout bounds how long a scenario waits for its claims to be diagnosed.
const settleTimeout = 3 * time.Minute

// ingestRun is a burst of signed posts against a stage with pollers running, a fault
// injected at a third of the burst, then the checks: every unique errorId claimed exactly
// once and diagnosed once, no 5xx left unretried, nothing in the DLQ, no canary in a log or
// an answer.
type ingestRun struct {
	name string
	opt  StageOptions
	// inject runs once, when a third of the posts are answered, on its own goroutine; the
	// burst goes on meanwhile. It returns a note for the table.
	inject func(ctx context.Context, st *Stage) (string, error)
	// recover runs after the burst, before the checks (the SQS emulator coming back).
	recover func(ctx context.Context, st *Stage) error
	// reconcile lets the scheduled reconcile run while claims are waited for.
	reconcile bool
	// mustRequeue fails the run when the reconcile re-enqueued nothing: the fault did not
	// leave the claims it is about.
	mustRequeue bool
	// faultFree counts a claim diagnosed twice as doubled; under a crash a diagnosis whose
	// result was lost legitimately runs again, and is reported beside the table instead.
	faultFree bool
	// endFault, when set, ends the fault once the claims settled under it, before the
	// checks: they then read the final state, the queue drained, and fight no fault.
	endFault func()
	// deadLetters, when set, says why the fault may move diagnosis messages of the hot
	// tenant to the DLQ (see checkDLQ); empty, the DLQ must stay empty.
	deadLetters string
	// after, when set, runs on the settled stage once the checks are done, with the
	// burst's unique errorIds, and adds its own checks to the row.
	after func(ctx context.Context, st *Stage, row *Row, unique []string)
}

func (ir ingestRun) run(ctx context.Context, h *Harness, cfg Config) (row Row) {
	st, err := h.NewStage(ctx, stageName(ir.name), ir.opt)
	if err != nil {
		row.failf("stage: %v", err)
		return row
	}
	defer st.Close()
	logStart := h.Logs.Len()
	enq := &enqueued{msgs: map[string]map[string]bool{}}
	st.StartPollers(2, enq.wrap)
	posts, unique := makePosts("F"+strings.ToUpper(ir.name[:3]), cfg.Posts)
	b, note, err := ir.burstWithFault(ctx, st, posts, cfg.Conc)
	row.latencies(b.Run, b.Requests)
	row.Retried = int(b.Retried)
	if err != nil {
		row.failf("inject: %v", err)
		if ir.recover != nil {
			_ = ir.recover(ctx, st) // bring the emulator back for the scenarios after this one
		}
		return row
	}
	if ir.recover != nil {
		if err := ir.recover(ctx, st); err != nil {
			row.failf("recover: %v", err)
			return row
		}
	}
	settleStart := time.Now()
	s, err := st.settle(ctx, unique, settleTimeout, ir.reconcile)
	if err != nil {
		row.failf("settle: %v", err)
		return row
	}
	if ir.endFault != nil {
		ir.endFault()
	}
	if ir.mustRequeue && s.Report.Requeued == 0 {
		row.failf("the reconcile re-enqueued nothing: no claim was left queued by the fault")
	}
	if ir.faultFree && b.Retried > 0 {
		row.failf("%d posts were answered 5xx (or dropped) without any fault", b.Retried)
	}
	row.Note = strings.TrimSpace(fmt.Sprintf("%d posts (%d unique errorIds, %d duplicates) at c=%d; %d answers 5xx or dropped, "+
		"each retried until 202; claims settled %.1f s after the last post; reconcile runs %d (requeued %d). %s",
		len(posts), len(unique), len(posts)-len(unique), cfg.Conc, b.Retried, time.Since(settleStart).Seconds(), s.Reconciles,
		s.Report.Requeued, note))
	ir.check(ctx, st, &row, posts, unique, b, s, enq, logStart)
	if ir.after != nil {
		ir.after(ctx, st, &row, unique)
	}
	row.Leaked += st.logLeaks(logStart)
	return row
}

// burstWithFault posts the burst and injects the fault once a third of the posts are
// answered, on its own goroutine while the burst goes on; it returns the fault's note.
func (ir ingestRun) burstWithFault(ctx context.Context, st *Stage, posts []Post, conc int) (*Burst, string, error) {
	var wg sync.WaitGroup
	var once sync.Once
	var note string
	var err error
	trigger := func(done int) {
		if ir.inject == nil || done < len(posts)/3 {
			return
		}
		once.Do(func() {
			wg.Add(1)
			go func() { defer wg.Done(); note, err = ir.inject(ctx, st) }()
		})
	}
	b := st.burst(ctx, posts, conc, trigger)
	wg.Wait()
	return b, note, err
}

// check fills lost, doubled and the failures from the store, the queue's deliveries and
// the answers. An errorId counts once in doubled however many checks flag it.
func (ir ingestRun) check(ctx context.Context, st *Stage, row *Row, posts []Post, unique []string, b *Burst, s Settled, enq *enqueued, logStart int) {
	// Every check below reads a final state: no diagnosis message left to deliver, so no
	// claim is diagnosed, enqueued or dead-lettered after it is counted.
	if depth, err := st.drained(ctx); err != nil || depth > 0 {
		row.failf("the diagnosis queue still held %d messages %s after the claims settled (%v)", depth, drainTimeout, err)
	}
	answered, rejected := createdTwice(posts, b)
	// doubled names, per errorId, the checks that flagged it, so CI's log says which.
	doubled := map[string][]string{}
	flag := func(why string, ids []string) {
		for _, id := range ids {
			doubled[id] = append(doubled[id], why)
		}
	}
	defer func() { row.Doubled = len(doubled) }()
	flag("answered created twice", answered)
	row.Lost = len(s.Missing) + len(s.Undiagnosed)
	row.Leaked = int(b.Leaked)
	if rejected > 0 {
		row.failf("%d posts ended without a 202 after retries", rejected)
	}
	if row.Lost > 0 {
		var why string
		if len(s.Undiagnosed) > 0 {
			id := rowIDOf(s.Undiagnosed[0])
			c, err := st.View.Claims.Get(ctx, tenantID, id)
			why = fmt.Sprintf("; %s is %s since %s (%v) [%s]", s.Undiagnosed[0], c.Diagnosis, c.DiagnosisSince.Format("15:04:05.000"), err,
				st.trail(ctx, tenantID, id, logStart))
		}
		row.failf("%d errorIds without a claim (%v), %d claimed but not diagnosed (%v)%s", len(s.Missing), first(s.Missing),
			len(s.Undiagnosed), first(s.Undiagnosed), why)
	}
	stored, err := st.storedClaims(ctx, unique)
	if err != nil {
		row.failf("claims: %v", err)
		return
	}
	flag("stored twice", storedTwice(posts, b, stored))
	// Without a fault every claim is enqueued once; under one, the reconcile (and an SDK
	// retry of a SendMessage whose answer was lost) may enqueue a claim again.
	if multi := enq.multiple(unique); ir.faultFree {
		flag("enqueued twice", multi)
	} else if len(multi) > 0 {
		row.Note += fmt.Sprintf(" %d claims were handed more than one diagnosis message (re-enqueued).", len(multi))
	}
	rediagnosed := 0
	defer func() {
		if rediagnosed > 0 {
			row.Note += fmt.Sprintf(" %d claims diagnosed twice: the first diagnosis ran (and was billed) but its result "+
				"could not be stored, so a redelivery diagnosed again; at-least-once under a crash, shown here, not counted as doubled.", rediagnosed)
		}
	}()
	recs, err := st.aiRecords(ctx, unique)
	if err != nil {
		row.failf("AI records: %v", err)
		return
	}
	for i, r := range recs {
		if r.Doubled() && ir.faultFree {
			flag(fmt.Sprintf("diagnosed twice (%d attempts: %d traces, %d inferences, %d repeated cost records)", r.Attempts, r.Traces, r.Inferences, r.Repeated),
				[]string{unique[i]})
		} else if r.Doubled() {
			rediagnosed++
		}
	}
	if len(doubled) > 0 {
		ids := slices.Sorted(maps.Keys(doubled))
		named := make([]string, 0, 3)
		for _, id := range first(ids) {
			named = append(named, id+": "+strings.Join(doubled[id], ", ")+" ["+st.trail(ctx, tenantID, rowIDOf(id), logStart)+"]")
		}
		row.failf("%d errorIds claimed, enqueued or diagnosed more than once (%s)", len(ids), strings.Join(named, "; "))
	}
	st.checkDLQ(ctx, row, ir.deadLetters, unique)
}

// storedClaims reads the claim row of each errorId that has one.
func (st *Stage) storedClaims(ctx context.Context, errorIDs []string) (map[string]syncerror.Claim, error) {
	var mu sync.Mutex
	out := map[string]syncerror.Claim{}
	err := parallel(len(errorIDs), 8, func(i int) error {
		c, err := st.View.Claims.Get(ctx, tenantID, rowIDOf(errorIDs[i]))
		if errors.Is(err, syncerror.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		mu.Lock()
		out[errorIDs[i]] = c
		mu.Unlock()
		return nil
	})
	return out, err
}

func first(ids []string) []string { return ids[:min(len(ids), 3)] }

// stageName is a fresh stage per scenario run, so reruns never share tables.
func stageName(scenario string) string {
	short := strings.ReplaceAll(scenario, "-", "")
	return fmt.Sprintf("f%s%d", short[:min(len(short), 6)], time.Now().UnixNano()%1e6)
}

// runBurst: 2,000 signed posts at c=32 with 10 % duplicates, no fault.
func runBurst(ctx context.Context, h *Harness, cfg Config) Row {
	return ingestRun{name: "burst", faultFree: true}.run(ctx, h, cfg)
}

// runDynamoRestart kills dynalite (SIGKILL) a third into the burst and starts it again on
// the same port after cfg.Outage. dynalite runs with a LevelDB path, so the restarted
// process has every table and item: a real crash and restart of the database process,
// not a proxy outage. Posts meanwhile get 5xx and are retried; the worker's failed
// deliveries come back after the visibility timeout; rows left diagnosing by a worker cut
// off mid-way are taken over (stale after 3 s here) or requeued by the reconcile.
func runDynamoRestart(ctx context.Context, h *Harness, cfg Config) Row {
	return ingestRun{name: "dynamodb-restart", opt: StageOptions{StuckAfter: 3 * time.Second}, reconcile: true,
		inject: func(ctx context.Context, st *Stage) (string, error) {
			logStart := h.Logs.Len()
			h.Emu.KillDynamoDB()
			if err := refuses(h.Emu.DynamoDBEndpoint); err != nil {
				return "", err
			}
			need := ingest5xxNeeded(cfg.Posts)
			held := holdOutage(h, logStart, cfg.Outage, need)
			if err := h.Emu.RestartDynamoDB(ctx); err != nil {
				return "", err
			}
			return fmt.Sprintf("dynalite killed (SIGKILL) and restarted on the same port with its LevelDB data after %.1f s "+
				"(at least %s, and until %d ingest answers were 5xx).", held.Seconds(), cfg.Outage, need), nil
		}}.run(ctx, h, cfg)
}

// runSQSKill kills fauxqs (SIGKILL) a third into the burst and keeps it dead for the rest
// of it. fauxqs keeps queues in memory, so the messages in it die too: the claims whose
// message was lost, or whose SendMessage failed (answered 202 anyway), stay queued, and
// only the reconcile can bring them back once fauxqs is started again and the queues are
// created again.
func runSQSKill(ctx context.Context, h *Harness, cfg Config) Row {
	return ingestRun{name: "sqs-kill", opt: StageOptions{StuckAfter: 3 * time.Second}, reconcile: true, mustRequeue: true,
		inject: func(context.Context, *Stage) (string, error) {
			h.Emu.KillSQS()
			if err := refuses(h.Emu.SQSEndpoint); err != nil {
				return "", err
			}
			return "fauxqs killed (SIGKILL) a third into the burst, dead for the rest of it (its queues and messages lost), " +
				"started again and the queues created again after it.", nil
		},
		recover: func(ctx context.Context, st *Stage) error {
			if err := h.Emu.RestartSQS(ctx); err != nil {
				return err
			}
			return st.provision(ctx)
		}}.run(ctx, h, cfg)
}

// refuses checks that nothing listens on endpoint any more: the kill was real, so the
// scenario cannot pass without its fault.
func refuses(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond)
	if err == nil {
		c.Close()
		return fmt.Errorf("%s still accepts connections after the kill", endpoint)
	}
	return nil
}
