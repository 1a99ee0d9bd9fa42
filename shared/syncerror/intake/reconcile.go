package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenantrun"
)

// DefaultStuckAfter is how long a claim may stay queued or diagnosing before the reconcile
// re-enqueues it. It is well above normal queue latency and a diagnosis's duration, so a
// healthy claim is not enqueued twice.
const DefaultStuckAfter = 10 * time.Minute

// TenantLister lists tenant configurations.
type TenantLister interface {
	List(ctx context.Context) ([]tenant.Config, error)
}

// HostErrors lists the sync errors the host ERP recorded since a time, in the webhook's
// body format. It returns an error wrapping ErrWriterNotConfigured for a tenant without a
// host ERP connector.
type HostErrors interface {
	ListSyncErrors(ctx context.Context, tenantID string, since time.Time, cursor string, limit int) (items []json.RawMessage, next string, err error)
}

// Reconcile is the 30-minute backstop. Per enabled tenant it
//   - re-enqueues claims stuck in queued or diagnosing (a lost SendMessage, a dead worker);
//   - polls the host ERP for sync errors since the tenant's watermark and claims the unseen
//     ones through the same claim path as the webhook (duplicates fall away);
//   - finishes approve leases that expired in applying: approved when the write-back had
//     reached the host ERP, else back to pending, with an audit record (for every tenant).
//
// Two runs may overlap: every change is a conditional write on the state the run saw, so
// nothing is enqueued, claimed or reverted twice.
type Reconcile struct {
	Tenants    TenantLister
	Claims     syncerror.ClaimStore
	Queue      syncerror.Queue
	Host       HostErrors
	Watermarks syncerror.Watermarks
	Audit      syncerror.Auditor
	Log        *slog.Logger
	Now        func() time.Time
	// StuckAfter overrides DefaultStuckAfter.
	StuckAfter time.Duration
	// FirstPoll is how far back the first poll of a tenant looks (default 24 h).
	FirstPoll time.Duration
	// PollTime overrides MaxPollTime, the time one tenant's host ERP poll may take.
	PollTime time.Duration
	// Metrics receives the run's EMF line (nil: emf.Out, stdout).
	Metrics io.Writer
	// Mask applies the at-rest policy to what the poll claims (nil: none).
	Mask *syncerror.Masker
	// Writes tells whether an expired approve's write-back reached the host ERP when the
	// approve stopped before marking its row; nil trusts the marker alone.
	Writes syncerror.WriteEvidence
	// Docs, when set, lets the run give older automation records their place in the
	// newest-first list (OrderAutomation).
	Docs syncerror.DocStore
	// Budget is the longest a run may take on the Now clock (zero: until the context's
	// deadline, the Lambda's). Each tenant gets a bounded share of it (tenantrun).
	Budget time.Duration

	// SweepOrder and PollOrder keep which tenants ran out of their share in each phase, to
	// try them last next run (nil: this value's own, in the process).
	SweepOrder, PollOrder tenantrun.Memory

	sweepOrder, pollOrder tenantrun.InProcess
}

// Report says what a reconcile run did.
type Report struct {
	Tenants    int `json:"tenants"`
	Requeued   int `json:"requeued"`
	Contended  int `json:"contended"`
	SendFailed int `json:"sendFailed"`
	Polled     int `json:"polled"`
	Claimed    int `json:"claimed"`
	Invalid    int `json:"invalid"`
	// PollsCut are host ERP polls stopped by MaxPollPages, MaxPollTime or a repeated
	// cursor; the next run goes on.
	PollsCut      int `json:"pollsCut"`
	LeasesExpired int `json:"leasesExpired"`
	// LeasesCompleted are expired leases whose write had reached the host ERP: completed
	// approved instead of returned to pending.
	LeasesCompleted int `json:"leasesCompleted"`
	// LeasesWaiting are expired leases whose outcome could not be read (the ledger or the
	// record): left applying for the next run. LeasesUnverified are those that stayed so
	// for syncerror.UnverifiedAfter: returned, their outcome not verified.
	LeasesWaiting    int `json:"leasesWaiting"`
	LeasesUnverified int `json:"leasesUnverified"`
	// AutomationOrdered are automation records from before they carried their time, given
	// it (once per record, a bounded number per run).
	AutomationOrdered int `json:"automationOrdered"`
	Errors            int `json:"errors"`
	// TenantsTimedOut are tenant steps stopped at the end of their share of the run;
	// TenantsSkipped the tenant steps left for the next run because its deadline was near.
	TenantsTimedOut int `json:"tenantsTimedOut"`
	TenantsSkipped  int `json:"tenantsSkipped"`
}

