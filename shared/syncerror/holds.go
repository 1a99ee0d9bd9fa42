package syncerror

import (
	"encoding/json"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// RecordHolds reports whether a record's fields hold every value of fix: how a write whose
// answer was lost is settled (the approve's read-back, the reconcile's, an approve that
// meets an ended lease). An empty fix is held by nothing: it proves no write.
func RecordHolds(fields map[string]any, fix []FieldChange) bool {
	for _, ch := range fix {
		if !FieldHolds(fields, ch) {
			return false
		}
	}
	return len(fix) > 0
}

// FieldHolds reports whether a record's fields hold the value ch wrote: an absent field
// holds only a write of null.
func FieldHolds(fields map[string]any, ch FieldChange) bool {
	v, ok := FieldAt(fields, ch.Path)
	return (ok || ch.After == nil) && SameHeld(v, ch.After)
}

// SameHeld reports whether a record's value is the value a fix wrote, exactly: numbers by
// value at every digit (the record reads 1500.00 where the fix wrote 1500, and
// 9007199254740992 is not 9007199254740993, which float64 would call equal), objects as
// subsets (a partial update of a sub-record leaves its other fields), everything else as
// JSON. It is connector.Holds, the comparison a connector settles its own writes by, so
// the approve, the reconcile and the revert all judge a record the same way.
func SameHeld(have, wrote any) bool {
	h, ok := asJSON(map[string]any{"v": have})
	return ok && connector.Holds(h, map[string]any{"v": wrote})
}

// asJSON is m after a JSON round trip with its numbers as json.Number (Holds normalises
// only what it is given to look for): a record read as float64 compares by its digits too.
func asJSON(m map[string]any) (map[string]any, bool) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	var out map[string]any
	return out, jsonvalue.Unmarshal(b, &out) == nil
}

// FieldAt finds path in a record's fields: a top-level field, or one nested under an
// object ("merge_fields.FNAME" is Mailchimp's merge_fields object's FNAME).
func FieldAt(fields map[string]any, path string) (any, bool) {
	if v, ok := fields[path]; ok {
		return v, true
	}
	head, rest, ok := strings.Cut(path, ".")
	if !ok {
		return nil, false
	}
	inner, isObj := fields[head].(map[string]any)
	if !isObj {
		return nil, false
	}
	return FieldAt(inner, rest)
}
