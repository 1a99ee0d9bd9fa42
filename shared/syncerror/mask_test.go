package syncerror_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A payload field the fix writes is shown as stored (the operator judges the fix by it);
// every other contact datum is masked.
func TestMaskerShowsWhatTheFixTouches(t *testing.T) {
	m := &syncerror.Masker{Scanner: dlp.NewScanner()}
	rec, err := m.Store(syncerror.Record{Message: "bad email jane@@example.com for bob@example.com",
		Payload: json.RawMessage(`{"email":"jane.doe@example.com","altEmail":"bob@example.com","awsSecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec.Payload), "wJalrXUtnFEMI") || !strings.Contains(string(rec.Payload), "jane.doe@example.com") {
		t.Fatalf("stored %s", rec.Payload)
	}
	shown := m.Show(rec, []syncerror.FieldChange{{Path: "email", Before: "jane.doe@example.com", After: "jane@example.com"}})
	var p map[string]string
	if err := json.Unmarshal(shown.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if p["email"] != "jane.doe@example.com" || strings.Contains(p["altEmail"], "bob@") || strings.Contains(shown.Message, "bob@example.com") {
		t.Fatalf("shown payload %v, message %q", p, shown.Message)
	}
}
