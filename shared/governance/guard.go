package governance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Sentinel errors callers branch on with errors.Is. Connector failures are returned
// wrapped, so errors.Is(err, connector.ErrConflict) and the like work too.
var (
	// ErrOwnershipRejected: a reject_with_alert owner refused the whole write.
	ErrOwnershipRejected = errors.New("governance: write refused by the ownership manifest")
	// ErrPendingApproval: the write is held; Result.Held is the approval.
	ErrPendingApproval = errors.New("governance: write held for ownership approval")
	// ErrLoopDetected: the write is the return leg of a loop and was blocked.
	ErrLoopDetected = errors.New("governance: reciprocal write blocked")
	// ErrDLPBlocked: the fields carry secrets or card data, or the scan failed.
	ErrDLPBlocked = errors.New("governance: write blocked by the DLP scan")
	// ErrNotConfigured: the tenant has no connector for the target system. It wraps
	// connector.ErrNotConfigured.
	ErrNotConfigured = fmt.Errorf("governance: %w", connector.ErrNotConfigured)
	// ErrInvalidRequest: the request cannot be a write (no tenant, unknown system, no
	// fields, no idempotency key, fields that are not JSON).
	ErrInvalidRequest = errors.New("governance: invalid write request")
	// ErrUnavailable: a check could not run (manifest, ledger or approval store failed);
	// nothing was written, and retrying later is safe.
	ErrUnavailable = errors.New("governance: a governance check could not run")
	// ErrNotRecorded: the write reached the target but its ledger entry or audit record
	// could not be stored. Result.Written is valid. Retrying with the same idempotency key
	// replays the write at the target and records it.
	ErrNotRecorded = errors.New("governance: write applied but not fully recorded")
)

// Audit action keys written by the guard and the approval handlers.
const (
	ActionConnectorWrite    = "connector.write"
	ActionDLPScan           = "dlp.scan"
	ActionOwnershipReject   = "governance.reject"
	ActionApprovalRequested = "governance.approval_requested"
	ActionLoopDetected      = "governance.loop_detected"
	ActionApprove           = "governance.approve"
	ActionDeny              = "governance.deny"
)

// WriteRequest is a guarded write of some fields of one record.
type WriteRequest struct {
	// Target is the system written to.
	Target connector.System
	// Source is the system whose data or authority the write carries; it is the origin
	// tag the target sees and what the ownership check compares with the owner. For an
	// operator-approved fix written back to the host ERP, Source == Target.
	Source   connector.System
	Entity   string
	RecordID string
	// Fields holds only the fields to change.
	Fields map[string]any
	// IdempotencyKey is required; derive it from what the write is for (the approval or
	// proposal id) so that retrying the whole operation replays at the target.
	IdempotencyKey string
	// Reason names the operation asking, e.g. "syncerror.approve", for the audit trail.
	Reason string
	// IfVersion makes the write conditional on the record's version (connector.ErrConflict).
	IfVersion string
}

// Result is what a guarded write did.
type Result struct {
	// Written is the record after the write; zero when nothing was written.
	Written connector.WriteResult
	// Dropped are the fields source_wins removed, sorted.
	Dropped []string
	// Held is the approval the write waits on (with ErrPendingApproval).
	Held *PendingApproval
}

// Writer writes one record; *connector.Client implements it.
type Writer interface {
	Write(ctx context.Context, req connector.WriteRequest) (connector.WriteResult, error)
}

// Connectors gives the tenant's Writer for a system. It returns an error wrapping
// connector.ErrNotConfigured for a system the tenant has no connector for.
type Connectors interface {
	Client(ctx context.Context, tenantID string, system connector.System) (Writer, error)
}

// RegistryConnectors adapts a connector.Registry to Connectors.
func RegistryConnectors(r *connector.Registry) Connectors { return registryConnectors{r} }

type registryConnectors struct{ r *connector.Registry }

