package flow

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
)

// Outcome is where a run ended, or retrying while it has not.
type Outcome = delivery.Outcome

// Run outcomes; see the package documentation.
const (
	OutcomeWritten    = delivery.Written
	OutcomeSkipped    = delivery.Skipped
	OutcomeRejected   = delivery.Rejected
	OutcomeHeld       = delivery.Held
	OutcomeLoopBroken = delivery.LoopBroken
	OutcomeFailed     = delivery.Failed
	OutcomeRetrying   = delivery.Retrying
)

// Outcomes lists every outcome, for the listing's filter.
var Outcomes = []Outcome{OutcomeWritten, OutcomeSkipped, OutcomeRejected, OutcomeHeld, OutcomeLoopBroken,
	OutcomeFailed, OutcomeRetrying}

// Run is one flow's handling of one event.
type Run struct {
	ID       string           `json:"id"`
	TenantID string           `json:"-"`
	FlowID   string           `json:"flowId"`
	EventID  string           `json:"eventId"`
	Source   Endpoint         `json:"source"`
	Target   Endpoint         `json:"target"`
	RecordID string           `json:"recordId"`
	System   connector.System `json:"-"`
	// Fields are the target fields the run writes (or wrote), sorted; never their values.
	Fields  []string `json:"fields"`
	Outcome Outcome  `json:"outcome"`
	// Decision says in words what decided the outcome: the guard's breaking condition,
	// the dropped fields, the target's error class.
	Decision string   `json:"decision,omitempty"`
	Dropped  []string `json:"dropped,omitempty"`
	// Looped are fields the guard took out because their value would have returned to
	// where it came from, or the field was written too often (flapping).
	Looped []string `json:"looped,omitempty"`
	// Superseded are fields the guard took out because a newer change of the source
	// record has been written to them already (governance's supersede.go): a run whose
	// every field is superseded ends skipped.
	Superseded  []string `json:"superseded,omitempty"`
	ApprovalID  string   `json:"approvalId,omitempty"`
	SyncErrorID string   `json:"syncErrorId,omitempty"`
	Attempts    int      `json:"attempts"`
	// NextAttemptAt is set while the run is retrying: when the redrive may take it.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
	ChangedAt     time.Time  `json:"changedAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	// Pending holds what a retrying run still has to write: the mapped values and their
	// link. It is dropped when the run ends, so customer values are kept only as long as
	// a retry needs them.
	Pending *Pending `json:"-"`
	// TargetID is the target record the run wrote (or writes), once known, and
	// TargetAction whether the run created it, matched it (first found it) or updated
	// the counterpart the cross-reference knew.
	TargetID     string `json:"targetId,omitempty"`
	TargetAction string `json:"targetAction,omitempty"`
	// claimed says this attempt holds the cross-reference claim of its source record and
	// gives it up if it ends without linking; false for a claim marked Creating, which is
	// kept (releaseClaim).
	claimed bool
	// trailRead is the trail of the source record read when the run started, for the
	// loop check of its first attempt; a run the redrive takes has none (trace.go).
	trailRead *governance.TrailRead
}

// Pending is the write a retrying run has still to make.
type Pending struct {
	Fields map[string]any `json:"fields"`
	Link   map[string]any `json:"link"`
	// Traces are where each field's value came from, read when the run started.
	Traces map[string]governance.Trace `json:"traces,omitempty"`
	// Match is the flow's match at the event, and Key the match key the event carried, as
	// text (what a find or an upsert address takes).
	Match *Match `json:"match,omitempty"`
	Key   string `json:"key,omitempty"`
	// KeyValue is the key as the source typed it (a number, a boolean), when that is not
	// text: a create sets the match field to it, so the target gets the type the source
	// sent, not the key's text. Absent (runs stored before it, or a text key): Key.
	KeyValue any `json:"keyValue,omitempty"`
	// Created is the id of a record an earlier attempt created but could not link yet.
	Created string `json:"created,omitempty"`
}

// keyField is the value a create sets the match field to: the key as the source typed it.
func (p *Pending) keyField() any {
	if p.KeyValue != nil {
		return p.KeyValue
	}
	return p.Key
}

// RunID derives the id of a flow's run for an event of several runs, so a redelivered
// event maps to the same runs: "run_" and 26 base32 characters of SHA-256(tenant, system,
// event, flow).
func RunID(tenantID string, system connector.System, eventID, flowID string) string {
	return hashRunID(tenantID, string(system), eventID, flowID)
}

// EventRunID is the event's own key: the id of its run when it starts one (SoleRun), and
// where a store keeps its run ids when it starts none or several. It leaves the flow out,
// so a redelivery meets the first delivery there whichever flows match it now. Hashed from
// three parts, it is never a RunID (four).
func EventRunID(tenantID string, system connector.System, eventID string) string {
	return hashRunID(tenantID, string(system), eventID)
}

func hashRunID(parts ...string) string {
	h := sha256.New()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return "run_" + base32.StdEncoding.EncodeToString(h.Sum(nil))[:26]
}

// SoleRun gives the run of an event that starts one run only the event's id (EventRunID),
// as Store.StartRuns wants it.
func SoleRun(tenantID string, system connector.System, eventID string, runs []Run) {
	if len(runs) == 1 {
		runs[0].ID = EventRunID(tenantID, system, eventID)
	}
}

// ValidRunID reports whether id can be a run's id, before a store sees it.
func ValidRunID(id string) bool {
	if len(id) != 30 || id[:4] != "run_" {
		return false
	}
	for _, c := range id[4:] {
		if !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// Errors a store returns.
var (
	ErrNotFound = errors.New("flow: not found")
	// ErrTaken: the run was taken by another attempt (its attempt count moved on).
	ErrTaken = errors.New("flow: run taken by another attempt")
	// ErrBadCursor: a listing cursor was not issued by this listing.
	ErrBadCursor = errors.New("flow: invalid cursor")
	// ErrReservedEventID: a pushed event used an id of the poller's (PollEventPrefix).
	ErrReservedEventID = errors.New("flow: event id reserved for the poller")
)

// RunQuery selects runs of a tenant, newest first.
type RunQuery struct {
	FlowID  string
	Outcome Outcome
	Limit   int
	Cursor  string
}

// Started is what StartRuns did with an event's runs.
type Started struct {
	// IDs are the event's run ids as first stored.
	IDs []string
	// New says this call stored the event; false is a redelivery, which starts nothing.
	New bool
	// OnRecord are the runs of this call stored already by another delivery of the event:
	// one that failed before it stored the event, or one that lost the event's key to
	// this call. That delivery attempted none of them (Executor.resume).
	OnRecord []string
}

// Store keeps a tenant's flows, the events they received and their runs.
type Store interface {
	Flows(ctx context.Context, tenantID string) ([]Flow, error)
	Flow(ctx context.Context, tenantID, id string) (Flow, error)
	PutFlow(ctx context.Context, tenantID string, f Flow) error
	// DeleteFlow returns ErrNotFound when there is no such flow.
	DeleteFlow(ctx context.Context, tenantID, id string) error

	// StartRuns stores runs that do not exist yet (a run that exists is left as it is)
	// and then the event with their ids. A lone run has the event's id (SoleRun) and is
	// the event's record itself; runs of an event of several have their flows' (RunID).
	StartRuns(ctx context.Context, tenantID string, system connector.System, eventID string, runs []Run) (Started, error)
	// SaveRun writes r if the stored run is still retrying, or held (its approval
	// watched: held.go), with attempts attempts; ErrTaken otherwise (it ended, or another
	// attempt took it).
	SaveRun(ctx context.Context, r Run, attempts int) error
	Run(ctx context.Context, tenantID, id string) (Run, error)
	Runs(ctx context.Context, tenantID string, q RunQuery) (runs []Run, next string, err error)
	// DueRuns lists up to limit retrying runs whose next attempt is at or before now, and
	// apart from them up to limit held runs whose next check of their approval is: held
	// runs, however many, take no place of a retrying run.
	DueRuns(ctx context.Context, tenantID string, now time.Time, limit int) ([]Run, error)

	// Watermark is how far the poll of src has read; ErrNotFound before its first poll.
	Watermark(ctx context.Context, tenantID string, src Endpoint) (Watermark, error)
	// SaveWatermark stores w if the stored watermark was last polled at prev (nil: if
	// there is none yet); ErrTaken when another poll saved first.
	SaveWatermark(ctx context.Context, tenantID string, w Watermark, prev *time.Time) error
}
