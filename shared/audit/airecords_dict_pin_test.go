package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// Traces stored in data_z1 are inflated with traceDict1, and a wrong dictionary can
// inflate to wrong bytes without an error: an edit to it would garble every trace stored
// with it while the round-trip tests still pass. So its bytes are pinned; a better
// dictionary is a new constant and a new attribute (airecords_dict.go).
func TestTraceDictionaryOneNeverChanges(t *testing.T) {
	sum := sha256.Sum256([]byte(traceDict1))
	if got, want := hex.EncodeToString(sum[:]), "cc255122bbd5eb622db0a1c898a27caef10148793f32b757a313f2bdd3bed6d3"; got != want {
		t.Fatalf("traceDict1 changed (sha256 %s, %d bytes); traces in data_z1 were deflated against the one of sha256 %s", got, len(traceDict1), want)
	}
}
