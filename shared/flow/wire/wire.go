// Package wire builds the flows feature from the platform: its store, the executor over
// the guard, and the sync-error reporter its failed runs go to. It is apart from package
// flow so that the flow types and store link neither the guard nor the sync-error queue.
package wire

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/adminwire"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/queuewire"
	"github.com/syncassist/syncassist/shared/tenant"
)

// New builds the flows service: runs and flows in the flows table, writes through the
// guard, permanent failures claimed as sync errors.
func New(b *platform.Base) (*flow.Service, error) {
	g, err := guarded.Guard(b)
	if err != nil {
		return nil, err
	}
	se, err := queuewire.New(b)
	if err != nil {
		return nil, err
	}
	store := flow.NewDynamoStore(b.DB, b.Config.Table(blueprint.Flows))
	// The executors read the tenant's flows through a per-process cache (issue 37 §3);
	// the settings routes (Service.Store) read the table.
	runs := flow.NewCachedFlows(store, b.Config.TenantCacheTTL, nil)
	x := &flow.Executor{Store: runs, Guard: g, SyncErrors: Reporter{se.Reporter()}, Now: b.Clock(),
		Trails: governance.Trails{Ledger: b.GovernanceStore()}, XRefs: store, Finder: adminwire.Finders{Connectors: guarded.Connectors(b)}}
	// The sync-error retries run with this executor's redrive, and every run's write that
	// lands pulls forward the retries waiting on its system ("connection back online").
	// The retries of failed runs re-run the flow with an executor of their own: its
	// failures are the retry's attempts, never new sync errors.
	se.Flows = FlowReruns{X: &flow.Executor{Store: runs, Guard: g, Now: b.Clock(), Trails: x.Trails, XRefs: store, Finder: x.Finder},
		Read: adminwire.Connectors{Registry: guarded.Connectors(b)}}
	rt, err := se.Retrier()
	if err != nil {
		return nil, err
	}
	x.Others = rt
	x.Written = func(ctx context.Context, tenantID string, s connector.System) {
		if _, err := rt.PullForward(ctx, tenantID, string(s)); err != nil {
			b.Log.Warn("retries not pulled forward; they run on schedule", "tenant", tenantID, "system", s, "error", err)
		}
	}
	conns := adminwire.Connectors{Registry: guarded.Connectors(b)}
	return &flow.Service{Store: store, Exec: x, Claims: store, Poller: &flow.Poller{Exec: x, Source: Sources{guarded.Connectors(b)}},
		SourceAuth: SourceAuth(b), Audit: b.Audit, Now: b.Clock(), Manifests: b.Manifests(),
		Evaluator: g, Reader: conns, Describer: conns, MetaCache: store}, nil
}

// SourceAuth verifies each source system's change events with its own secrets.
func SourceAuth(b *platform.Base) map[connector.System]*hostauth.Authenticator[tenant.Config] {
	out := map[connector.System]*hostauth.Authenticator[tenant.Config]{}
	for _, sys := range connector.Systems {
		a := b.HostAuth(tenant.FlowPurpose(string(sys)))
		a.Hint = flow.SignatureHint(sys)
		out[sys] = a
	}
	return out
}

// Sources reads changed records through the tenants' connectors: a read, which needs no
// guard.
type Sources struct{ Connectors *connector.Registry }

// Changes implements flow.ChangeSource.
func (s Sources) Changes(ctx context.Context, tenantID string, system connector.System, entity string, since time.Time, cursor string, limit int) (connector.ChangePage, error) {
	c, err := s.Connectors.Client(ctx, tenantID, system)
	if err != nil {
		return connector.ChangePage{}, err
	}
	return c.Changes(ctx, entity, since, cursor, limit)
}

