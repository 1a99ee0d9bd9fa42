package dynamo

import (
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// History is stored compactly and read back exactly, and entries stored as objects by an
// older version are still read (history.go).
func TestHistoryRoundTripsCompactAndReadsTheOldShape(t *testing.T) {
	at := time.Date(2026, 11, 30, 11, 36, 49, 111986079, time.UTC)
	h := []syncerror.HistoryEntry{
		{At: at, Actor: "webhook:msg_1", Action: "claimed"},
		{At: at.Add(time.Second), Actor: "approver@acme", Action: "escalated", Note: `needs "finance", [sic]`},
	}
	l := historyList(h)
	if got := historyFrom(dynamostore.Item{"history": l}); !reflect.DeepEqual(got, h) {
		t.Fatalf("read back %+v, want %+v", got, h)
	}
	stored := dynamostore.GetString(dynamostore.Item{"s": l.Value[0]}, "s")
	if want := `[1796038609111986079,"webhook:msg_1","claimed"]`; stored != want {
		t.Fatalf("stored %s, want %s", stored, want)
	}
	old := historyList(nil)
	old.Value = append(old.Value, dynamostore.Str(`{"at":"2026-11-30T11:36:49.111986079Z","actor":"webhook:msg_1","action":"claimed"}`),
		dynamostore.Str(`not json`), l.Value[1])
	if got := historyFrom(dynamostore.Item{"history": old}); !reflect.DeepEqual(got, h) {
		t.Fatalf("old and new entries read as %+v, want %+v", got, h)
	}
}
