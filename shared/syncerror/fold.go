package syncerror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Recurring errors fold. A sync error whose signature (tenant, system, record type,
// record id, error code, and message with numbers and ids normalised) matches a row that
// is still open is an occurrence of that row, not a new row. Once the row is closed, the
// same signature opens a new row flagged as a recurrence of the closed one.
//
// How, in one conditional write per post. A signature's open row is keyed by the
// signature and a generation: ClaimID(tenant, "sig:"+signature+"#"+generation). The post
// reads the signature's generation (a read, no write) and makes one conditional update of
// that row: create it if absent; else, if it is still open and has not seen this errorId,
// count one more occurrence. DynamoDB applies one item's update atomically, so concurrent
// posts serialise on that row: each adds exactly one occurrence, and the first creates it.
// A redelivered errorId finds its key in the row's error keys and changes nothing (the
// duplicate rule). Only a post that finds the row closed writes more: it advances the
// signature's generation (conditional on the one it read, so concurrent posts advance it
// once) and keeps the closed row's error keys there, so a late redelivery of an errorId
// of the closed row is still a duplicate, then creates the next generation's row.
//
// The duplicate rule also holds when a redelivery's content changed (the host edited the
// error: another message is another signature). After the conditional write, an
// unconditional, idempotent put records errorId → row; a post first reads it. That put
// decides nothing: if it is lost, only a redelivery whose content changed counts again.

// FoldResult is what a post did to its signature's row.
type FoldResult int

// Fold results.
const (
	FoldCreated    FoldResult = iota // a new row (possibly a recurrence)
	FoldOccurrence                   // one more occurrence of the open row
	FoldDuplicate                    // the errorId was seen already: nothing changed
	FoldClosed                       // the row is closed: advance the generation and post again
)

// MaxErrorKeys bounds the errorId keys a row keeps for the duplicate rule; past it,
// occurrences are still counted, and a redelivery of a key not kept counts again.
const MaxErrorKeys = 1000

// SignatureState is where a signature stands: its generation (how many of its rows were
// closed) and the error keys of the last closed row.
type SignatureState struct {
	Generation int
	ClosedKeys []string
}

// FoldStore folds posts into their signature's row.
type FoldStore interface {
	// SignatureState returns the signature's state (zero when it has none).
	SignatureState(ctx context.Context, tenantID, signature string) (SignatureState, error)
	// Fold creates c (keyed by its signature and generation) if absent, or counts one
	// more occurrence at c.ClaimedAt if the row is open and has not seen errorKey. It
	// returns the row as it stands after the write (as before it, for FoldDuplicate and
	// FoldClosed).
	Fold(ctx context.Context, c Claim, errorKey string) (FoldResult, Claim, error)
	// AdvanceSignature moves the signature from generation gen to gen+1, keeping keys as
	// the closed row's error keys. ErrStateChanged when it is no longer at gen.
	AdvanceSignature(ctx context.Context, tenantID, signature string, gen int, keys []string) error
	// ErrorRow returns the row an errorId (its ErrorKey) was recorded on, "" when none,
	// and, for a checked arrival, the message its webhook-id was recorded with, "" when
	// none: one read either way (the replay check costs the hot path no round trip).
	ErrorRow(ctx context.Context, tenantID, errorKey string, d Arrival) (rowID, message string, err error)
	// PutErrorRow records that errorKey's error is on row id and, for a checked arrival,
	// its webhook-id's message (idempotent; one write).
	PutErrorRow(ctx context.Context, tenantID, errorKey, id string, d Arrival) error
}

// Arrival is how a sync error arrived: the webhook-id (or flow run) it came with and, for
// a signed webhook, the message that id names: the sync error's ErrorKey. Standard
// Webhooks makes a webhook-id one message's: the same id for the same sync error is a
// redelivery, its body edited or not (the host ERP's script derives the id from tenant and
// errorId, so a second save of a record re-sends it), answered as the duplicate it is;
// the same id for another sync error is a replay (ErrReplayed), as the flow route refuses
// an id used for another event. An Arrival without a message (reconcile, flows) is not
// checked.
type Arrival struct{ WebhookID, Message string }

// Checked reports whether the replay check applies to d.
func (d Arrival) Checked() bool { return d.WebhookID != "" && d.Message != "" }

// ErrReplayed is a webhook-id recorded before for another sync error. Nothing was stored.
// Two concurrent first uses of one id for different errors may both pass: the check reads
// before the fold and records after it. That is no gap a third party can use: the
// signature binds the body to the id, so only the secret's holder can make either.
var ErrReplayed = errors.New("syncerror: webhook-id already used for another sync error")

var (
	uuidPattern   = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	hexIDPattern  = regexp.MustCompile(`(?i)\b[0-9a-f-]{12,}\b`)
	numberPattern = regexp.MustCompile(`[0-9]+([.,][0-9]+)*`)
	spacePattern  = regexp.MustCompile(`\s+`)
)

// NormalizeMessage makes messages that differ only in numbers and ids equal: uuids and
// hex ids of 12 or more characters become "<id>", runs of digits "#", and case and
// spacing are folded.
func NormalizeMessage(m string) string {
	m = uuidPattern.ReplaceAllString(m, "<id>")
	m = hexIDPattern.ReplaceAllStringFunc(m, func(s string) string {
		if strings.ContainsAny(s, "0123456789") {
			return "<id>"
		}
		return s
	})
	m = numberPattern.ReplaceAllString(m, "#")
	return strings.ToLower(strings.TrimSpace(spacePattern.ReplaceAllString(m, " ")))
}

// Signature is the hex SHA-256 of what makes two sync errors the same error.
func Signature(r Record) string {
	h := sha256.New()
	for _, part := range []string{r.TenantID, r.ExternalSystem, r.Direction, r.RecordType, r.RecordID, r.ErrorCode,
		NormalizeMessage(r.Message)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// SignatureRowID is the id of the row of a signature's generation.
func SignatureRowID(tenantID, signature string, gen int) string {
	return ClaimID(tenantID, "sig:"+signature+"#"+strconv.Itoa(gen))
}

// RowID is the id of the first row the record opens (its signature's generation 0): the
// row a test or a tool finds a freshly posted error under.
func RowID(r Record) string { return SignatureRowID(r.TenantID, Signature(r), 0) }

// ErrorKey is the key the duplicate rule keeps for an errorId.
func ErrorKey(errorID string) string {
	sum := sha256.Sum256([]byte(errorID))
	return hex.EncodeToString(sum[:12])
}

// maxFoldRounds bounds how often a post follows a signature to its next generation (a
// row closed under it); two suffice unless rows are closed as fast as posts arrive.
const maxFoldRounds = 4

// fold stores c as its signature's open row or an occurrence of it.
func fold(ctx context.Context, s ClaimStore, c Claim, d Arrival) (FoldResult, Claim, error) {
	sig, key := Signature(c.Record), ErrorKey(c.Record.ErrorID)
	c.Retry.Signature, c.Retry.Occurrences = sig, 1
	c.Retry.FirstSeen, c.Retry.LastSeen = c.ClaimedAt, c.ClaimedAt
	c.Retry.ErrorKeys = []string{key}
	if !d.Checked() {
		d = Arrival{}
	}
	if id, msg, err := s.ErrorRow(ctx, c.TenantID, key, d); err != nil {
		return 0, Claim{}, err
	} else if msg != "" && msg != d.Message {
		return 0, Claim{}, ErrReplayed
	} else if id != "" {
		row, err := s.Get(ctx, c.TenantID, id)
		return FoldDuplicate, row, err
	}
	for range maxFoldRounds {
		st, err := s.SignatureState(ctx, c.TenantID, sig)
		if err != nil {
			return 0, Claim{}, err
		}
		if contains(st.ClosedKeys, key) && st.Generation > 0 {
			prev, err := s.Get(ctx, c.TenantID, SignatureRowID(c.TenantID, sig, st.Generation-1))
			return FoldDuplicate, prev, err
		}
		c.ID = SignatureRowID(c.TenantID, sig, st.Generation)
		c.Retry.RecurrenceOf = ""
		if st.Generation > 0 {
			c.Retry.RecurrenceOf = SignatureRowID(c.TenantID, sig, st.Generation-1)
		}
		res, row, err := s.Fold(ctx, c, key)
		if err == nil && (res == FoldCreated || res == FoldOccurrence) {
			if perr := s.PutErrorRow(ctx, c.TenantID, key, row.ID, d); perr != nil {
				httpapi.Logger(ctx).Warn("errorId not recorded for redeliveries; the row is stored", "id", row.ID, "error", perr)
			}
		}
		if err != nil || res != FoldClosed {
			return res, row, err
		}
		keys := row.Retry.ErrorKeys
		if err := s.AdvanceSignature(ctx, c.TenantID, sig, st.Generation, keys); err != nil && err != ErrStateChanged {
			return 0, Claim{}, err
		}
	}
	return 0, Claim{}, ErrStateChanged
}

func contains(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// occurred is row after the occurrence c counted on it.
func occurred(row, c Claim, errorKey string, keep bool) Claim {
	row.Retry.Occurrences++
	row.Retry.LastSeen = c.ClaimedAt
	if keep {
		row.Retry.ErrorKeys = append(row.Retry.ErrorKeys, errorKey)
	}
	return row
}
