package decisions

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// maxEditNote bounds, in characters, the edit an approve's history entry names: the
// history is in the row's by_status entry and rewritten with every decision (issue 37 §1),
// and an edit may list 100 changes.
const maxEditNote = 500

// approveNote is the note of an approve's history entry: the operator's note, and the
// edit the approve carries, when it carries one.
//
// Why the edit is named here: a write that does not happen takes its edit off the row
// (DecisionStore.FinishApply), so that a row decided again holds none and every bodyless
// approve, bulk preview, policy decision and detail agrees on the AI's fix. We chose that
// over writing the leftover edit on the next bodyless approve because the console never
// offers a stored edit for approval: its diff shows the AI's values, and an edit lives in
// its inputs, kept there after a refused approve so the operator can correct and resend
// it. A stored edit that the host ERP refused (say 400 INVALID_FLD_VALUE) would otherwise
// be written by a bulk approver who never saw it. This entry is where the attempt stays:
// an operator who opens the row later reads what was tried and what the host ERP said
// (the apply_failed entry after it).
//
// The values are masked for the history (Masker.HistoryNote: nothing of a credential typed
// into an edit is kept, a card number only as its PCI mask, contact data and IBANs as an
// answer shows them); when they cannot be scanned, the entry names the edited fields alone.
func (o *Service) approveNote(ctx context.Context, note string, edited []syncerror.FieldChange) string {
	if len(edited) == 0 {
		return note
	}
	paths := make([]string, 0, len(edited))
	changes := make([]string, 0, len(edited))
	for _, c := range edited {
		v, err := json.Marshal(c.After) // a json.Number keeps its digits
		if err != nil {
			v = []byte("?")
		}
		paths = append(paths, c.Path)
		changes = append(changes, c.Path+" = "+string(v))
	}
	desc := strings.Join(changes, ", ")
	masked, err := o.Mask.HistoryNote(desc)
	if err != nil {
		httpapi.Logger(ctx).Warn("edit not masked for the history; naming its fields alone", "error", err)
		masked = strings.Join(paths, ", ")
	}
	if utf8.RuneCountInString(masked) > maxEditNote {
		masked = string([]rune(masked)[:maxEditNote-1]) + "…"
	}
	if note == "" {
		return "edited fix: " + masked
	}
	return note + " (edited fix: " + masked + ")"
}
