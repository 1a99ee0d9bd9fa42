package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// A row's shape: its size, its by_status entry's (without what the index leaves out, the
// payload here), and its largest attributes, largest first, name and value counted.
func TestRowShapeNamesWhatMakesTheRowLarge(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	row := map[string]types.AttributeValue{"tenant_id": s("t"), "id": s("se_1"), "status": s("pending"),
		"status_key": s("t#pending"), "claimed_sort": s("2026-11-29#se_1"),
		"payload": s(strings.Repeat("p", 1500)), "proposal": s(strings.Repeat("x", 300)), "message": s(strings.Repeat("m", 90))}
	got := rowShape(blueprint.Processed, row, 2)
	if got.Bytes != ItemSize(row) || got.Bytes < 1900 {
		t.Errorf("row bytes %d, want %d", got.Bytes, ItemSize(row))
	}
	if want := ItemSize(row) - len("payload") - 1500; got.EntryBytes != want {
		t.Errorf("by_status entry %d bytes, want %d (the row without its payload)", got.EntryBytes, want)
	}
	if len(got.Largest) != 2 || got.Largest[0] != (AttrSize{"payload", 1507}) || got.Largest[1] != (AttrSize{"proposal", 308}) {
		t.Errorf("largest attributes %v, want payload 1507 then proposal 308", got.Largest)
	}
}