const reconcilePage = 100

// Run reconciles every enabled tenant. A failure of one tenant's step is logged and
// counted; the other steps and tenants still run. It returns an error only if it could not
// list the tenants.
func (rc *Reconcile) Run(ctx context.Context) (Report, error) {
	defer emf.Collect(ctx).Flush() // the run's metrics in as few EMF lines as they fit
	var rep Report
	tenants, err := rc.Tenants.List(ctx)
	if err != nil {
		return rep, fmt.Errorf("list tenants: %w", err)
	}
	var all, enabled []string
	for _, t := range tenants {
		all = append(all, t.ID)
		if t.FeatureEnabled() {
			enabled = append(enabled, t.ID)
		}
	}
	plan := tenantrun.Plan{Now: rc.now}
	if rc.Budget > 0 {
		plan.Deadline = rc.now().Add(rc.Budget)
	}
	// Leases are swept first, for every tenant and whatever its flags, before any host ERP
	// is polled: an approve that stopped mid-write is finished or released even for a
	// tenant switched off since, and no tenant's slow ERP can use up the run before
	// another tenant's sweep.
	plan.Memory = orOwn(rc.SweepOrder, &rc.sweepOrder)
	rc.phase(ctx, plan, all, &rep, func(ctx context.Context, id string) error {
		return errors.Join(rc.step(ctx, id, "sweep expired leases", rc.sweepLeases, &rep),
			rc.step(ctx, id, "order automation records", rc.orderAutomation, &rep))
	})
	plan.Memory = orOwn(rc.PollOrder, &rc.pollOrder)
	rep.Tenants = len(enabled)
	rc.phase(ctx, plan, enabled, &rep, func(ctx context.Context, id string) error {
		return errors.Join(rc.step(ctx, id, "requeue stuck claims", rc.requeueStuck, &rep),
			rc.step(ctx, id, "poll host ERP", rc.pollHost, &rep))
	})
	rc.log().Info("reconcile finished", "tenants", rep.Tenants, "requeued", rep.Requeued, "contended", rep.Contended,
		"sendFailed", rep.SendFailed, "polled", rep.Polled, "claimed", rep.Claimed, "invalid", rep.Invalid,
		"leasesExpired", rep.LeasesExpired, "leasesCompleted", rep.LeasesCompleted,
		"leasesWaiting", rep.LeasesWaiting, "leasesUnverified", rep.LeasesUnverified, "automationOrdered", rep.AutomationOrdered, "errors", rep.Errors,
		"tenantsTimedOut", rep.TenantsTimedOut, "tenantsSkipped", rep.TenantsSkipped)
	rc.metrics(rep)
	return rep, nil
}

// phase runs fn for ids under the plan and counts what ran out of time or was left over.
func (rc *Reconcile) phase(ctx context.Context, plan tenantrun.Plan, ids []string, rep *Report, fn func(context.Context, string) error) {
	res := tenantrun.Run(ctx, ids, plan, fn)
	rep.TenantsTimedOut += res.TimedOut
	rep.TenantsSkipped += res.Skipped
	if res.Skipped > 0 {
		rc.log().Warn("reconcile stopped before its deadline; the next run goes on", "tenantsLeft", res.Skipped)
	}
	if res.MemoryErr != nil {
		rc.log().Warn("reconcile: which tenants ran out of time is not remembered", "error", res.MemoryErr)
	}
}

