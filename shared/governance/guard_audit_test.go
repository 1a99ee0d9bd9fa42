package governance

import (
	"encoding/json"
	"testing"
)

// TestFindingListJSON pins the audit form of finding counts to what the list of maps it
// replaced encoded to, so stored audit records and their readers see no change.
func TestFindingListJSON(t *testing.T) {
	t.Parallel()
	counts := map[string]int{"phone": 2, "email": 1, "aws_secret_access_key": 3}
	got, err := json.Marshal(findingList(counts))
	if err != nil {
		t.Fatal(err)
	}
	var old []map[string]any
	for _, typ := range []string{"aws_secret_access_key", "email", "phone"} {
		old = append(old, map[string]any{"type": typ, "count": counts[typ]})
	}
	want, _ := json.Marshal(old)
	if string(got) != string(want) {
		t.Fatalf("findingList encodes as %s, want %s", got, want)
	}
}
