package syncerror

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/syncassist/syncassist/shared/tenant"
)

// DefaultStuckAfter is how long a claim may stay queued before the reconcile re-enqueues
// it. It is well above normal queue latency, so a healthy claim is not enqueued twice.
const DefaultStuckAfter = 10 * time.Minute

// TenantLister lists tenant configurations.
type TenantLister interface {
	List(ctx context.Context) ([]tenant.Config, error)
}

// Reconcile is the 30-minute backstop: per enabled tenant it re-enqueues claims stuck in
// queued. Two runs may overlap: each re-enqueue is guarded by a conditional write on the
// state the run saw, so a claim is enqueued once per reconcile round.
type Reconcile struct {
	Tenants TenantLister
	Claims  ClaimStore
	Queue   Queue
	Log     *slog.Logger
	Now     func() time.Time
	// StuckAfter overrides DefaultStuckAfter.
	StuckAfter time.Duration
}

// Report says what a reconcile run did.
type Report struct {
	Tenants    int `json:"tenants"`
	Requeued   int `json:"requeued"`
	Contended  int `json:"contended"`
	SendFailed int `json:"sendFailed"`
	Errors     int `json:"errors"`
}

const reconcilePage = 100

// Run reconciles every enabled tenant. A failure of one tenant is logged and counted; the
// others still run. It returns an error only if it could not list the tenants.
func (rc *Reconcile) Run(ctx context.Context) (Report, error) {
	var rep Report
	tenants, err := rc.Tenants.List(ctx)
	if err != nil {
		return rep, fmt.Errorf("list tenants: %w", err)
	}
	for _, t := range tenants {
		if !t.FeatureEnabled() {
			continue
		}
		rep.Tenants++
		if err := rc.requeueStuck(ctx, t.ID, &rep); err != nil {
			rep.Errors++
			rc.log().Error("reconcile tenant failed", "tenant", t.ID, "error", err)
		}
	}
	rc.log().Info("reconcile finished", "tenants", rep.Tenants, "requeued", rep.Requeued,
		"contended", rep.Contended, "sendFailed", rep.SendFailed, "errors", rep.Errors)
	return rep, nil
}

func (rc *Reconcile) requeueStuck(ctx context.Context, tenantID string, rep *Report) error {
	now := rc.now()
	after := rc.StuckAfter
	if after <= 0 {
		after = DefaultStuckAfter
	}
	cutoff := now.Add(-after)
	// Each pass re-stamps what it handles, so the next query returns fresh rows; stop when
	// a page comes back short or nothing in it could be taken.
	for {
		stuck, err := rc.Claims.Stuck(ctx, tenantID, DiagnosisQueued, cutoff, reconcilePage)
		if err != nil {
			return err
		}
		progressed := false
		for _, c := range stuck {
			err := rc.Claims.Requeue(ctx, tenantID, c.ID, c.Diagnosis, c.DiagnosisSince, now)
			if errors.Is(err, ErrStateChanged) {
				rep.Contended++
				continue
			}
			if err != nil {
				return err
			}
			progressed = true
			if err := rc.Queue.Send(ctx, Message{TenantID: tenantID, ID: c.ID}); err != nil {
				// The row is re-stamped; the next run finds it again after StuckAfter.
				rep.SendFailed++
				rc.log().Warn("re-enqueue failed", "tenant", tenantID, "id", c.ID, "error", err)
				continue
			}
			rep.Requeued++
		}
		if len(stuck) < reconcilePage || !progressed {
			return nil
		}
	}
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
