// Package syncerror is the core of the sync-error feature: the inbound record and its
// validation, the claim row and its states, the fix and proposal types, folding, the store
// interfaces (their contract suites and fake are in syncerrortest) and the write-back
// contract, the automation record, and Operator, the small base the rooms' services share.
//
// The feature's rooms sit on it, each importing only rooms below it (functions/layers_test.go):
// dynamo (the DynamoDB store), retries (the Retrier), policy (the approval policy and the
// learned fixes), queue (the queue's reads: listing, search, sort, export, detail),
// decisions (approve, reject, resolve,
// retry, revert, bulk, groups, triage), automation (auto-apply, insights), intake (ingest,
// reconcile, host poll), diagnosis (the worker), then the wiring (ingestwire, wire,
// queuewire, aidiagnoser). The core imports none of them.
package syncerror

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"errors"
	"time"
)

// Status is the operator-facing state of a processed row.
type Status string

// Operator states (ARCHITECTURE.md "Processed row states").
const (
	StatusPending   Status = "pending"
	StatusApplying  Status = "applying"
	StatusApproved  Status = "approved"
	StatusRejected  Status = "rejected"
	StatusEscalated Status = "escalated"
)

// Diagnosis is the state of the AI pipeline for a row.
type Diagnosis string

// Diagnosis states.
const (
	DiagnosisQueued     Diagnosis = "queued"
	DiagnosisDiagnosing Diagnosis = "diagnosing"
	DiagnosisReady      Diagnosis = "ready"
	DiagnosisFailed     Diagnosis = "failed"
)

// Tracked reports whether claims in d can be stuck, and so are found by Stuck: queued (sent,
// not yet taken) and diagnosing (taken by a worker that may have died). A ready or failed
// claim waits for a person, not for the reconcile.
func (d Diagnosis) Tracked() bool { return d == DiagnosisQueued || d == DiagnosisDiagnosing }

// ErrUntracked is Stuck's answer for a diagnosis state no claim can be stuck in.
var ErrUntracked = errors.New("syncerror: only queued and diagnosing claims can be stuck")

// Source says how a claim arrived.
type Source string

// Claim sources.
const (
	SourceWebhook   Source = "webhook"
	SourceReconcile Source = "reconcile"
	// SourceFlow marks a claim made for a flow run whose target write failed for good: the
	// platform's own failed syncs are triaged like the host ERP's.
	SourceFlow Source = "flow"
)

// Errors a caller branches on.
var (
	ErrNotFound = errors.New("sync error not found")
	// ErrStateChanged means a conditional state change found the row in another state.
	ErrStateChanged = errors.New("sync error is in another state")
	// ErrBadCursor means a listing cursor was not issued for this listing.
	ErrBadCursor = errors.New("invalid cursor")
)

// Claim is a processed row as created at ingest and moved by the pipeline.
type Claim struct {
	TenantID string
	ID       string
	Record   Record
	// CustomerIDs are Record.CustomerIDs as a store kept them beside the record, for a
	// listing that leaves the record's payload and context out (the DynamoDB store's
	// by_status index); nil where a store keeps none (read them with CustomersOf).
	CustomerIDs []string
	Status      Status
	// Diagnosis and DiagnosisSince track the pipeline; DiagnosisSince is when the row
	// entered its diagnosis state or was last enqueued.
	Diagnosis         Diagnosis
	DiagnosisSince    time.Time
	DiagnosisAttempts int
	// DiagnosisError is the last failure of the pipeline, for operators; never payload data.
	DiagnosisError string
	// Proposal is set once Diagnosis is ready.
	Proposal *Proposal
	// EditedFix is the operator's edit of the proposal's fix, kept beside the original.
	EditedFix []FieldChange
	// Lease is set while an approve is writing the fix back (status applying).
	Lease *Lease
	// Applied is set once an approve's write-back reached the host ERP. From then on the
	// row can only end approved: the approve completes it, or the reconcile does when the
	// approve could not; it is never returned to pending, rejected or written again.
	Applied *AppliedWrite
	// ApplyError is the last write-back failure, for operators.
	ApplyError string
	// Retry holds the delivery retries, the resolution and the occurrences.
	Retry RetryState
	// Triage is the row's assignee, tags and notes.
	Triage    Triage
	History   []HistoryEntry
	Source    Source
	WebhookID string
	ClaimedAt time.Time
	UpdatedAt time.Time
}

