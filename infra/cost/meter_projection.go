package main

import (
	"math"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// indexWriteUnits is what a write from before to after costs on index ix of t, false when
// the item is in the index neither before nor after. DynamoDB bills an index by its
// entries, which hold the table's and the index's keys and the projected attributes
// (developer guide, "Global secondary indexes: provisioned throughput considerations",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes:
// a put or delete of an entry is billed by the entry's size, a key change is a delete and
// a put, and an update that changes neither an index key nor a projected attribute writes
// nothing to the index). The 100 bytes of overhead the guide adds to an entry are for its
// storage; writes are assumed billed on the projected attributes alone.
func indexWriteUnits(t blueprint.Table, ix blueprint.Index, before, after map[string]types.AttributeValue) (float64, bool) {
	kb, ka := indexKey(ix, before), indexKey(ix, after)
	eb, ea := entry(t, ix, before), entry(t, ix, after)
	switch {
	case kb == "" && ka == "":
		return 0, false
	case kb == "":
		return entryUnits(ea), true
	case ka == "":
		return entryUnits(eb), true
	case kb != ka:
		return entryUnits(eb) + entryUnits(ea), true
	case reflect.DeepEqual(eb, ea):
		return 0, true
	}
	return entryUnits(ea), true
}

// entry is item's entry in ix: the whole item when ix projects ALL, else its table and
// index keys and the attributes ix includes; nil when the item is not in the index.
func entry(t blueprint.Table, ix blueprint.Index, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if indexKey(ix, item) == "" {
		return nil
	}
	if ix.Projection.Type() == "ALL" {
		return item
	}
	names := []string{t.PartitionKey.Name, ix.PartitionKey.Name}
	for _, k := range []*blueprint.Key{t.SortKey, ix.SortKey} {
		if k != nil {
			names = append(names, k.Name)
		}
	}
	if !ix.Projection.KeysOnly {
		names = append(names, ix.Projection.Include...)
	}
	out := map[string]types.AttributeValue{}
	for _, n := range names {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	return out
}

// entryUnits is an entry's write in WRU: 1 KB units, at least one.
func entryUnits(e map[string]types.AttributeValue) float64 {
	return math.Max(1, math.Ceil(float64(ItemSize(e))/1024))
}
