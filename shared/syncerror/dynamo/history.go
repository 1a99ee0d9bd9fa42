package dynamo

import (
	"encoding/json"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A history entry is stored as a JSON array, [time in Unix nanoseconds, actor, action] and
// the note fourth when there is one: 33 bytes less per entry than the object it was
// ({"at":"<RFC 3339>","actor":…,"action":…}). History is in the row's by_status entry,
// which every decision rewrites, so each entry's bytes are paid again with each decision;
// an approved row's entry falls under a kilobyte (issue 37 §1). Entries stored as objects
// are read as before.
func historyList(h []syncerror.HistoryEntry) *types.AttributeValueMemberL {
	l := &types.AttributeValueMemberL{}
	for _, e := range h {
		v := []any{e.At.UnixNano(), e.Actor, e.Action}
		if e.Note != "" {
			v = append(v, e.Note)
		}
		b, _ := json.Marshal(v)
		l.Value = append(l.Value, dynamostore.Str(string(b)))
	}
	return l
}

// historyFrom reads a row's history; an entry it cannot read is left out, as before.
func historyFrom(it dynamostore.Item) []syncerror.HistoryEntry {
	l, ok := it["history"].(*types.AttributeValueMemberL)
	if !ok {
		return nil
	}
	var out []syncerror.HistoryEntry
	for _, v := range l.Value {
		if sv, ok := v.(*types.AttributeValueMemberS); ok {
			if h, ok := historyEntry(sv.Value); ok {
				out = append(out, h)
			}
		}
	}
	return out
}

func historyEntry(s string) (syncerror.HistoryEntry, bool) {
	var h syncerror.HistoryEntry
	if len(s) == 0 || s[0] != '[' {
		return h, json.Unmarshal([]byte(s), &h) == nil
	}
	var at int64
	fields := []any{&at, &h.Actor, &h.Action, &h.Note}
	if json.Unmarshal([]byte(s), &fields) != nil {
		return h, false
	}
	h.At = time.Unix(0, at).UTC()
	return h, true
}
