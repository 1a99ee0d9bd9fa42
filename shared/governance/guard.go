package governance

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
	// ErrApprovalDenied: the write was held for an ownership approval and an approver
	// denied it; the same write (same idempotency key) stays refused. Result.Held is it.
	ErrApprovalDenied = errors.New("governance: held write denied by an approver")
	// ErrApprovalMismatch: an approval exists under the write's idempotency key, for
	// another write (another record, entity or source, or other values). An approval
	// releases what the approver saw and nothing else, so the write is refused for good;
	// it wraps ErrInvalidRequest, which callers already treat as final.
	ErrApprovalMismatch = fmt.Errorf("governance: the idempotency key's approval is for another write: %w", ErrInvalidRequest)
	// ErrLoopDetected: the write would close a loop (its return leg, a value coming back
	// along its hop chain, or a field written too often) and was blocked.
	ErrLoopDetected = errors.New("governance: looping write blocked")
	// ErrDLPBlocked: the fields carry secrets or card data, or the scan failed.
	ErrDLPBlocked = errors.New("governance: write blocked by the DLP scan")
	// ErrMaskedValue: a field carries a DLP mask or placeholder ([REDACTED:…], *****6789, a
	// PCI mask, [EMAIL_1]); nothing was written. It wraps ErrDLPBlocked, so a caller that
	// only knows that one still treats it as a refusal for good.
	ErrMaskedValue = fmt.Errorf("governance: a value is a DLP mask or placeholder: %w", ErrDLPBlocked)
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
	// ActionSettle: an approver said whether an unsettled release's write was made.
	ActionSettle = "governance.settle"
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
	// ReleaseByRetry makes a release of this write, if it is held for an ownership
	// approval, only approve it: the write is made when its caller retries it (same
	// idempotency key), never by the release itself. For a caller whose own state decides
	// whether the write is still wanted when it is made: a finance approval can be
	// rejected while its update is held, and a release that wrote at once would write a
	// rejected approval to the ERP. The sync-error fix writer and the retry's host writes
	// set it too, and so does a flow run: it waits on the approval and writes it itself,
	// linking a created record in its cross-reference (flow's held.go).
	ReleaseByRetry bool
	// Link, when set, is what the loop check compares instead of the record and its
	// fields: see Link.
	Link *Link
	// UpsertKey and Create make the write an upsert by an external id (RecordID is its
	// value) or a create (RecordID empty): see connector.WriteRequest and guard_create.go.
	UpsertKey string
	Create    bool
}

// Link ties a write to the record it carries data from, for writes between systems
// whose entities and field names differ (a flow from an ERP customer to a CRM Account,
// and the flow back). The return leg of such a loop writes another entity with other
// field names, so only a subject and field names both directions share can show it.
type Link struct {
	// Key is the same for both directions: the two endpoints and the record, in an order
	// that does not depend on the direction.
	Key string
	// Fields are the written values under names both directions share. Key and Fields
	// are set together, or neither when no flow carries records back.
	Fields map[string]any
	// Traces are, per field of the write, where its value came from (hops.go): a field
	// whose value already passed the write's target endpoint is broken as a loop, and
	// each written field's trace, extended by the target, is kept on the target record's
	// trail. Writes with traces are also counted by the flapping cap (flapping.go).
	Traces map[string]Trace
	// Read, when set, is the trail of the record the traces end in as the caller read it
	// just before: the reciprocal check takes the link's earlier writes from it instead of
	// reading the ledger again, when it reaches back over the loop window (trail_read.go).
	Read *TrailRead
	// Changed is when the source held the values: the time its system stamped the change
	// with. Received is when the writer received that change, which orders two changes
	// stamped alike. A write with Changed set and traces is not made of fields a newer
	// change of its source record has been written to (supersede.go); zero Changed: the
	// write is not ordered (a re-run that read the source fresh).
	Changed, Received time.Time
}

// linkEntity is the ledger entity of linked writes; "~" starts no entity name a system
// uses, so a linked subject never mixes with a record's own entries.
const linkEntity = "~link"

