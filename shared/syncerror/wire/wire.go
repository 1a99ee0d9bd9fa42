// Package wire builds the sync-error queue from the platform: the webhook, the operator's
// routes, the worker's store and queue, and the reconcile. It is apart from package
// syncerror so that a feature that reads the queue (the tool catalogue's
// integration_status) links the queue's types and store, not its wiring (SQS, the guard,
// the connectors).
package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/retries"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Feature is the sync-error queue built on the platform: what its Lambdas and the local
// stack need, from the environment.
type Feature struct {
	Base   *platform.Base
	Claims syncerror.ClaimStore
	Queue  syncerror.Queue
	// StuckAfter and DiagnosisStale are the reconcile's and the worker's patience.
	StuckAfter, DiagnosisStale time.Duration
	// AutoApplyPerMinute caps a tenant's enforced auto-applies (AUTO_APPLY_PER_MINUTE).
	AutoApplyPerMinute int
	// RetrySchedule is the automatic retry's schedule (RETRY_SCHEDULE).
	RetrySchedule []time.Duration
	// Flows re-runs failed flow runs for the retry; the flows feature sets it (the
	// queue's own functions link no flow, and leave those re-runs to the flow redrive).
	Flows FlowRerunner
}

// New builds the feature: claims on the processed table and the feature's settings
// (RECONCILE_STUCK_AFTER, DIAGNOSIS_STALE_AFTER). Its Queue sends nothing: the functions
// that send build it with queuewire.New, so the others link no SQS client.
func New(b *platform.Base) (*Feature, error) {
	f := &Feature{Base: b, Claims: dynamo.NewDynamoClaims(b.DB, b.Config.Table(blueprint.Processed)), Queue: missingQueue{}}
	var err error
	if f.StuckAfter, err = platform.EnvDuration(b.Getenv, "RECONCILE_STUCK_AFTER", intake.DefaultStuckAfter); err != nil {
		return nil, err
	}
	if f.DiagnosisStale, err = platform.EnvDuration(b.Getenv, "DIAGNOSIS_STALE_AFTER", diagnosis.DefaultDiagnosisStale); err != nil {
		return nil, err
	}
	if f.AutoApplyPerMinute, err = autoApplyCap(b.Getenv); err != nil {
		return nil, err
	}
	if v := b.Getenv("RETRY_SCHEDULE"); v != "" {
		if f.RetrySchedule, err = retries.ParseRetrySchedule(v); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Routes are the queue's operator routes (the webhook is ingestwire.Routes).
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	f, err := New(b)
	if err != nil {
		return nil, err
	}
	op, err := f.Operator()
	if err != nil {
		return nil, err
	}
	return withAssist(platform.Routes{
		blueprint.FuncProposalsList:    {Handler: op.ListHandler()},
		blueprint.FuncProposalDetail:   {Handler: op.DetailHandler()},
		blueprint.FuncProposalApprove:  {Handler: op.ApproveHandler()},
		blueprint.FuncProposalReject:   {Handler: op.RejectHandler()},
		blueprint.FuncProposalEscalate: {Handler: op.EscalateHandler()},
		blueprint.FuncProposalGroups:   {Handler: op.GroupsHandler()},
		blueprint.FuncProposalsBulk:    {Handler: op.BulkHandler()},
		blueprint.FuncProposalRetry:    {Handler: op.RetryHandler()},
		blueprint.FuncProposalResolve:  {Handler: op.ResolveHandler()},
		blueprint.FuncProposalTriage:   {Handler: op.TriageHandler()},
	}, op), nil
}

// mask is the data-class policy of stored sync errors (syncerror.Masker).
func (f *Feature) mask() *syncerror.Masker { return &syncerror.Masker{Scanner: f.Base.DLP()} }

// Ingest is the webhook handler on f's claims and queue, as ingestwire.Routes builds it
// for the ingest function.
func (f *Feature) Ingest() *intake.Ingest {
	return &intake.Ingest{Auth: f.Base.HostAuth(tenant.PurposeIngest), Claims: f.Claims, Queue: f.Queue, Mask: f.mask(), Now: f.Base.Clock()}
}

// Operator is the operator queue's services: the decisions over the queue's reads (and
// the approval policy they consult); approved fixes go through the guard.
func (f *Feature) Operator() (*decisions.Service, error) {
	g, err := guarded.Guard(f.Base)
	if err != nil {
		return nil, err
	}
	rt, err := f.Retrier()
	if err != nil {
		return nil, err
	}
	q := &syncerror.Operator{Claims: f.Claims, Mask: f.mask(), Tenants: f.Base.HostTenants, Audit: f.Base.Audit,
		Now: f.Base.Clock(), Fields: newFieldCatalog(guarded.Connectors(f.Base), f.Base.Clock())}
	p := &policy.Service{Operator: q, Assist: f.assist()}
	return &decisions.Service{Service: &queue.Service{Service: p}, Fixes: fixWriter{g}, Retries: rt, Evidence: f.evidence()}, nil
}

// Worker is the diagnosis worker with d (aidiagnoser gives the governed AI client's).
func (f *Feature) Worker(d syncerror.Diagnoser) *diagnosis.Worker {
	// The worker plans retries; it does not run them, so it needs no guard.
	rt := &retries.Retrier{Claims: f.Claims, Tenants: f.Base.HostTenants, Schedule: f.RetrySchedule, Now: f.Base.Clock(), Log: f.Base.Log}
	w := &diagnosis.Worker{Claims: f.Claims, Tenants: f.Base.HostTenants, Log: f.Base.Log, Now: f.Base.Clock(), StaleAfter: f.DiagnosisStale, Diagnoser: d,
		Retries: rt}
	f.automate(w)
	return w
}

// Reconcile is the 30-minute backstop.
func (f *Feature) Reconcile() *intake.Reconcile {
	return &intake.Reconcile{Tenants: f.Base.TenantsFor(), Claims: f.Claims, Queue: f.Queue, Log: f.Base.Log, Now: f.Base.Clock(),
		StuckAfter: f.StuckAfter, Host: hostErrors{guarded.Connectors(f.Base)}, Watermarks: f.Claims, Audit: f.Base.Audit,
		Writes: f.evidence(), Mask: f.mask(), Docs: f.docs(),
		SweepOrder: f.Base.JobMemory(blueprint.Processed, "reconcile sweep"),
		PollOrder:  f.Base.JobMemory(blueprint.Processed, "reconcile poll")}
}

// evidence tells whether an ended lease's write reached the host ERP: the guard's ledger,
// else the record read back and compared with what the guard sent (the manifest says what
// it left out; read on this path only, cached as the guard caches it).
func (f *Feature) evidence() ledgerWrites {
	return ledgerWrites{ledger: f.Base.Ledger(), records: recordReader{guarded.Connectors(f.Base)},
		manifests: governance.NewCachedManifests(f.Base.Manifests(), f.Base.Config.TenantCacheTTL, nil)}
}

// missingQueue fails every send with a clear error; a function that sends without the
// diagnosis queue still claims (the reconcile re-enqueues later) and says why.
type missingQueue struct{}

func (missingQueue) Send(context.Context, syncerror.Message) error {
	return fmt.Errorf("%s is not set (build the feature with queuewire.New)", blueprint.Diagnosis.EnvVar)
}

// Reporter claims sync errors other features find (a flow's failed write) through the
// webhook's claim path: the same store, queue and at-rest mask.
func (f *Feature) Reporter() *intake.Reporter {
	return &intake.Reporter{Claims: f.Claims, Queue: f.Queue, Mask: f.mask(), Now: f.Base.Clock()}
}

// Retrier runs the queue's retries: each re-runs the integration that failed (retry.go):
// the host ERP's re-run, asked through its connector, for the errors it reported; the
// flow's (Flows) for a failed flow run. The flows feature
// runs the due retries with the flow redrive and pulls them forward when its writes land.
func (f *Feature) Retrier() (*retries.Retrier, error) {
	g, err := guarded.Guard(f.Base)
	if err != nil {
		return nil, err
	}
	return &retries.Retrier{Claims: f.Claims, Deliver: deliverer{guard: g, hosts: guarded.Connectors(f.Base), flows: f.Flows, ledger: f.Base.Ledger(),
		audits: f.Base.Audit},
		Tenants: f.Base.HostTenants, Audit: f.Base.Audit, Schedule: f.RetrySchedule, Now: f.Base.Clock(), Log: f.Base.Log}, nil
}
