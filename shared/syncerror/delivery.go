package syncerror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
)

// The retry contract: what a retry's delivery answers, the Deliverer the wiring gives the
// retries room, the key and the fix an attempt carries, and what the operator's retry route
// asks of the retries room (RetryRunner).

// RetryRunner runs one retry of c for actor and returns the row as it ended (the retries
// room's Retrier).
type RetryRunner interface {
	Attempt(ctx context.Context, actor identity.Identity, c Claim) (Claim, error)
}

// DeliveryResult is what came of sending a delivery again.
type DeliveryResult string

// Delivery results.
const (
	Delivered         DeliveryResult = "delivered"
	DeliveryTransient DeliveryResult = "transient"
	DeliveryPermanent DeliveryResult = "permanent"
	// DeliveryRequested: the host ERP was asked to re-run the sync itself; its answer is
	// read at the next attempt.
	DeliveryRequested DeliveryResult = "requested"
)

// Classes of an attempt's own failure (RetryAttempt.Class). The row's error keeps its
// diagnosis: an attempt that fails is judged as what it is.
const (
	// AttemptConfiguration: nothing can re-run the sync as the tenant is set up (no
	// connector, no host record named, no flow); an admin or the integration must act.
	AttemptConfiguration = "configuration"
	AttemptConnection    = "connection"
	AttemptRateLimit     = "rate_limit"
	AttemptPermission    = "permission"
	// AttemptValue: the system refused the values as they stand.
	AttemptValue    = "value"
	AttemptNotFound = "not_found"
	// AttemptGovernance: the guard refused or held the write (ownership, loop, DLP).
	AttemptGovernance = "governance"
)

// Delivery is one attempt's outcome, fit for operators (no values).
type Delivery struct {
	Result DeliveryResult
	System string
	// Reason says what happened and, for a failure, what to do.
	Reason string
	// Code is the vendor's code, or the service's (RETRY_…) where no vendor answered.
	Code       string
	Class      string
	RetryAfter time.Duration
	// Reverted says the attempt found the row's applied fix reverted (written back, the
	// row's marking lost) and wrote nothing: the attempt ends the row reverted, as that
	// marking would have, so no later retry (a bulk one, or one past the ledger's day)
	// takes the record's values before the fix for a lost fix and writes it again.
	Reverted bool
}

// Deliverer re-runs the integration a row's error came from.
type Deliverer interface {
	// Target names the system a row's re-run writes to.
	Target(c Claim) string
	// Rerun re-runs the sync c failed, from its source of truth, with the fix approved
	// for c (ApprovedFix). key names the attempt (RetryKey): the same attempt carries the
	// same key, so one that wrote and died is replayed, never applied twice.
	Rerun(ctx context.Context, actor string, c Claim, key string) Delivery
}

// ErrNotRetryable means the row is in a state no retry starts from.
var ErrNotRetryable = errors.New("the sync error cannot be retried in its state")

// ApprovedFix is the fix a retry of c writes with it: the fields and values a person
// approved (or a policy rule applied) as the approve wrote them (WrittenFix: typed, the
// edit that was written, not one abandoned); nil otherwise. It is the only value a retry
// carries that is not read fresh from a system of record.
func ApprovedFix(c Claim) map[string]any {
	fix := WrittenFix(c)
	if len(fix) == 0 {
		return nil
	}
	return FixFields(fix)
}

// FixFields are the fields a fix writes: each path with its value after.
func FixFields(fix []FieldChange) map[string]any {
	fields := make(map[string]any, len(fix))
	for _, f := range fix {
		fields[f.Path] = f.After
	}
	return fields
}

// RetryKey names one retry attempt of c (held for it: c.Retry.Attempts counts it) and
// what it carries, the approved fix: the same attempt always carries the same key, so an
// attempt that wrote and died is replayed by its target, never applied twice. The next
// attempt carries another: the re-run it asks for is a new one.
func RetryKey(c Claim) string {
	b, _ := json.Marshal(ApprovedFix(c)) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return c.ID + "-r" + hex.EncodeToString(sum[:8]) + "-a" + strconv.Itoa(c.Retry.Attempts)
}
