package governance_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
)

// Manifest validation: any document is refused with ErrInvalidManifest or is a manifest
// that survives a JSON round trip still valid, and merges onto the default without panic.
func FuzzManifestValidate(f *testing.F) {
	def, _ := json.Marshal(governance.DefaultManifest())
	f.Add(def)
	f.Add([]byte(`{"entries":[{"entity":"contact","field":"email","owner":"crm","policy":"source_wins"}]}`))
	f.Add([]byte(`{"entries":[{"entity":"a","owner":"crm"},{"entity":"A","owner":"crm"}]}`))
	f.Add([]byte(`{"entries":[{"entity":"","owner":"nobody","policy":"?"}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var m governance.Manifest
		if json.Unmarshal(doc, &m) != nil {
			return
		}
		if err := m.Validate(); err != nil {
			if !errors.Is(err, governance.ErrInvalidManifest) {
				t.Fatalf("%s: %v", doc, err)
			}
			return
		}
		again, _ := json.Marshal(m)
		var m2 governance.Manifest
		if err := json.Unmarshal(again, &m2); err != nil || m2.Validate() != nil {
			t.Fatalf("a valid manifest does not survive a round trip: %s", again)
		}
		_ = governance.Merge(governance.DefaultManifest(), m.Entries)
	})
}
