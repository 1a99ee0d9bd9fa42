package governance

import (
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/dlp"
)

// TestFindingCountsJSON pins the audit form of finding counts to what it was when the
// guard built it from dlp.Result.Counts as a list of maps, so stored audit records and
// their readers see no change.
func TestFindingCountsJSON(t *testing.T) {
	t.Parallel()
	res := dlp.Result{Findings: []dlp.Finding{{Type: "phone"}, {Type: "email"}, {Type: "phone"},
		{Type: "aws_secret_access_key"}, {Type: "email"}, {Type: "phone"}, {Type: "card_number"}}}
	got, err := json.Marshal(countFindings(res.Findings))
	if err != nil {
		t.Fatal(err)
	}
	counts := res.Counts()
	var old []map[string]any
	for _, typ := range sortedKeys(counts) {
		old = append(old, map[string]any{"type": typ, "count": counts[typ]})
	}
	want, _ := json.Marshal(old)
	if string(got) != string(want) {
		t.Fatalf("finding counts encode as %s, want %s", got, want)
	}
	if countFindings(nil) != nil {
		t.Error("no findings must give no list")
	}
}