func (a registryConnectors) Client(ctx context.Context, tenantID string, system connector.System) (Writer, error) {
	c, err := a.r.Client(ctx, tenantID, system)
	if err != nil {
		// A nil *Client in a non-nil Writer would defeat the caller's nil check.
		return nil, err
	}
	return c, nil
}

// Deps are the guard's dependencies. Alerter, Now, LoopWindow and NewID are optional.
type Deps struct {
	Manifests  ManifestSource
	Ledger     Ledger
	Records    RecordStore
	Connectors Connectors
	Scanner    *dlp.Scanner
	Audit      *audit.Log
	// Alerter is told of reject_with_alert rejections; nil records them without alerting.
	Alerter Alerter
	Now     func() time.Time
	// LoopWindow defaults to DefaultLoopWindow.
	LoopWindow time.Duration
	NewID      func() string
}

// Guard is the guarded-write chokepoint. It is safe for concurrent use.
type Guard struct {
	manifests ManifestSource
	ledger    Ledger
	records   RecordStore
	conns     Connectors
	scanner   *dlp.Scanner
	audit     *audit.Log
	alerter   Alerter
	now       func() time.Time
	window    time.Duration
	newID     func() string
}

// NewGuard checks d and builds the guard.
func NewGuard(d Deps) (*Guard, error) {
	switch {
	case d.Manifests == nil, d.Ledger == nil, d.Records == nil, d.Connectors == nil, d.Scanner == nil, d.Audit == nil:
		return nil, errors.New("governance: NewGuard needs Manifests, Ledger, Records, Connectors, Scanner and Audit")
	case d.LoopWindow < 0:
		return nil, errors.New("governance: LoopWindow must not be negative")
	}
	g := &Guard{manifests: d.Manifests, ledger: d.Ledger, records: d.Records, conns: d.Connectors,
		scanner: d.Scanner, audit: d.Audit, alerter: d.Alerter, now: d.Now, window: d.LoopWindow, newID: d.NewID}
	if g.now == nil {
		g.now = time.Now
	}
	if g.window == 0 {
		g.window = DefaultLoopWindow
	}
	if g.newID == nil {
		g.newID = randomID
	}
	return g, nil
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Write is the only way the service writes through a connector. It runs ownership check,
// loop check, DLP scan, connector write, ledger and audit, in that order; see the package
// documentation for what each step decides. id is the identity the write is attributed to
// (the operator, or background work for the tenant); its tenant selects the manifest, the
// connector and the records.
func (g *Guard) Write(ctx context.Context, id identity.Identity, req WriteRequest) (Result, error) {
	return g.write(ctx, id, req, nil)
}

// release writes a held approval through the guard. The approver's decision satisfies
// the ownership check; everything else runs as for any write. It is unexported so that
// nothing outside this package can skip the ownership check.
func (g *Guard) release(ctx context.Context, id identity.Identity, a PendingApproval) (Result, error) {
	if a.Tenant != id.TenantID {
		return Result{}, fmt.Errorf("%w: approval of another tenant", ErrInvalidRequest)
	}
	return g.write(ctx, id, a.Request, &a)
}

// writeOp is one guarded write in progress.
type writeOp struct {
	g        *Guard
	ctx      context.Context
	id       identity.Identity
	req      WriteRequest
	tenant   string
	now      time.Time
	corr     string
	resource string
	approval *PendingApproval
	names    []string
	dropped  []string
	findings map[string]int
}

func (g *Guard) write(ctx context.Context, id identity.Identity, req WriteRequest, approval *PendingApproval) (Result, error) {
	if err := checkRequest(id, req); err != nil {
		return Result{}, err
	}
	if httpapi.CorrelationID(ctx) == "" {
		// Background work has no request id; the records and the audit still need one to
		// tie them together.
		ctx = httpapi.WithCorrelation(ctx, httpapi.Logger(ctx), "gov-"+g.newID())
	}
	op := &writeOp{
		g: g, ctx: ctx, id: id, req: req, tenant: id.TenantID, now: g.now().UTC(),
		corr:     httpapi.CorrelationID(ctx),
		resource: string(req.Target) + "/" + req.Entity + "/" + req.RecordID,
		approval: approval,
	}
	fields := req.Fields
	op.names = sortedKeys(fields)
	var hold *PendingApproval
	if approval == nil {
		m, err := g.manifests.Manifest(ctx, op.tenant)
		if err != nil {
			op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
			return Result{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		conflicts := ownershipConflicts(m, req, op.names)
		switch strictest(conflicts) {
		case PolicyRejectWithAlert:
			return Result{}, op.reject(conflicts)
		case PolicySourceWins:
			fields = op.dropConflicts(conflicts)
			if len(fields) == 0 {
				op.auditWrite(audit.ResultDenied, "fields_dropped", nil)
				return Result{Dropped: op.dropped}, nil
			}
		case PolicyRequireApproval:
			hold = op.approvalFor(conflicts)
		}
	}
	if len(op.dropped) > 0 {
		op.names = sortedKeys(fields)
	}
	buf := getCanonicalBuf()
	canonical, err := canonicalJSON(*buf, fields, op.names)
	if err != nil {
		// The encoder's message can quote the offending value.
		return Result{Dropped: op.dropped}, fmt.Errorf("%w: fields are not JSON-encodable", ErrInvalidRequest)
	}
	hash := hashJSON(canonical)
	err = op.checkLoop(hash)
	if err == nil {
		err = op.scan(canonical)
	}
	// Nothing keeps the canonical bytes past the scan: the ledger keeps the hash.
	putCanonicalBuf(buf, canonical)
	if err != nil {
		return Result{Dropped: op.dropped}, err
	}
	if hold != nil {
		return op.hold(hold)
	}
	return op.writeThrough(fields, hash)
}

func checkRequest(id identity.Identity, req WriteRequest) error {
	switch {
	case !id.Attributable():
		return fmt.Errorf("%w: the identity names no tenant", ErrInvalidRequest)
	case !req.Target.Known() || !req.Source.Known():
		return fmt.Errorf("%w: unknown source or target system", ErrInvalidRequest)
	case req.Entity == "" || req.RecordID == "":
		return fmt.Errorf("%w: entity and record id are required", ErrInvalidRequest)
	case len(req.Fields) == 0:
		return fmt.Errorf("%w: a write needs at least one field", ErrInvalidRequest)
	case req.IdempotencyKey == "":
		return fmt.Errorf("%w: idempotency key is required", ErrInvalidRequest)
	}
	return nil
}

func (op *writeOp) checkLoop(hash string) error {
	if op.req.Source == op.req.Target {
		return nil
	}
	since := op.now.Add(-op.g.window)
	entries, err := op.g.ledger.Recent(op.ctx, op.tenant, op.req.Entity, op.req.RecordID, since)
	if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return fmt.Errorf("%w: reading the write ledger: %w", ErrUnavailable, err)
	}
	cond, loop := reciprocal(entries, op.req.Source, op.req.Target, hash, op.names, since)
	if !loop {
		return nil
	}
	l := LoopDetection{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity, Caller: op.req.Source,
		Target: op.req.Target, BreakingCondition: cond, CorrelationID: op.corr, Resource: op.resource,
	}
	if err := op.g.records.PutLoop(op.ctx, l); err != nil {
		httpapi.Logger(op.ctx).Error("loop detection not recorded", "loopId", l.ID, "error", err)
	}
	httpapi.Logger(op.ctx).Warn("reciprocal write blocked", "loopId", l.ID, "resource", l.Resource, "condition", cond)
	op.auditGovernance(ActionLoopDetected, audit.ResultDenied, map[string]any{
		"loopId": l.ID, "caller": string(l.Caller), "target": string(l.Target), "entity": l.Entity,
		"breakingCondition": cond, "fields": op.names,
	})
	op.auditWrite(audit.ResultDenied, "loop_detected", nil)
	return fmt.Errorf("%w: %s", ErrLoopDetected, cond)
}

// scan runs the DLP scan with the connector-write policy and fails closed.
func (op *writeOp) scan(canonical []byte) error {
	res, err := op.g.scanner.ScanJSON(dlp.ConnectorWrite, canonical)
	if err != nil {
		op.auditWrite(audit.ResultDenied, "dlp_blocked", map[string]any{"dlpError": true})
		return fmt.Errorf("%w: the scan failed: %w", ErrDLPBlocked, err)
	}
	if len(res.Findings) > 0 {
		op.findings = res.Counts()
		result := audit.ResultSuccess
		if res.Blocked {
			result = audit.ResultDenied
		}
		_ = op.auditAs(audit.TypeDLP, ActionDLPScan, result, map[string]any{
			"destination": string(dlp.ConnectorWrite), "findings": findingList(op.findings), "total": len(res.Findings),
			"blocked": res.Blocked,
		})
	}
	if res.Blocked {
		op.auditWrite(audit.ResultDenied, "dlp_blocked", nil)
		return fmt.Errorf("%w: %w", ErrDLPBlocked, res.Err())
	}
	return nil
}

// hold stores the write as a pending approval instead of writing it.
func (op *writeOp) hold(a *PendingApproval) (Result, error) {
	err := op.g.records.PutApproval(op.ctx, *a)
	if errors.Is(err, ErrExists) {
		existing, gerr := op.g.records.GetApproval(op.ctx, op.tenant, a.ID)
		if gerr != nil {
			op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
			return Result{}, fmt.Errorf("%w: reading the held approval: %w", ErrUnavailable, gerr)
		}
		a, err = &existing, nil
	} else if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return Result{}, fmt.Errorf("%w: holding the write: %w", ErrUnavailable, err)
	} else {
		op.auditGovernance(ActionApprovalRequested, audit.ResultSuccess, map[string]any{
			"approvalId": a.ID, "declaredOwner": string(a.DeclaredOwner), "caller": string(a.Caller),
			"target": string(a.Target), "entity": a.Entity, "fields": a.Fields,
		})
	}
	op.auditWrite(audit.ResultDenied, "held", map[string]any{"approvalId": a.ID})
	return Result{Held: a}, fmt.Errorf("%w: approval %s", ErrPendingApproval, a.ID)
}

func (op *writeOp) writeThrough(fields map[string]any, hash string) (Result, error) {
	res := Result{Dropped: op.dropped}
	w, err := op.g.conns.Client(op.ctx, op.tenant, op.req.Target)
	if err != nil {
		if errors.Is(err, connector.ErrNotConfigured) {
			op.auditWrite(audit.ResultFailure, "not_configured", nil)
			return res, fmt.Errorf("%w: %s: %w", ErrNotConfigured, op.req.Target, err)
		}
		op.auditWrite(audit.ResultFailure, "connector_error", map[string]any{"connectorError": connectorErrorKind(err)})
		return res, fmt.Errorf("governance: connector %s: %w", op.req.Target, err)
	}
	out, err := w.Write(op.ctx, connector.WriteRequest{
		Entity: op.req.Entity, RecordID: op.req.RecordID, Fields: fields,
		IdempotencyKey: op.req.IdempotencyKey, Origin: string(op.req.Source), IfVersion: op.req.IfVersion,
	})
	if err != nil {
		op.auditWrite(audit.ResultFailure, "connector_error", map[string]any{"connectorError": connectorErrorKind(err)})
		return res, fmt.Errorf("governance: write %s: %w", op.resource, err)
	}
	res.Written = out
	var recordErrs []error
	entry := LedgerEntry{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Source: op.req.Source, Target: op.req.Target,
		Entity: op.req.Entity, RecordID: op.req.RecordID, Fields: op.names, PayloadHash: hash,
		IdempotencyKey: op.req.IdempotencyKey, CorrelationID: op.corr,
	}
	if err := op.g.ledger.Append(op.ctx, entry); err != nil {
		httpapi.Logger(op.ctx).Error("write ledger entry not stored", "resource", op.resource, "error", err)
		recordErrs = append(recordErrs, fmt.Errorf("ledger: %w", err))
	}
	if err := op.auditWrite(audit.ResultSuccess, "written", map[string]any{"replayed": out.Replayed}); err != nil {
		recordErrs = append(recordErrs, fmt.Errorf("audit: %w", err))
	}
	if len(recordErrs) > 0 {
		return res, fmt.Errorf("%w: %w", ErrNotRecorded, errors.Join(recordErrs...))
	}
	return res, nil
}

// auditWrite writes the connector.write record of this attempt: what was asked and what
// came of it, with field names and counts, never values. Its error matters only after a
// write (ErrNotRecorded); on a refusal the refusal stands and the failure is logged.
func (op *writeOp) auditWrite(result, outcome string, extra map[string]any) error {
	names := op.names
	if names == nil {
		names = sortedKeys(op.req.Fields)
	}
	d := map[string]any{
		"target": string(op.req.Target), "source": string(op.req.Source), "entity": op.req.Entity,
		"fields": names, "fieldCount": len(names), "outcome": outcome,
		"idempotencyKey": op.req.IdempotencyKey,
	}
	if op.req.Reason != "" {
		d["reason"] = op.req.Reason
	}
	if len(op.dropped) > 0 {
		d["dropped"] = op.dropped
		d["droppedCount"] = len(op.dropped)
	}
	if len(op.findings) > 0 {
		d["dlpFindings"] = findingList(op.findings)
	}
	if op.approval != nil {
		d["approvalId"] = op.approval.ID
	}
	maps.Copy(d, extra)
	return op.auditAs(audit.TypeConnector, ActionConnectorWrite, result, d)
}

func (op *writeOp) auditGovernance(key, result string, details map[string]any) {
	_ = op.auditAs(audit.TypeGovernance, key, result, details)
}

func (op *writeOp) auditAs(typ, key, result string, details map[string]any) error {
	err := op.g.audit.Write(op.ctx, audit.Entry{
		Actor: op.id, ActionType: typ, ActionKey: key, Result: result, Resource: op.resource, Details: details,
	})
	if err != nil {
		httpapi.Logger(op.ctx).Error("audit record not written", "actionKey", key, "resource", op.resource, "error", err)
	}
	return err
}

// findingCount is one element of findingList. Its fields are in the order encoding/json
// writes a map's keys, so the audit record reads {"count":1,"type":"email"} as it always
// did; a struct encodes without the reflection and sorting of a map.
type findingCount struct {
	Count int    `json:"count"`
	Type  string `json:"type"`
}

// findingList is the audit form of finding counts: a list of {type, count}, because the
// audit redactor would take a map keyed "aws_secret_access_key" or "private_key" for
// secret-named fields and redact the counts.
func findingList(counts map[string]int) []findingCount {
	out := make([]findingCount, 0, len(counts))
	for _, typ := range sortedKeys(counts) {
		out = append(out, findingCount{Count: counts[typ], Type: typ})
	}
	return out
}

// connectorErrorKind names a connector failure for the audit record without its text.
func connectorErrorKind(err error) string {
	for _, k := range []struct {
		err  error
		name string
	}{
		{connector.ErrNotFound, "not_found"}, {connector.ErrConflict, "conflict"},
		{connector.ErrValidation, "validation"}, {connector.ErrUnauthorized, "unauthorized"},
		{connector.ErrRateLimited, "rate_limited"}, {connector.ErrUnavailable, "unavailable"},
		{connector.ErrUnsupported, "unsupported"}, {connector.ErrInvalidConfig, "invalid_config"},
		{context.DeadlineExceeded, "timeout"}, {context.Canceled, "canceled"},
	} {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return "other"
}

// sortedKeys is slices.Sorted(maps.Keys(m)) in one allocation; it runs on every write.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