// Result is what a guarded write did.
type Result struct {
	// Written is the record after the write; zero when nothing was written.
	Written connector.WriteResult
	// Dropped are the fields source_wins removed, sorted.
	Dropped []string
	// Held is the approval the write waits on (with ErrPendingApproval).
	Held *PendingApproval
	// Looped are the fields taken out of a write that went through because they would
	// have closed a loop (a hop chain back to the target, or the flapping cap), sorted.
	Looped []string
	// Superseded are the fields taken out because a newer change of the write's source
	// record has been written to them already (supersede.go), sorted; SupersededBy is the
	// time of the newest such change.
	Superseded   []string
	SupersededBy time.Time
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
	// Metrics receives the GuardDecisions lines; nil is emf.Out (stdout in Lambda).
	Metrics io.Writer
	// Flaps counts flow writes per record field for the flapping cap; nil turns the cap
	// off. FlapLimit and FlapWindow default to DefaultFlapLimit and DefaultFlapWindow.
	Flaps      FlapCounter
	FlapLimit  int
	FlapWindow time.Duration
}

// Guard is the guarded-write chokepoint. It is safe for concurrent use.
type Guard struct {
	manifests  ManifestSource
	ledger     Ledger
	records    RecordStore
	conns      Connectors
	scanner    *dlp.Scanner
	audit      *audit.Log
	alerter    Alerter
	now        func() time.Time
	window     time.Duration
	newID      func() string
	metrics    io.Writer
	flaps      FlapCounter
	flapLimit  int
	flapWindow time.Duration
}

// NewGuard checks d and builds the guard.
func NewGuard(d Deps) (*Guard, error) {
	switch {
	case d.Manifests == nil, d.Ledger == nil, d.Records == nil, d.Connectors == nil, d.Scanner == nil, d.Audit == nil:
		return nil, errors.New("governance: NewGuard needs Manifests, Ledger, Records, Connectors, Scanner and Audit")
	case d.LoopWindow < 0, d.FlapLimit < 0, d.FlapWindow < 0:
		return nil, errors.New("governance: LoopWindow, FlapLimit and FlapWindow must not be negative")
	}
	g := &Guard{manifests: d.Manifests, ledger: d.Ledger, records: d.Records, conns: d.Connectors,
		scanner: d.Scanner, audit: d.Audit, alerter: d.Alerter, now: d.Now, window: d.LoopWindow, newID: d.NewID,
		metrics: d.Metrics, flaps: d.Flaps, flapLimit: cmp.Or(d.FlapLimit, DefaultFlapLimit),
		flapWindow: cmp.Or(d.FlapWindow, DefaultFlapWindow)}
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
	looped   []string
	findings []findingCount
	// superseded are the fields taken out as a newer change's, supersededBy that change's
	// time (supersede.go); trail is the source record's trail as this write read it.
	superseded   []string
	supersededBy time.Time
	trail        *TrailRead
	// batchAudit says the write's audit records go with its ledger entries in one call
	// (guard_record.go); held are the records made so far that wait for it.
	batchAudit bool
	held       []audit.Record
	// settled: the write is recorded on an approver's word that it was made, not sent
	// (recordSettled); its connector.write record says so.
	settled bool
}

// write decides and counts one write: every write, whatever became of it, is one
// GuardDecisions datapoint.
func (g *Guard) write(ctx context.Context, id identity.Identity, req WriteRequest, approval *PendingApproval) (Result, error) {
	res, err := g.decide(ctx, id, req, approval)
	g.countDecision(id.TenantID, req, res, err)
	return res, err
}

// newOp is one write's state as the guard judges and records it: a release and an
// approver's settle record theirs through the same op as a write does.
func (g *Guard) newOp(ctx context.Context, id identity.Identity, req WriteRequest, approval *PendingApproval) *writeOp {
	if httpapi.CorrelationID(ctx) == "" {
		// Background work has no request id; the records and the audit still need one to
		// tie them together.
		ctx = httpapi.WithCorrelation(ctx, httpapi.Logger(ctx), "gov-"+g.newID())
	}
	op := &writeOp{
		g: g, ctx: ctx, id: id, req: req, tenant: id.TenantID, now: g.now().UTC(),
		corr:     httpapi.CorrelationID(ctx),
		resource: g.redacted(resourceOf(req), string(req.Target)+"/"+req.Entity+"/"+redactedMark),
		approval: approval, names: sortedKeys(req.Fields),
	}
	op.batchAudit = g.batchesAudit()
	return op
}

func (g *Guard) decide(ctx context.Context, id identity.Identity, req WriteRequest, approval *PendingApproval) (Result, error) {
	if err := checkRequest(id, req); err != nil {
		return Result{}, err
	}
	op := g.newOp(ctx, id, req, approval)
	ctx = op.ctx // with the correlation id newOp gave background work
	defer op.flushAudit()
	if err := op.checkSuperseded(); err != nil {
		return op.result(), err
	}
	fields := op.req.Fields
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
				return op.result(), nil
			}
		case PolicyRequireApproval:
			hold = op.approvalFor(conflicts)
		}
	}
	if len(op.dropped) > 0 {
		op.names = sortedKeys(fields)
	}
	return op.checkAndWrite(fields, hold)
}

