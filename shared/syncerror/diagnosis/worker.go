package diagnosis

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/retries"
	"github.com/syncassist/syncassist/shared/tenant"
)

// DefaultDiagnosisStale is how long a row may sit in diagnosing before another delivery of
// its message may take it over (the worker that had it is presumed dead). It exceeds the
// worker's timeout so a live worker is never overtaken.
const DefaultDiagnosisStale = 2 * time.Minute

// MaxDiagnosisAttempts is how many times a claim is diagnosed before a transient failure
// becomes final; the queue's own redrive stops a message after as many receives.
const MaxDiagnosisAttempts = 5

// Worker takes diagnosis messages in batches, as the SQS event source delivers them, and
// runs the diagnosis pipeline for each claim.
type Worker struct {
	Claims syncerror.ClaimStore
	// Tenants holds the feature flags: a switched-off tenant's messages are acknowledged
	// without a diagnosis (the rows stay queued, and the reconcile enqueues them again once
	// the tenant is back on). nil checks none.
	Tenants   tenant.Reader
	Diagnoser syncerror.Diagnoser
	Log       *slog.Logger
	Now       func() time.Time
	// StaleAfter overrides DefaultDiagnosisStale.
	StaleAfter time.Duration
	// Parallel is how many messages of a batch are diagnosed at once (provider calls
	// dominate, so a batch of ten would otherwise take ten times one diagnosis).
	Parallel int
	// MinTimeLeft is the least time before the invocation's deadline to start a message.
	MinTimeLeft time.Duration
	// Assist consults the tenant's knowledge before the diagnoser and runs its auto rules
	// (nil: neither); Apply is the approve path an enforced rule applies through.
	Assist *policy.Assist
	Apply  *decisions.Service
	// Policies caches the approval policy the auto rules read (nil: read each time).
	Policies *policy.CachedPolicies
	// Retries puts rows of a retryable class on the retry schedule once diagnosed (nil:
	// every row waits for people).
	Retries *retries.Retrier
}

// Worker defaults.
const (
	DefaultWorkerParallel = 4
	DefaultMinTimeLeft    = 20 * time.Second
)

// HandleBatch processes every message and reports the ones that failed, so that SQS
// redelivers only those (and moves them to the DLQ after maxReceiveCount).
func (w *Worker) HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	defer emf.Collect(ctx).Flush() // the batch's metrics in as few EMF lines as they fit
	parallel := w.Parallel
	if parallel <= 0 {
		parallel = DefaultWorkerParallel
	}
	failed := make([]bool, len(ev.Records))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, msg := range ev.Records {
		sem <- struct{}{}
		// A record not started before the invocation's deadline is handed back to SQS
		// rather than cut off half-way when Lambda stops the function.
		if err := w.startable(ctx); err != nil {
			<-sem
			failed[i] = true
			continue
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := w.handle(ctx, msg); err != nil {
				w.log().Error("diagnosis message failed", "messageId", msg.MessageId,
					"receiveCount", msg.Attributes["ApproximateReceiveCount"], "error", err)
				failed[i] = true
			}
		}()
	}
	wg.Wait()
	var resp events.SQSEventResponse
	for i, msg := range ev.Records {
		if failed[i] {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
		}
	}
	return resp, nil
}

// startable refuses to start a record when the invocation is over or has less than
// MinTimeLeft before its deadline.
func (w *Worker) startable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	least := w.MinTimeLeft
	if least <= 0 {
		least = DefaultMinTimeLeft
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < least {
		return context.DeadlineExceeded
	}
	return nil
}

func (w *Worker) handle(ctx context.Context, msg events.SQSMessage) error {
	// The correlation id of the request that enqueued the message (else one of the
	// message's own), so the diagnosis's logs, audit records and trace carry it.
	id := "sqs-" + msg.MessageId
	if a, ok := msg.MessageAttributes[httpapi.AttributeCorrelationID]; ok && a.StringValue != nil && *a.StringValue != "" {
		id = *a.StringValue
	}
	ctx = httpapi.WithCorrelation(ctx, httpapi.LambdaLogger(ctx, w.log()), id)
	m, err := syncerror.ParseMessage(msg.Body)
	if err != nil {
		// A malformed message never gets better; failing it sends it to the DLQ for a
		// person to read instead of dropping it.
		return err
	}
	flag, err := syncerror.DisabledFlag(ctx, w.Tenants, m.TenantID)
	if err != nil {
		return err
	}
	if flag != "" {
		httpapi.Logger(ctx).Info("tenant switched off; not diagnosed", "tenant", m.TenantID, "id", m.ID, "flag", flag)
		return nil
	}
	now := w.now()
	stale := w.StaleAfter
	if stale <= 0 {
		stale = DefaultDiagnosisStale
	}
	c, err := w.Claims.BeginDiagnosis(ctx, m.TenantID, m.ID, now, now.Add(-stale))
	switch {
	case errors.Is(err, syncerror.ErrStateChanged):
		// Another delivery has it, or it is done: this copy is redundant.
		httpapi.Logger(ctx).Info("diagnosis already taken", "tenant", m.TenantID, "id", m.ID)
		return nil
	case err != nil:
		return err
	}
	httpapi.Logger(ctx).Info("diagnosing", "tenant", c.TenantID, "id", c.ID, "attempt", c.DiagnosisAttempts)
	return w.diagnose(ctx, c)
}

