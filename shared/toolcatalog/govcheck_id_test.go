package toolcatalog

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
)

// A numeric recordId is checked as sent: the ledger is keyed by the id's text, and a
// float64 would consult another record's (12345678901234567891 read as ...7000). The
// fields too: the loop check compares their hash with the ledger's of what was written.
func TestProposedWriteKeepsANumericRecordIDsDigits(t *testing.T) {
	for raw, want := range map[string]string{
		`{"entity":"customer","recordId":12345678901234567891,"fields":{"a":1}}`: "12345678901234567891",
		`{"entity":"customer","recordId":1067,"fields":{"a":1}}`:                 "1067",
		`{"entity":"customer","recordId":"01067","fields":{"a":1}}`:              "01067",
	} {
		w, ok := parseProposedWrite([]byte(raw))
		if !ok || w.RecordID != want {
			t.Errorf("%s: recordId %q (write %v), want %q", raw, w.RecordID, ok, want)
		}
	}
}

func TestProposedWriteHashesTheFieldsAsSent(t *testing.T) {
	w, ok := parseProposedWrite([]byte(`{"entity":"customer","recordId":"C-1","fields":{"rate":1.50}}`))
	if !ok {
		t.Fatal("not a write")
	}
	got, _ := governance.PayloadHash(w.Fields)
	want, _ := governance.PayloadHash(map[string]any{"rate": json.Number("1.50")})
	if got != want {
		t.Errorf("fields %v hash as something other than the write of 1.50", w.Fields)
	}
}
