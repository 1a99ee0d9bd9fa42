package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row's triage is kept as assignee (S), tags (a string set, so adding and removing are
// commutative and need no read first) and notes (a list of JSON strings, like history).

func putTriage(it dynamostore.Item, t syncerror.Triage) {
	dynamostore.PutOptional(it, "assignee", t.Assignee)
	if len(t.Tags) > 0 {
		it["tags"] = &types.AttributeValueMemberSS{Value: slices.Clone(t.Tags)}
	}
	if len(t.Notes) > 0 {
		it["notes"] = noteList(t.Notes)
	}
}

func readTriage(it dynamostore.Item) (syncerror.Triage, error) {
	t := syncerror.Triage{Assignee: dynamostore.GetString(it, "assignee")}
	if ss, ok := it["tags"].(*types.AttributeValueMemberSS); ok {
		t.Tags = slices.Sorted(slices.Values(ss.Value))
	}
	if l, ok := it["notes"].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			var n syncerror.Note
			sv, ok := v.(*types.AttributeValueMemberS)
			if !ok || json.Unmarshal([]byte(sv.Value), &n) != nil {
				return syncerror.Triage{}, fmt.Errorf("notes: an entry is not a note")
			}
			t.Notes = append(t.Notes, n)
		}
	}
	return t, nil
}

func noteList(ns []syncerror.Note) *types.AttributeValueMemberL {
	l := &types.AttributeValueMemberL{}
	for _, n := range ns {
		b, _ := json.Marshal(n) // a Note always marshals
		l.Value = append(l.Value, dynamostore.Str(string(b)))
	}
	return l
}

// triageUpdate is the part of every triage write that records it: the history entry and
// the row's update time.
const triageUpdate = "updated_at = :now, history = list_append(if_not_exists(history, :empty), :entry)"

func triageValues(entry syncerror.HistoryEntry, now time.Time) dynamostore.Item {
	return dynamostore.Item{":now": dynamostore.Str(dynamostore.FormatTime(now)), ":empty": &types.AttributeValueMemberL{},
		":entry": historyList([]syncerror.HistoryEntry{entry})}
}

// Assign implements TriageStore: the condition is the assignee the caller saw.
func (s *DynamoClaims) Assign(ctx context.Context, tenantID, id, from, to string, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	v := triageValues(entry, now)
	cond := "attribute_exists(id) AND attribute_not_exists(assignee)"
	if from != "" {
		cond, v[":from"] = "attribute_exists(id) AND assignee = :from", dynamostore.Str(from)
	}
	update := "SET " + triageUpdate + " REMOVE assignee"
	if to != "" {
		update, v[":to"] = "SET assignee = :to, "+triageUpdate, dynamostore.Str(to)
	}
	return s.updateRow(ctx, "assign", tenantID, id, update, v, cond)
}

// Tag implements TriageStore with ADD or DELETE on the tag set; a full set refuses a new
// tag in the same condition.
func (s *DynamoClaims) Tag(ctx context.Context, tenantID, id, tag string, on bool, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	v := triageValues(entry, now)
	v[":tag"] = &types.AttributeValueMemberSS{Value: []string{tag}}
	cond, update := "attribute_exists(id)", "SET "+triageUpdate+" DELETE tags :tag"
	if on {
		v[":one"], v[":max"] = dynamostore.Str(tag), dynamostore.Num(syncerror.MaxTags)
		cond = "attribute_exists(id) AND (attribute_not_exists(tags) OR size(tags) < :max OR contains(tags, :one))"
		update = "SET " + triageUpdate + " ADD tags :tag"
	}
	c, err := s.updateRow(ctx, "tag", tenantID, id, update, v, cond)
	if errors.Is(err, syncerror.ErrStateChanged) {
		return syncerror.Claim{}, syncerror.ErrTriageFull
	}
	return c, err
}

// AddNote implements TriageStore. A note the SDK sends again after a lost answer is
// appended once (updateRow's write token).
func (s *DynamoClaims) AddNote(ctx context.Context, tenantID, id string, n syncerror.Note, entry syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	v := triageValues(entry, now)
	v[":note"], v[":max"] = noteList([]syncerror.Note{n}), dynamostore.Num(syncerror.MaxNotes)
	c, err := s.updateRow(ctx, "note", tenantID, id, "SET notes = list_append(if_not_exists(notes, :empty), :note), "+triageUpdate, v,
		"attribute_exists(id) AND (attribute_not_exists(notes) OR size(notes) < :max)")
	if errors.Is(err, syncerror.ErrStateChanged) {
		return syncerror.Claim{}, syncerror.ErrTriageFull
	}
	return c, err
}
