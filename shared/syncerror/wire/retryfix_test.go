package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Each field of the fix is judged by what the record holds now against the fix and what
// the fix replaced, exactly as the approve and the reconcile compare a record: by the
// prior value read before the approve's write where one was read (absent included), the
// change's Before where none was, and never on a guess where the prior was not kept.
func TestLostFixJudgesEachFieldByWhatTheRecordHolds(t *testing.T) {
	fix := []syncerror.FieldChange{{Path: "creditlimit", Before: json.Number("900"), After: json.Number("1500")}}
	for _, c := range []struct {
		name    string
		prior   []syncerror.PriorValue
		fix     []syncerror.FieldChange
		record  map[string]any
		lost    []string
		changed []string
		untold  []string
	}{
		{name: "holds the fix, by value", record: map[string]any{"creditlimit": json.Number("1500.00")}},
		{name: "holds the prior read", prior: []syncerror.PriorValue{{Path: "creditlimit", Value: json.Number("1000"), Wrote: json.Number("1500")}},
			record: map[string]any{"creditlimit": 1000.0}, lost: []string{"creditlimit"}},
		{name: "the prior read wins over Before", prior: []syncerror.PriorValue{{Path: "creditlimit", Value: json.Number("1000"), Wrote: json.Number("1500")}},
			record: map[string]any{"creditlimit": json.Number("900")}, changed: []string{"creditlimit"}},
		{name: "no prior read: Before", record: map[string]any{"creditlimit": json.Number("900")}, lost: []string{"creditlimit"}},
		{name: "changed since", record: map[string]any{"creditlimit": json.Number("2000")}, changed: []string{"creditlimit"}},
		{name: "absent before, absent now", prior: []syncerror.PriorValue{{Path: "creditlimit", Absent: true, Wrote: json.Number("1500")}},
			record: map[string]any{}, lost: []string{"creditlimit"}},
		{name: "absent before, null now", prior: []syncerror.PriorValue{{Path: "creditlimit", Absent: true, Wrote: json.Number("1500")}},
			record: map[string]any{"creditlimit": nil}, lost: []string{"creditlimit"}},
		{name: "absent before, a value now", prior: []syncerror.PriorValue{{Path: "creditlimit", Absent: true, Wrote: json.Number("1500")}},
			record: map[string]any{"creditlimit": json.Number("900")}, changed: []string{"creditlimit"}},
		{name: "no prior read and an empty Before: an empty field is not taken for lost", fix: []syncerror.FieldChange{{Path: "memo", Before: nil, After: "ship to DE"}},
			record: map[string]any{"memo": nil}, changed: []string{"memo"}},
		{name: "a withheld prior is not guessed", fix: []syncerror.FieldChange{{Path: "taxid", Before: "[REDACTED]", After: "DE123"}},
			prior: []syncerror.PriorValue{{Path: "taxid", Withheld: true, Wrote: "DE123"}}, record: map[string]any{"taxid": "DE999"}, untold: []string{"taxid"}},
		{name: "nested, two fields", fix: []syncerror.FieldChange{{Path: "merge_fields.FNAME", Before: "anna", After: "Anna"}, {Path: "status", Before: "x", After: "subscribed"}},
			record: map[string]any{"merge_fields": map[string]any{"FNAME": "anna", "LNAME": "Ek"}, "status": "pending"},
			lost:   []string{"merge_fields.FNAME"}, changed: []string{"status"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fix
			if c.fix != nil {
				f = c.fix
			}
			claim := syncerror.Claim{Applied: &syncerror.AppliedWrite{Key: "k", Fix: f, Prior: c.prior}}
			lost, changed, untold := lostFix(claim, c.record)
			var lostPaths []string
			for _, ch := range lost {
				lostPaths = append(lostPaths, ch.Path)
			}
			if !reflect.DeepEqual(lostPaths, c.lost) || !reflect.DeepEqual(changed, c.changed) || !reflect.DeepEqual(untold, c.untold) {
				t.Fatalf("lost %v changed %v untold %v; want lost %v changed %v untold %v", lostPaths, changed, untold, c.lost, c.changed, c.untold)
			}
		})
	}
}

// A field whose value before the fix is not kept is not said to have changed: nothing
// tells whether it lost the fix or a person set it, and the reason says so, paths only.
func TestChangedReasonTellsAnUntoldFieldFromAChangedOne(t *testing.T) {
	r := changedReason(hostWords, "customer 7", nil, []string{"taxid"})
	if strings.Contains(r, "changed since") || !strings.Contains(r, "taxid") || !strings.Contains(r, "cannot be told") {
		t.Errorf("untold only: %s", r)
	}
	r = changedReason(hostWords, "customer 7", []string{"phone"}, []string{"taxid"})
	if !strings.Contains(r, "changed since the approved fix was written (phone") || !strings.Contains(r, "it also no longer holds the approved fix in taxid") {
		t.Errorf("both: %s", r)
	}
}
