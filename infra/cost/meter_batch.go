package main

import (
	"context"
	"maps"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// batchItem is one put or delete of a BatchWriteItem, with its item before the call.
type batchItem struct {
	table  string
	key    map[string]types.AttributeValue
	before map[string]types.AttributeValue
}

// batchWrite runs a BatchWriteItem between reads of each item it names and books every
// item it wrote as Meter's comment says: the WRU of that item's own PutItem or DeleteItem,
// on its table and indexes. Unprocessed items are left out: their resend is a call of its
// own and is booked then.
func (m *Meter) batchWrite(ctx context.Context, op string, p *dynamodb.BatchWriteItemInput, in middleware.InitializeInput,
	next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	var items []batchItem
	for table, reqs := range p.RequestItems {
		for _, r := range reqs {
			key := m.requestKey(table, r)
			items = append(items, batchItem{table: table, key: key, before: m.item(ctx, table, key)})
		}
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if err != nil {
		m.add(op+" (error)", nil, 0)
		return out, md, err
	}
	unprocessed := map[string]bool{}
	if o, ok := out.Result.(*dynamodb.BatchWriteItemOutput); ok {
		for table, reqs := range o.UnprocessedItems {
			for _, r := range reqs {
				unprocessed[table+"\x00"+keyString(m.requestKey(table, r))] = true
			}
		}
	}
	units := map[string]float64{}
	for _, it := range items {
		if unprocessed[it.table+"\x00"+keyString(it.key)] {
			continue
		}
		after := m.item(ctx, it.table, it.key)
		for k, v := range WriteUnits(m.table(it.table), it.before, after, false) {
			units[k] += v
		}
		m.bookKeysOnly(it.table, it.before, after)
	}
	m.add(op, units, 0)
	return out, md, err
}

// requestKey is the key of the item a put or delete request writes.
func (m *Meter) requestKey(table string, r types.WriteRequest) map[string]types.AttributeValue {
	switch {
	case r.PutRequest != nil:
		return keyOf(r.PutRequest.Item, table, m)
	case r.DeleteRequest != nil:
		return r.DeleteRequest.Key
	}
	return nil
}

// keyString is a key's attributes in a fixed order, to match an unprocessed request to
// the request sent.
func keyString(key map[string]types.AttributeValue) string {
	s := ""
	for _, name := range slices.Sorted(maps.Keys(key)) {
		s += name + "=" + attrString(key[name]) + "\x00"
	}
	return s
}
