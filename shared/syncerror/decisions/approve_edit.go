package decisions

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The operator's edit an approve sends: its validation, and the paths an audit names.

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