// ClaimID derives a row id from the tenant and the host's errorId. Being a pure function of
// both, it makes the claim put idempotent in one conditional write: a redelivery maps to
// the same id, and the id reveals neither value.
func ClaimID(tenantID, errorID string) string {
	h := sha256.New()
	h.Write([]byte(tenantID))
	h.Write([]byte{0})
	h.Write([]byte(errorID))
	sum := h.Sum(nil)
	return "se_" + idEncoding.EncodeToString(sum[:16])
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// claimIDLen is the length of a ClaimID: "se_" and 16 bytes in unpadded base32.
const claimIDLen = 3 + 26

// ValidClaimID reports whether id has the shape of a ClaimID. Ids from a path or a cursor
// are checked before they reach the store: anything else (an internal row's key, a
// kilobyte of junk) is simply not found.
func ValidClaimID(id string) bool {
	if len(id) != claimIDLen || id[:3] != "se_" {
		return false
	}
	for i := 3; i < len(id); i++ {
		if c := id[i]; !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// NewClaim builds the row for a validated record.
func NewClaim(r Record, source Source, webhookID string, now time.Time) Claim {
	now = now.UTC()
	actor := "webhook:" + webhookID
	switch source {
	case SourceReconcile:
		actor = "reconcile"
	case SourceFlow:
		actor = "flow:" + webhookID
	}
	return Claim{
		History:        []HistoryEntry{{At: now, Actor: actor, Action: "claimed"}},
		TenantID:       r.TenantID,
		ID:             ClaimID(r.TenantID, r.ErrorID),
		Record:         r,
		Status:         StatusPending,
		Diagnosis:      DiagnosisQueued,
		DiagnosisSince: now,
		Source:         source,
		WebhookID:      webhookID,
		ClaimedAt:      now,
		UpdatedAt:      now,
	}
}

// ClaimStore persists claims. The package that needs storage declares it; dynamostore and
// syncerrortest implement it and share one contract suite.
type ClaimStore interface {
	// Claim inserts c if no row with its id exists. It reports false, with no error and no
	// change, when the row exists already.
	Claim(ctx context.Context, c Claim) (created bool, err error)
	// Get returns ErrNotFound for an unknown id.
	Get(ctx context.Context, tenantID, id string) (Claim, error)
	// BeginDiagnosis moves a row to diagnosing if it is queued, or diagnosing since before
	// staleBefore (a worker died); it returns the updated row. ErrStateChanged when the row
	// is in another state, ErrNotFound when there is no row.
	BeginDiagnosis(ctx context.Context, tenantID, id string, now, staleBefore time.Time) (Claim, error)
	// Stuck lists up to limit rows of a tenant in diagnosis state d since before cutoff,
	// oldest first. Only the states a claim can be stuck in are tracked (Tracked): for
	// another d it fails with ErrUntracked.
	Stuck(ctx context.Context, tenantID string, d Diagnosis, cutoff time.Time, limit int) ([]Claim, error)
	// Requeue puts the row back in queued, enqueued again at now, if it is still in the
	// diagnosis state and since-time the caller saw (so two overlapping reconciles enqueue
	// it once, and a worker that was presumed dead cannot complete its stale attempt).
	// ErrStateChanged otherwise.
	Requeue(ctx context.Context, tenantID, id string, seen Diagnosis, seenSince, now time.Time) error
	// CompleteDiagnosis stores p and moves the row to ready, if it is still diagnosing in
	// the given attempt (a worker that was overtaken cannot overwrite). ErrStateChanged
	// otherwise.
	CompleteDiagnosis(ctx context.Context, tenantID, id string, attempt int, p Proposal, now time.Time) error
	// EndDiagnosis moves a row diagnosing in the given attempt to d (queued to retry,
	// failed to give up) with the reason. ErrStateChanged otherwise.
	EndDiagnosis(ctx context.Context, tenantID, id string, attempt int, d Diagnosis, reason string, now time.Time) error
	DecisionStore
	RetryStore
	FoldStore
	TriageStore
	Watermarks
}

// Watermarks remember, per tenant, up to when the host ERP's sync errors were polled.
type Watermarks interface {
	// Watermark returns the zero time when the tenant was never polled.
	Watermark(ctx context.Context, tenantID string) (time.Time, error)
	// AdvanceWatermark sets the watermark to next if it is still prev; ErrStateChanged if
	// an overlapping run moved it first.
	AdvanceWatermark(ctx context.Context, tenantID string, prev, next time.Time) error
}

// Message is the body of a diagnosis queue message.
type Message struct {
	TenantID string `json:"tenantId"`
	ID       string `json:"id"`
}

// Queue sends diagnosis messages.
type Queue interface {
	Send(ctx context.Context, m Message) error
}

// ParseMessage decodes a queue message body.
func ParseMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.TenantID == "" || m.ID == "" {
		return Message{}, errors.New("message without tenantId or id")
	}
	return m, nil
}
