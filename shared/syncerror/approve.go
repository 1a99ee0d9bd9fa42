package syncerror

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/jsonvalue"
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

// LeaseWrite is a write an ended lease may have made: its idempotency key and the fix
// it carried (as the guard sends it, once the evidence has looked: without the fields the
// ownership manifest leaves out).
type LeaseWrite struct {
	Key string
	Fix []FieldChange
}

// LeaseWrites are the writes the lease of c may have made. A lease bound to its key has
// its own write only. One that is not (Lease.Unbound: taken before leases kept their key,
// or by a Lambda of that version over a newer lease's leftovers during a deploy) has the
// guesses, the operator's edit and the AI's fix, and the key and fix it was found with:
// those may be another lease's, but may also be its own, and the evidence looks for all.
func LeaseWrites(c Claim) []LeaseWrite {
	if c.Lease == nil {
		return nil
	}
	if c.Lease.Key != "" && !c.Lease.Unbound {
		return []LeaseWrite{{Key: c.Lease.Key, Fix: c.Lease.Fix}}
	}
	var out []LeaseWrite
	add := func(key string, fix []FieldChange) {
		for _, w := range out {
			if w.Key == key {
				return
			}
		}
		out = append(out, LeaseWrite{Key: key, Fix: fix})
	}
	if c.Lease.Key != "" {
		add(c.Lease.Key, c.Lease.Fix)
	}
	if len(c.EditedFix) > 0 {
		add(FixKey(c.ID, c.EditedFix), c.EditedFix)
	}
	if c.Proposal != nil && len(c.Proposal.Fix) > 0 {
		add(FixKey(c.ID, c.Proposal.Fix), c.Proposal.Fix)
	}
	return out
}

// WithoutPaths is fix without the changes to paths in drop (what a write left out).
func WithoutPaths(fix []FieldChange, drop []string) []FieldChange {
	out := fix[:0:0]
	for _, f := range fix {
		if !slices.Contains(drop, f.Path) {
			out = append(out, f)
		}
	}
	return out
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

// RevertChanges is the write a revert of c makes: each field the fix wrote back to what
// the record held just before it (Applied.Prior), Before the value the fix wrote. nil when
// no revert can be written: no values before were read, or one was withheld (not kept).
//
// An absent field is cleared with JSON null: NetSuite deletes a body field set to null
// (https://docs.oracle.com/en/cloud/saas/netsuite/ns-online-help/section_1545142173.html,
// "Deleting Body Fields from a Record"); Salesforce, Business Central, Mailchimp and
// ShipStation take null on a nillable field too (an assumption per vendor: one that
// refuses it answers a validation error, and the row stays approved).
func RevertChanges(c Claim) []FieldChange {
	if c.Applied == nil || len(c.Applied.Prior) == 0 {
		return nil
	}
	back := make([]FieldChange, 0, len(c.Applied.Prior))
	for _, p := range c.Applied.Prior {
		if p.Withheld {
			return nil
		}
		back = append(back, FieldChange{Path: p.Path, Before: p.Wrote, After: p.Value})
	}
	return back
}

// The audit actions of a revert (resource "syncerror/<id>"): AuditRevert is the revert, a
// success once its write landed; AuditRevertUnsettled one whose answer was lost and that
// reading the record back did not settle. A retry reads both to not write the fix over a
// revert the row does not record.
const (
	AuditRevert          = "syncerror.revert"
	AuditRevertUnsettled = "syncerror.revert_unsettled"
)

// RevertKey is the idempotency key the revert of c writes RevertChanges(c) under. A retry
// asks the guard's write ledger for it: a revert that was written but not recorded on the
// row leaves the record holding what the fix replaced, which a retry must not take for a
// lost fix and write over.
func RevertKey(c Claim) string {
	return FixKey(c.ID+"-revert", RevertChanges(c))
}

// DecodeValue decodes one JSON value of a fix, its numbers as json.Number: a number keeps
// every digit it was sent or stored with, where float64 keeps 53 bits.
func DecodeValue(b []byte) (any, error) {
	var v any
	err := jsonvalue.Unmarshal(b, &v)
	return v, err
}
