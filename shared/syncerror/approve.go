package syncerror

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// ErrFixUnrecorded wraps the error of a write-back that reached the host ERP but whose
// ledger entry or audit record could not be stored: the write happened, and the approve
// completes as one that succeeded.
var ErrFixUnrecorded = errors.New("the fix was written but not fully recorded")

// PartialFixError reports a write-back that reached the host ERP without some fields of
// the fix: the ownership manifest gives them to another system under source_wins. The
// approve succeeds and says which fields were left out.
type PartialFixError struct{ Dropped []string }

func (e *PartialFixError) Error() string {
	return "the fix was written without fields owned by another system: " + strings.Join(e.Dropped, ", ")
}

// FixKeys are the idempotency keys a write-back of c may have carried: the key of the
// write its lease carries. A lease taken before the lease kept its key (an upgrade while
// an approve was applying) has only the guesses: the operator's edit and the AI's fix.
func FixKeys(c Claim) []string {
	if c.Lease != nil && c.Lease.Key != "" {
		return []string{c.Lease.Key}
	}
	var keys []string
	if len(c.EditedFix) > 0 {
		keys = append(keys, FixKey(c.ID, c.EditedFix))
	}
	if c.Proposal != nil && len(c.Proposal.Fix) > 0 {
		keys = append(keys, FixKey(c.ID, c.Proposal.Fix))
	}
	return keys
}

// WrittenFix is the fix the row's write-back wrote, typed as written; nil when no write
// is marked applied. A row approved before the written fix was kept has its values in
// Prior (each Wrote, as written, without dropped fields); one without them has none to
// give, and nothing is guessed from the proposal or an edit (either may not be the fix
// that was written).
func WrittenFix(c Claim) []FieldChange {
	if c.Applied == nil {
		return nil
	}
	if len(c.Applied.Fix) > 0 {
		return c.Applied.Fix
	}
	var fix []FieldChange
	for _, p := range c.Applied.Prior {
		fix = append(fix, FieldChange{Path: p.Path, Before: p.Value, After: p.Wrote})
	}
	return fix
}

// FixKey is the idempotency key of writing fix for a claim: the same fix always carries
// the same key, so a retried or taken-over approve is replayed by the ERP, never applied
// twice; an edited fix is a different write with a different key.
func FixKey(claimID string, fix []FieldChange) string {
	b, _ := json.Marshal(fix)
	sum := sha256.Sum256(b)
	return claimID + "-" + hex.EncodeToString(sum[:8])
}

// DecodeValue decodes one JSON value of a fix, its numbers as json.Number: a number keeps
// every digit it was sent or stored with, where float64 keeps 53 bits.
func DecodeValue(b []byte) (any, error) {
	var v any
	err := UnmarshalNumbers(b, &v)
	return v, err
}

// UnmarshalNumbers is json.Unmarshal with numbers decoded as json.Number, for the stored
// forms of a fix (an edit, the fix written, the values before it): what is read back is
// what was written, digit for digit.
func UnmarshalNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}