// Routes are the flows' HTTP functions (the local stack), each built as its deployed
// function builds it: EventRoutes, and adminwire.Routes for the routes that run no flow.
func Routes(ctx context.Context, b *platform.Base) (platform.Routes, error) {
	routes, err := adminwire.Routes(ctx, b)
	if err != nil {
		return nil, err
	}
	event, err := EventRoutes(ctx, b)
	if err != nil {
		return nil, err
	}
	maps.Copy(routes, event)
	return routes, nil
}

// EventRoutes is the change event's function alone: the whole service (New), and none of
// the admin routes' handlers.
func EventRoutes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return platform.Routes{blueprint.FuncFlowEvent: {Handler: s.EventHandler()}}, nil
}

// RedriveReport is what one redrive run did.
type RedriveReport struct {
	Attempted     int `json:"attempted"`
	TenantsFailed int `json:"tenantsFailed"`
	// TenantsOff were skipped: sync_error_assist.enabled is not 'true'.
	TenantsOff int `json:"tenantsOff"`
}

// switchedOff reports whether the tenant's sync_error_assist.enabled is off. Its scheduled
// flow work (poll, redrive) then waits, as its pushed events are refused: a switched-off
// tenant gets no writes. (Pushed events need sync_error_assist.webhook_enabled as well,
// as every inbound webhook does; the schedules are no webhook.)
func switchedOff(ctx context.Context, b *platform.Base, tenantID string) (bool, error) {
	cfg, err := b.Tenants.Get(ctx, tenantID)
	if err != nil {
		return false, fmt.Errorf("read tenant flags: %w", err)
	}
	return !cfg.Flag(tenant.KeyEnabled), nil
}

// RedriveAll retries every tenant's due runs; one tenant's failure is logged and the
// others still run.
func RedriveAll(ctx context.Context, b *platform.Base, x *flow.Executor) (RedriveReport, error) {
	var rep RedriveReport
	failed, err := b.EachTenant(ctx, "flow redrive", blueprint.Flows, func(ctx context.Context, tenantID string) error {
		if off, err := switchedOff(ctx, b, tenantID); err != nil || off {
			rep.TenantsOff += btoi(off)
			return err
		}
		n, err := x.Redrive(ctx, tenantID)
		rep.Attempted += n
		return err
	})
	rep.TenantsFailed = failed
	b.Log.Info("flow redrive finished", "attempted", rep.Attempted, "tenantsFailed", rep.TenantsFailed, "tenantsOff", rep.TenantsOff)
	return rep, err
}

// RedriveLambda is the flow-redrive function's entry point.
func RedriveLambda(_ context.Context, b *platform.Base) (func(context.Context, events.EventBridgeEvent) (RedriveReport, error), error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) (RedriveReport, error) {
		return RedriveAll(ctx, b, s.Exec)
	}, nil
}

// PollReport is what one poll of every tenant did.
type PollReport struct {
	flow.PollReport
	TenantsFailed int `json:"tenantsFailed"`
	// TenantsOff were skipped: sync_error_assist.enabled is not 'true'.
	TenantsOff int `json:"tenantsOff"`
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PollAll runs every tenant's poll flows; one tenant's failure is logged and the others
// still run.
func PollAll(ctx context.Context, b *platform.Base, p *flow.Poller) (PollReport, error) {
	var rep PollReport
	failed, err := b.EachTenant(ctx, "flow poll", blueprint.Flows, func(ctx context.Context, tenantID string) error {
		if off, err := switchedOff(ctx, b, tenantID); err != nil || off {
			rep.TenantsOff += btoi(off)
			return err
		}
		r, err := p.Poll(ctx, tenantID)
		rep.Sources, rep.Changes, rep.Runs, rep.Failed = rep.Sources+r.Sources, rep.Changes+r.Changes, rep.Runs+r.Runs, rep.Failed+r.Failed
		rep.Skipped += r.Skipped
		return err
	})
	rep.TenantsFailed = failed
	b.Log.Info("flow poll finished", "sources", rep.Sources, "changes", rep.Changes, "runs", rep.Runs,
		"sourcesFailed", rep.Failed, "sourcesSkipped", rep.Skipped, "tenantsFailed", rep.TenantsFailed, "tenantsOff", rep.TenantsOff)
	return rep, err
}

// PollLambda is the flow-poll function's entry point.
func PollLambda(_ context.Context, b *platform.Base) (func(context.Context, events.EventBridgeEvent) (PollReport, error), error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) (PollReport, error) {
		return PollAll(ctx, b, s.Poller)
	}, nil
}

