package toolcatalog

import "testing"

// A numeric recordId is checked as sent: the ledger is keyed by the id's text, and a
// float64 would consult another record's (12345678901234567891 read as ...7000).
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
