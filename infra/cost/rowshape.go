package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// RowShape is a claim row's size after a stage, and its by_status entry's, with the row's
// largest attributes: what makes each of the row's writes cost what it does (a write is
// billed by the larger of the item before and after, per started kilobyte; issue 37 §1).
type RowShape struct {
	Bytes, EntryBytes int
	Largest           []AttrSize // largest first
}

// AttrSize is an attribute's share of an item's size: its name and its value.
type AttrSize struct {
	Name  string
	Bytes int
}

// rowShape measures item, an item of t, naming its largest n attributes.
func rowShape(t blueprint.Table, item map[string]types.AttributeValue, n int) RowShape {
	s := RowShape{Bytes: ItemSize(item)}
	for _, ix := range t.Indexes {
		if ix.Name == blueprint.IndexByStatus {
			s.EntryBytes = ItemSize(entry(t, ix, item))
		}
	}
	for k, v := range item {
		s.Largest = append(s.Largest, AttrSize{k, len(k) + valueSize(v)})
	}
	slices.SortFunc(s.Largest, func(a, b AttrSize) int { return cmp.Or(b.Bytes-a.Bytes, strings.Compare(a.Name, b.Name)) })
	s.Largest = s.Largest[:min(n, len(s.Largest))]
	return s
}

// claimRowShape reads a claim row as it stands, with the meter's own client (not counted).
func (r *run) claimRowShape(ctx context.Context, tenantID, id string) (RowShape, error) {
	out, err := r.meter.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(blueprint.PhysicalName(costStage, blueprint.TableProcessed)),
		ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
			"tenant_id": &types.AttributeValueMemberS{Value: tenantID}, "id": &types.AttributeValueMemberS{Value: id}}})
	if err != nil || out.Item == nil {
		return RowShape{}, fmt.Errorf("read claim row %s: %v", id, err)
	}
	return rowShape(blueprint.Processed, out.Item, 6), nil
}

func (s RowShape) write(w io.Writer, stage string) {
	if s.Bytes == 0 {
		return
	}
	fmt.Fprintf(w, "    claim row after %s: %d bytes, its by_status entry %d; largest:", stage, s.Bytes, s.EntryBytes)
	for _, a := range s.Largest {
		fmt.Fprintf(w, " %s %d", a.Name, a.Bytes)
	}
	fmt.Fprintln(w)
}