// diagnose runs the pipeline for a claim this worker holds in attempt c.DiagnosisAttempts.
// Success stores the proposal (ready). A permanent failure ends the diagnosis (failed). A
// transient one hands the claim back (queued) and fails the message, so SQS redelivers it
// and the next delivery can take the claim at once; after MaxDiagnosisAttempts it is final.
func (w *Worker) diagnose(ctx context.Context, c syncerror.Claim) error {
	attempt := c.DiagnosisAttempts
	auto := w.autoApply()
	p, err := auto.Propose(ctx, c, syncerror.InferenceID(c.ID, attempt))
	if err == nil {
		// The auto rule is decided before the proposal is stored, so the proposal says
		// whether the row has an automation record, and a decision on it need not read one.
		d, decided := auto.Decide(ctx, c, p)
		p.Automation = automation.Automation(d, decided)
		err := w.Claims.CompleteDiagnosis(ctx, c.TenantID, c.ID, attempt, p, w.now())
		if errors.Is(err, syncerror.ErrStateChanged) {
			// Overtaken by a later attempt; its result stands.
			return nil
		}
		if err == nil {
			httpapi.Logger(ctx).Info("diagnosis ready", "tenant", c.TenantID, "id", c.ID, "class", p.Class, "confidence", p.Confidence)
			// Latency from the claim to a ready proposal, by class: the dashboard's view.
			emf.Emit(emf.Metric{Time: w.now(), Dimensions: []string{"class"},
				Counts: map[string]float64{"Diagnoses": 1, "DiagnosisLatency": float64(w.now().Sub(c.ClaimedAt).Milliseconds())},
				Units:  map[string]string{"DiagnosisLatency": "Milliseconds"},
				Fields: map[string]any{"class": p.Class, "tenant": c.TenantID}})
			auto.Automate(ctx, c, p, d)
			if err := w.Retries.Plan(ctx, c, p); err != nil {
				// The row stays pending, in front of people: nothing is lost.
				w.log().Warn("automatic retry not planned", "tenant", c.TenantID, "id", c.ID, "error", err)
			}
		}
		return err
	}
	var perm *syncerror.PermanentError
	reason := "diagnosis failed"
	if errors.As(err, &perm) {
		reason = perm.Reason
	}
	if errors.Is(err, syncerror.ErrPermanent) || attempt >= MaxDiagnosisAttempts {
		if attempt >= MaxDiagnosisAttempts && !errors.Is(err, syncerror.ErrPermanent) {
			reason = "gave up after " + strconv.Itoa(attempt) + " attempts; last: temporary failure"
		}
		w.log().Warn("diagnosis failed", "tenant", c.TenantID, "id", c.ID, "attempt", attempt, "error", err)
		if err := w.Claims.EndDiagnosis(ctx, c.TenantID, c.ID, attempt, syncerror.DiagnosisFailed, reason, w.now()); err != nil && !errors.Is(err, syncerror.ErrStateChanged) {
			return err
		}
		return nil
	}
	w.log().Warn("diagnosis will be retried", "tenant", c.TenantID, "id", c.ID, "attempt", attempt, "error", err)
	if rerr := w.Claims.EndDiagnosis(ctx, c.TenantID, c.ID, attempt, syncerror.DiagnosisQueued, "temporary failure; retrying", w.now()); rerr != nil && !errors.Is(rerr, syncerror.ErrStateChanged) {
		return rerr
	}
	return err
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now().UTC()
	}
	return time.Now().UTC()
}

func (w *Worker) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}

// autoApply is the tenant's knowledge and auto rules around a diagnosis, on this worker's
// store, clock and approve path.
func (w *Worker) autoApply() *automation.AutoApply {
	return &automation.AutoApply{Assist: w.Assist, Policies: w.Policies, Apply: w.Apply, Tenants: w.Tenants, Diagnoser: w.Diagnoser, Now: w.Now}
}