// checkAndWrite runs the steps after the ownership check: the loop checks (reciprocal,
// then hop chains), the DLP scan, the hold or the flapping cap, and the write.
func (op *writeOp) checkAndWrite(fields map[string]any, hold *PendingApproval) (Result, error) {
	buf := getCanonicalBuf()
	canonical, err := canonicalJSON(*buf, fields, op.names)
	if err != nil {
		// The encoder's message can quote the offending value.
		return op.result(), fmt.Errorf("%w: fields are not JSON-encodable", ErrInvalidRequest)
	}
	hash := hashJSON(canonical)
	linked := op.req.Link != nil && op.req.Link.Key != ""
	if linked {
		if hash, err = PayloadHash(op.req.Link.Fields); err != nil {
			putCanonicalBuf(buf, canonical)
			return op.result(), fmt.Errorf("%w: link fields are not JSON-encodable", ErrInvalidRequest)
		}
	}
	err = op.checkLoop(hash)
	if err == nil {
		var rest map[string]any
		if rest, err = op.checkHops(fields); err == nil && len(rest) < len(fields) {
			// A subset of fields that encoded already encodes.
			fields = rest
			canonical, _ = canonicalJSON(canonical[:0], fields, op.names)
			if !linked {
				hash = hashJSON(canonical)
			}
		}
	}
	if err == nil {
		err = op.checkMasked(fields)
	}
	if err == nil {
		err = op.scan(canonical)
	}
	// Nothing keeps the canonical bytes past the scan: the ledger keeps the hash.
	putCanonicalBuf(buf, canonical)
	if err != nil {
		return op.result(), err
	}
	if hold != nil {
		if res, decided, err := op.hold(hold); !decided {
			res.Looped = op.looped
			return res, err
		}
	}
	before := len(fields)
	if fields, err = op.checkFlapping(fields); err != nil {
		return op.result(), err
	}
	if len(fields) < before && !linked {
		hash, _ = PayloadHash(fields)
	}
	return op.writeThrough(fields, hash)
}

func (op *writeOp) result() Result {
	return Result{Dropped: op.dropped, Looped: op.looped, Superseded: op.superseded, SupersededBy: op.supersededBy}
}

func checkRequest(id identity.Identity, req WriteRequest) error {
	switch {
	case !id.Attributable():
		return fmt.Errorf("%w: the identity names no tenant", ErrInvalidRequest)
	case !req.Target.Known() || !req.Source.Known():
		return fmt.Errorf("%w: unknown source or target system", ErrInvalidRequest)
	case req.Entity == "" || req.RecordID == "" && !req.Create:
		return fmt.Errorf("%w: entity and record id are required", ErrInvalidRequest)
	case req.Create && (req.RecordID != "" || req.UpsertKey != ""):
		return fmt.Errorf("%w: a create names no record id and no upsert key", ErrInvalidRequest)
	case len(req.Fields) == 0:
		return fmt.Errorf("%w: a write needs at least one field", ErrInvalidRequest)
	case req.IdempotencyKey == "":
		return fmt.Errorf("%w: idempotency key is required", ErrInvalidRequest)
	case req.Link != nil && (req.Link.Key == "") != (len(req.Link.Fields) == 0):
		return fmt.Errorf("%w: a link needs a key and fields", ErrInvalidRequest)
	case req.Link != nil && req.Link.Key == "" && len(req.Link.Traces) == 0:
		return fmt.Errorf("%w: a link needs a key and fields, or traces", ErrInvalidRequest)
	}
	if req.Link != nil {
		for name, t := range req.Link.Traces {
			if _, ok := req.Fields[name]; !ok || !t.valid() {
				return fmt.Errorf("%w: the trace of %q names no field of the write or an incomplete hop", ErrInvalidRequest, name)
			}
		}
	}
	return nil
}

// redactedMark stands for text whose scan failed.
const redactedMark = "[REDACTED]"

// redacted is s under DLP's record policy, or fallback when the scan fails. A record id
// can be personal data (a Mailchimp member is addressed by its email), and the resource
// and breaking conditions that name it go into the governance records the API serves,
// logs, alerts and returned errors.
func (g *Guard) redacted(s, fallback string) string {
	out, err := g.scanner.RedactString(dlp.Record, s)
	if err != nil {
		return fallback
	}
	return out
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
