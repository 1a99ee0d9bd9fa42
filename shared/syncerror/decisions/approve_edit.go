package decisions

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The body an approve sends: its bounds, the operator's edit and its validation, the fix
// the approver was shown, and the paths an audit names.

// approveBody is the optional body of an approve: an edited fix, a note, and what the
// approver was shown.
type approveBody struct {
	Fix []struct {
		Path  string          `json:"path"`
		After json.RawMessage `json:"after"`
	} `json:"fix"`
	Note string `json:"note"`
	// CoApproval names the edit waiting for its second approval that the approver was
	// shown (the detail's coApproval.key), or "" when they were shown none: another one
	// waiting by now, or none where one was shown, is refused (409 co_approval_changed).
	// Absent, the approve approves whichever edit waits. Ignored when the approve sends a fix.
	CoApproval *string `json:"coApproval"`
	// FixKey names the fix the approver was shown (the detail's fixKey: ConfirmKey of the
	// fix an approve without an edit writes): a fix that differs by now, a kept edit that
	// appeared, a re-diagnosis or a two-approver edit entered since, is refused (409
	// fix_changed) with nothing leased, written or recorded. Absent, the approve writes the
	// row's fix as it stands (an API client's choice). Ignored when the approve sends a fix:
	// the edit is what the approver typed.
	FixKey *string `json:"fixKey"`
}

// validate checks the body's bounds, the edit aside (editedFix).
func (b approveBody) validate() *httpapi.FieldError {
	switch {
	case utf8.RuneCountInString(b.Note) > 1000:
		return &httpapi.FieldError{Field: "note", Message: "must be at most 1000 characters"}
	case b.CoApproval != nil && utf8.RuneCountInString(*b.CoApproval) > 200:
		return &httpapi.FieldError{Field: "coApproval", Message: "must be at most 200 characters"}
	case b.FixKey != nil && utf8.RuneCountInString(*b.FixKey) > 200:
		return &httpapi.FieldError{Field: "fixKey", Message: "must be at most 200 characters"}
	}
	return nil
}

// confirmed is r carrying the fix the approver was shown as the approve's confirmation
// (syncerror.WithConfirmed, as a bulk approve carries its fixKeys), so the approve's own
// checks (Unconfirmed, before the lease and in a two-approver round) refuse any other.
func (b approveBody) confirmed(r *http.Request) *http.Request {
	if b.FixKey == nil || b.Fix != nil {
		return r
	}
	return r.WithContext(syncerror.WithConfirmed(r.Context(), []string{*b.FixKey}))
}

func fixPaths(fix []syncerror.FieldChange) []string {
	out := make([]string, 0, len(fix))
	for _, f := range fix {
		out = append(out, f.Path)
	}
	return out
}

// editedFix validates an operator's edit. Before values come from the AI's proposal for
// the same path, else from the record's payload.
func editedFix(body approveBody, c syncerror.Claim) ([]syncerror.FieldChange, *httpapi.FieldError) {
	if body.Fix == nil {
		return nil, nil
	}
	if len(body.Fix) == 0 || len(body.Fix) > 100 {
		return nil, &httpapi.FieldError{Field: "fix", Message: "must list 1 to 100 field changes"}
	}
	var payload map[string]any
	_ = json.Unmarshal(c.Record.Payload, &payload)
	out := make([]syncerror.FieldChange, 0, len(body.Fix))
	seen := map[string]bool{}
	for i, f := range body.Fix {
		field := "fix[" + strconv.Itoa(i) + "]"
		// Characters, not bytes: the document's maxLength counts characters.
		if f.Path == "" || utf8.RuneCountInString(f.Path) > 256 || syncerror.HasControl(f.Path) {
			return nil, &httpapi.FieldError{Field: field + ".path", Message: "must be a field path of 1 to 256 characters"}
		}
		if seen[f.Path] {
			return nil, &httpapi.FieldError{Field: field + ".path", Message: "names a field twice"}
		}
		seen[f.Path] = true
		// A number keeps its digits (json.Number): as float64, 9007199254740993 would be
		// written 9007199254740992, and 12345678901234567890 as 1.2345678901234567e19.
		after, err := syncerror.DecodeValue(f.After)
		if len(f.After) == 0 || err != nil {
			return nil, &httpapi.FieldError{Field: field + ".after", Message: "is required"}
		}
		change := syncerror.FieldChange{Path: f.Path, Before: payload[f.Path], After: after}
		for _, p := range c.Proposal.Fix {
			if p.Path == f.Path {
				change.Before = p.Before
			}
		}
		out = append(out, change)
	}
	return out, nil
}
