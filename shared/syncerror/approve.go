package syncerror

import (
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

// FixKeys are the idempotency keys a write-back of c may have carried: its operator's
// edit, and the AI's fix (an approve without an edit writes that one).
func FixKeys(c Claim) []string {
	var keys []string
	if len(c.EditedFix) > 0 {
		keys = append(keys, FixKey(c.ID, c.EditedFix))
	}
	if c.Proposal != nil && len(c.Proposal.Fix) > 0 {
		keys = append(keys, FixKey(c.ID, c.Proposal.Fix))
	}
	return keys
}

// FixKey is the idempotency key of writing fix for a claim: the same fix always carries
// the same key, so a retried or taken-over approve is replayed by the ERP, never applied
// twice; an edited fix is a different write with a different key.
func FixKey(claimID string, fix []FieldChange) string {
	b, _ := json.Marshal(fix)
	sum := sha256.Sum256(b)
	return claimID + "-" + hex.EncodeToString(sum[:8])
}