func orOwn(m tenantrun.Memory, own *tenantrun.InProcess) tenantrun.Memory {
	if m != nil {
		return m
	}
	return own
}

// step runs one step for one tenant; a failure is logged and counted, and the run goes on.
func (rc *Reconcile) step(ctx context.Context, tenantID, name string, run func(context.Context, string, *Report) error, rep *Report) error {
	err := run(ctx, tenantID, rep)
	if err != nil {
		rep.Errors++
		rc.log().Error("reconcile step failed", "tenant", tenantID, "step", name, "error", err)
	}
	return err
}

// metrics emits the report as one CloudWatch embedded-metric-format line, whatever the log
// level (an alarm watches that the reconcile runs).
func (rc *Reconcile) metrics(rep Report) {
	if err := emf.Write(rc.Metrics, emf.Metric{Time: rc.now(), Counts: map[string]float64{
		"ReconcileRequeued": float64(rep.Requeued), "ReconcileClaimed": float64(rep.Claimed),
		"ReconcileLeasesExpired": float64(rep.LeasesExpired), "ReconcileLeasesCompleted": float64(rep.LeasesCompleted),
		"ReconcileLeasesWaiting": float64(rep.LeasesWaiting), "ReconcileLeasesUnverified": float64(rep.LeasesUnverified),
		"ReconcileErrors": float64(rep.Errors), "ReconcileRuns": 1,
		"ReconcileTenantsTimedOut": float64(rep.TenantsTimedOut), "ReconcileTenantsSkipped": float64(rep.TenantsSkipped),
	}}); err != nil {
		rc.log().Error("reconcile metrics not written", "error", err)
	}
}

func (rc *Reconcile) requeueStuck(ctx context.Context, tenantID string, rep *Report) error {
	now := rc.now()
	after := rc.StuckAfter
	if after <= 0 {
		after = DefaultStuckAfter
	}
	cutoff := now.Add(-after)
	for _, d := range []syncerror.Diagnosis{syncerror.DiagnosisQueued, syncerror.DiagnosisDiagnosing} {
		// Each pass moves what it handles out of the query's range; stop when a page
		// comes back short or nothing in it could be taken.
		for {
			stuck, err := rc.Claims.Stuck(ctx, tenantID, d, cutoff, reconcilePage)
			if err != nil {
				return err
			}
			progressed := false
			for _, c := range stuck {
				err := rc.Claims.Requeue(ctx, tenantID, c.ID, c.Diagnosis, c.DiagnosisSince, now)
				if errors.Is(err, syncerror.ErrStateChanged) {
					rep.Contended++
					continue
				}
				if err != nil {
					return err
				}
				progressed = true
				if err := rc.Queue.Send(ctx, syncerror.Message{TenantID: tenantID, ID: c.ID}); err != nil {
					// The row is re-stamped; the next run finds it again after StuckAfter.
					rep.SendFailed++
					rc.log().Warn("re-enqueue failed", "tenant", tenantID, "id", c.ID, "error", err)
					continue
				}
				rep.Requeued++
			}
			if len(stuck) < reconcilePage || !progressed {
				break
			}
		}
	}
	return nil
}

func (rc *Reconcile) now() time.Time {
	if rc.Now != nil {
		return rc.Now().UTC()
	}
	return time.Now().UTC()
}

func (rc *Reconcile) log() *slog.Logger {
	if rc.Log != nil {
		return rc.Log
	}
	return slog.Default()
}
func (rc *Reconcile) orderAutomation(ctx context.Context, tenantID string, rep *Report) error {
	if rc.Docs == nil {
		return nil
	}
	n, err := automation.OrderAutomation(ctx, rc.Docs, tenantID, automation.AutoOrderPerRun, rc.now())
	rep.AutomationOrdered += n
	return err
}
