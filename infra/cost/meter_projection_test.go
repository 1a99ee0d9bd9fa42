package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// An index is billed by what it projects (issue 37 §1): an entry is the item's keys and
// projected attributes, and an update that changes neither the index's key nor a projected
// attribute writes nothing to it. The meter priced every index as ALL before: the claim
// row's by_status entry at the whole row's 3 KB, and an update of an attribute no index
// reads as a write of both entries.
func TestWriteUnitsByProjection(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	row := func(status, diagnosis, proposal string, log int) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"tenant_id": s("t"), "id": s("se_1"),
			"status": s(status), "status_key": s("t#" + status), "claimed_sort": s("2026-11-29#se_1"),
			"diagnosis": s(diagnosis), "diagnosis_key": s("t#" + diagnosis), "diagnosis_since": s("2026-11-29"),
			"proposal": s(proposal),
			// Not projected by by_status: 2,500 bytes only the row's detail reads.
			"retry_log": s(strings.Repeat("x", log))}
	}
	p := blueprint.Processed
	p.Name = "p"
	before := row("pending", "ready", "fix", 2500)

	// Only an unprojected attribute changes: the table is written, neither index.
	got := WriteUnits(p, before, row("pending", "ready", "fix", 2600), false)
	if got["WRU p"] != 3 || got["WRU p/by_status"] != 0 || got["WRU p/by_diagnosis"] != 0 {
		t.Errorf("an update of retry_log only: %v, want 3 on the table and nothing on the indexes", got)
	}
	// A projected attribute changes: by_status rewrites its entry, at the entry's size
	// (its keys and the projected attributes, under 1 KB), not the row's 3 KB.
	got = WriteUnits(p, before, row("pending", "ready", "a better fix", 2500), false)
	if got["WRU p/by_status"] != 1 || got["WRU p/by_diagnosis"] != 0 {
		t.Errorf("an update of the proposal: %v, want 1 on by_status, 0 on the keys-only by_diagnosis", got)
	}
	// A key change is a delete and a put of the entry, keys-only or not.
	got = WriteUnits(p, before, row("approved", "diagnosing", "fix", 2500), false)
	if got["WRU p/by_status"] != 2 || got["WRU p/by_diagnosis"] != 2 {
		t.Errorf("both keys change: %v, want 2 on each index", got)
	}
	// A new row is one put of each entry, each at its projected size.
	got = WriteUnits(p, nil, before, false)
	if got["WRU p"] != 3 || got["WRU p/by_status"] != 1 || got["WRU p/by_diagnosis"] != 1 {
		t.Errorf("a put: %v, want 3 on the table, 1 on each index", got)
	}
	// An index projecting ALL still costs the whole item, and any change of it.
	all := p
	all.Indexes = allProjected(p.Indexes)
	got = WriteUnits(all, before, row("pending", "ready", "fix", 2600), false)
	if got["WRU p/by_status"] != 3 || got["WRU p/by_diagnosis"] != 3 {
		t.Errorf("projected ALL, an update of retry_log: %v, want 3 on each index", got)
	}
}

// allProjected is indexes projecting ALL.
func allProjected(indexes []blueprint.Index) []blueprint.Index {
	out := append([]blueprint.Index(nil), indexes...)
	for i := range out {
		out[i].Projection = blueprint.Projection{}
	}
	return out
}
