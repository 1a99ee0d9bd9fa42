package syncerror

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
)

// The lifecycle beyond a decision on a fix (README "Sync-error lifecycle"): a row may be
// retried (its failed delivery sent again) and resolved without any write.
const (
	// StatusRetrying: the delivery is being sent again, or waits for its next scheduled
	// attempt. Nobody is asked to act; the row returns to pending when retries run out or
	// a retry fails for good.
	StatusRetrying Status = "retrying"
	// StatusResolved: closed with no fix written: a retry landed (resolution "retried"),
	// or a person closed it with a reason.
	StatusResolved Status = "resolved"
)

// Resolutions of a resolved row.
const (
	ResolutionRetried       = "retried"
	ResolutionFixedAtSource = "fixed_at_source"
	ResolutionNotAnError    = "not_an_error"
	ResolutionDuplicate     = "duplicate"
)

// ResolveReasons are the reasons a person may resolve a row with.
var ResolveReasons = []string{ResolutionFixedAtSource, ResolutionNotAnError, ResolutionDuplicate}

// Statuses lists every status, for the listing's filter.
var Statuses = []Status{StatusPending, StatusRetrying, StatusApplying, StatusApproved, StatusRejected,
	StatusEscalated, StatusResolved, StatusReverted}

// Closed reports whether s ends the row: a new error with the row's signature then opens
// a new row (a recurrence) instead of folding into it.
func (s Status) Closed() bool {
	return s == StatusApproved || s == StatusRejected || s == StatusResolved || s == StatusReverted
}

// RetryState is a row's delivery retries and its occurrences.
type RetryState struct {
	// Attempts counts the delivery attempts begun.
	Attempts int
	// NextAt is, while retrying, when the schedule takes the row next; while an attempt
	// runs it is the attempt's lease, after which the schedule takes the row over.
	NextAt time.Time
	// HeldUntil is, while an attempt runs, its lease (set when it begins, removed by the
	// change that records its outcome, or any other): a change made Idle does not take
	// the row from under a live attempt.
	HeldUntil time.Time
	// LastError is the last attempt's failure, for operators.
	LastError string
	// Log lists the last MaxAttemptLog attempts, oldest first, each with its own
	// outcome. The row's error (Record) is never changed by an attempt: it stays the
	// error as received, and the attempts are listed under it.
	Log        []RetryAttempt
	Resolution string
	// Signature, Occurrences, FirstSeen and LastSeen fold recurring errors into the open
	// row (see Fold); RecurrenceOf names the closed row a new one recurs.
	Signature    string
	Occurrences  int
	FirstSeen    time.Time
	LastSeen     time.Time
	RecurrenceOf string
	// ErrorKeys are the ErrorKey of each errorId folded into the row (at most
	// MaxErrorKeys): the duplicate rule.
	ErrorKeys []string
}

// RetryChange is one conditional change of a row's retry state.
type RetryChange struct {
	// From lists the statuses the row may be in. A change to a status that Reopens the
	// row is refused (ErrStateChanged) where its fix is marked applied.
	From []Status
	// Attempts is the count of attempts the row must show; AnyAttempts skips the check.
	Attempts    int
	AnyAttempts bool
	To          Status
	// Begin counts one more attempt, held until NextAt (HeldUntil).
	Begin bool
	// Idle holds the change only while no attempt holds the row (HeldUntil absent or
	// before now): a person's resolve does not take a row whose attempt is writing.
	Idle bool
	// NextAt is stored when not zero, removed otherwise.
	NextAt     time.Time
	LastError  string
	Resolution string
	// Log, when not nil, is the row's attempt list as it is to be stored (the holder of
	// an attempt appends to the list of the row it holds; From and Attempts make sure
	// nobody changed it meanwhile). Nil keeps the stored list.
	Log   []RetryAttempt
	Entry HistoryEntry
}

// Reopens reports whether a change to status to reopens a row for a decision (pending,
// escalated, rejected): a store refuses it for a row whose fix is marked applied, whose
// record holds the fix already (rejecting it, or approving and writing again, would lie
// about the record).
func Reopens(to Status) bool {
	return to == StatusPending || to == StatusEscalated || to == StatusRejected
}