// Reporter files a run that failed for good as a sync error of the target's record: the
// run id is its errorId, so reporting a run twice claims it once.
type Reporter struct{ R *intake.Reporter }

// Report implements flow.SyncErrors. The context names the flow's systems: an approved
// fix of this sync error is the run's write corrected, written to the run's target in
// the name of its source (see syncerror/wire's fix writer).
func (r Reporter) Report(ctx context.Context, run flow.Run, cause string) (string, error) {
	payload, err := json.Marshal(pendingFields(run))
	if err != nil {
		return "", err
	}
	fc := map[string]any{"id": run.FlowID, "runId": run.ID, "eventId": run.EventID,
		"source": run.Source.System, "sourceEntity": run.Source.Entity, "sourceRecordId": run.RecordID, "target": run.Target.System}
	// The sync error is about the target's record, the one the run wrote (TargetID: for a
	// flow without a match the source's id, for one with a match the counterpart). A run
	// of a flow with a match can fail before it knows the counterpart (the create was
	// refused, several records hold the key, the cross-reference failed for good): the
	// sync error then says the record is not known, rather than name the source's id,
	// which in the target system is another record or none; its approve is refused
	// (syncerror.FlowTargetUnknown) and its retry re-runs the flow, which finds the record
	// through its match.
	recordID, what := run.TargetID, run.Target.String()+" "+run.TargetID
	if run.TargetID == "" {
		recordID = unknownTarget(run)
		what = run.Target.String() + " (its record is not known) for " + run.Source.String() + " " + run.RecordID
		fc[syncerror.FlowTargetUnknownKey] = true
	} else {
		fc["targetRecordId"] = run.TargetID
	}
	flowCtx, err := json.Marshal(map[string]any{"flow": fc})
	if err != nil {
		return "", err
	}
	return r.R.Report(ctx, syncerror.Record{
		TenantID: run.TenantID, ErrorID: run.ID, RecordType: run.Target.Entity, RecordID: recordID,
		ErrorCode: "FLOW_WRITE_FAILED", Message: fmt.Sprintf("Flow %s could not write %s (fields %s): %s", run.FlowID,
			what, strings.Join(run.Fields, ", "), cause),
		OccurredAt: run.UpdatedAt, Integration: "flow:" + run.FlowID, ExternalSystem: string(run.Target.System),
		Direction: "outbound", Payload: payload, Context: flowCtx,
	}, syncerror.SourceFlow, run.ID)
}

// unknownTarget stands in a sync error for a target record the run does not know: text
// no system uses as an id (a row needs a record id), naming the source record so that
// the failures of two source records stay two rows (the fold's signature takes the id).
func unknownTarget(run flow.Run) string {
	id := "(unknown, from " + run.Source.String() + "/" + run.RecordID + ")"
	if utf8.RuneCountInString(id) <= maxRecordID {
		return id
	}
	sum := sha256.Sum256([]byte(run.RecordID))
	return "(unknown, from " + run.Source.String() + " record " + hex.EncodeToString(sum[:8]) + ")"
}

// maxRecordID is the longest record id a sync error takes (syncerror.ParseRecord).
const maxRecordID = 256

// pendingFields are the values the run was to write, what the diagnosis reasons about;
// the claim path masks them at rest like any payload.
func pendingFields(run flow.Run) map[string]any {
	if run.Pending == nil {
		return map[string]any{}
	}
	return run.Pending.Fields
}
