package blueprint

import (
	"slices"
	"testing"
)

// The claim row's indexes project what their readers read, not ALL (issue 37 §1): every
// update of the row rewrites an ALL entry at the row's size, about 3 KB once diagnosed.
func TestClaimIndexesProjectWhatTheirReadersRead(t *testing.T) {
	byName := map[string]Projection{}
	for _, ix := range Processed.Indexes {
		byName[ix.Name] = ix.Projection
	}
	if got := byName[IndexByDiagnosis].Type(); got != "KEYS_ONLY" {
		t.Errorf("by_diagnosis projects %s, want KEYS_ONLY", got)
	}
	st := byName[IndexByStatus]
	if st.Type() != "INCLUDE" {
		t.Fatalf("by_status projects %s, want INCLUDE", st.Type())
	}
	// What only a row's detail or a worker reads, each changed by writes the queue never
	// shows: projected, each such write would rewrite the entry.
	for _, a := range []string{"retry_log", "diagnosis_attempts", "diagnosis_since", "diagnosis_error", "write_token",
		"lease_token", "applied_prior", "webhook_id", "error_keys", "proposal_more", "payload", "context"} {
		if slices.Contains(st.Include, a) {
			t.Errorf("by_status projects %s, which no reader of the index reads", a)
		}
	}
	if len(st.Include) != len(slices.Compact(slices.Sorted(slices.Values(st.Include)))) {
		t.Errorf("by_status names an attribute twice: %v", st.Include)
	}
}

// A projection names itself as DynamoDB and CloudFormation do; the zero value is ALL, so
// an index that says nothing keeps every attribute.
func TestProjectionType(t *testing.T) {
	for _, c := range []struct {
		p    Projection
		want string
	}{{Projection{}, "ALL"}, {Projection{KeysOnly: true}, "KEYS_ONLY"}, {Projection{Include: []string{"a"}}, "INCLUDE"}} {
		if got := c.p.Type(); got != c.want {
			t.Errorf("%+v.Type() = %s, want %s", c.p, got, c.want)
		}
	}
}