// ErrOutcomeNotRecorded wraps the failure to record a retry attempt's outcome after the
// attempt ran: what it sent was sent, whatever the row says.
var ErrOutcomeNotRecorded = errors.New("the retry ran but its outcome was not recorded")

// MaxAttemptLog bounds the attempts a row lists; the count (Attempts) goes on.
const MaxAttemptLog = 20

// RetryAttempt is one retry attempt's outcome as listed under the row's error.
type RetryAttempt struct {
	At    time.Time `json:"at"`
	Actor string    `json:"actor"`
	// You marks, in an answer only, the viewer's own attempt (queue/people.go); never stored.
	You bool `json:"you,omitempty"`
	// Result is delivered, requested (the host ERP was asked to re-run the sync),
	// transient or permanent.
	Result DeliveryResult `json:"result"`
	// System is where the attempt went; Code the vendor's (or the service's) code.
	System string `json:"system,omitempty"`
	Code   string `json:"code,omitempty"`
	// Class judges the attempt's own failure (configuration, connection, rate_limit,
	// permission, value, not_found, governance); the original error keeps its diagnosis.
	Class string `json:"class,omitempty"`
	// Reason says what happened and, for a failure, what to do; never values.
	Reason string `json:"reason,omitempty"`
}

// AppendAttempt is log with a at its end, keeping the last MaxAttemptLog.
func AppendAttempt(log []RetryAttempt, a RetryAttempt) []RetryAttempt {
	out := append(slices.Clone(log), a)
	if len(out) > MaxAttemptLog {
		out = out[len(out)-MaxAttemptLog:]
	}
	return out
}

// RetryStore holds the retry and resolve side of the row's life; every change is one
// conditional write.
type RetryStore interface {
	// ChangeRetry applies ch if the row is in one of ch.From with ch.Attempts attempts and
	// returns the row as changed. ErrStateChanged (or ErrNotFound) otherwise.
	ChangeRetry(ctx context.Context, tenantID, id string, ch RetryChange, now time.Time) (Claim, error)
	// DueRetries lists up to limit retrying rows whose NextAt is at or before before,
	// soonest first.
	DueRetries(ctx context.Context, tenantID string, before time.Time, limit int) ([]Claim, error)
}

// SortByNextAt orders rows by their next attempt, soonest first.
func SortByNextAt(cs []Claim) {
	slices.SortFunc(cs, func(a, b Claim) int {
		if c := a.Retry.NextAt.Compare(b.Retry.NextAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// RetryView is what a row shows of its retries and occurrences.
type RetryView struct {
	Resolution    string     `json:"resolution,omitempty"`
	RetryAttempts int        `json:"retryAttempts"`
	NextRetryAt   *time.Time `json:"nextRetryAt,omitempty"`
	RetryError    string     `json:"retryError,omitempty"`
	// Attempts are the last attempts, oldest first, under the error as received.
	Attempts     []RetryAttempt `json:"attempts,omitempty"`
	Occurrences  int            `json:"occurrences"`
	FirstSeen    time.Time      `json:"firstSeen"`
	LastSeen     time.Time      `json:"lastSeen"`
	RecurrenceOf string         `json:"recurrenceOf,omitempty"`
}

func RetryViewOf(c Claim) RetryView {
	v := RetryView{Resolution: c.Retry.Resolution, RetryAttempts: c.Retry.Attempts, RetryError: c.Retry.LastError,
		Occurrences: max(c.Retry.Occurrences, 1), FirstSeen: c.Retry.FirstSeen, LastSeen: c.Retry.LastSeen,
		RecurrenceOf: c.Retry.RecurrenceOf}
	if v.FirstSeen.IsZero() {
		// A row from before folding: it has one occurrence, when it was claimed.
		v.FirstSeen, v.LastSeen = c.ClaimedAt, c.ClaimedAt
	}
	if c.Status == StatusRetrying && !c.Retry.NextAt.IsZero() {
		at := c.Retry.NextAt
		v.NextRetryAt = &at
	}
	return v
}

func StatusNames() []string {
	out := make([]string, len(Statuses))
	for i, s := range Statuses {
		out[i] = string(s)
	}
	return out
}
