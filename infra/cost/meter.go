package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	"github.com/aws/smithy-go/middleware"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// Meter counts what the service asks of AWS through its SDK clients: every call by service
// and operation, and for DynamoDB the request units each call is billed, the table's and
// each global secondary index's apart. It is an SDK middleware (Initialize step), so the
// requests the service makes are unchanged; to price a write it reads the item before and
// after it with a client of its own, which is not counted. SQS requests it leaves to the
// transport below (wireCalls, main.go), which books each on the meter: the ingest sends
// over awsjson (sqsjson), past any SDK middleware, and counting SDK calls as well would
// count them twice.
//
// DynamoDB's billing rules it applies (developer guide, "Read/write capacity mode" and
// "Global secondary indexes: provisioned throughput considerations"):
//   - a write costs ceil(max(old, new item size) / 1 KB) WRU; a conditional write whose
//     condition fails still costs ceil(existing item size / 1 KB), at least 1;
//   - each GSI whose key the item has, before or after, costs by its entry, the item's keys
//     and the attributes the index projects (blueprint.Projection): a put of the new entry's
//     size when the key appears, a delete of the old one's when it goes, both when a key
//     attribute changes, one write of the new size when it stays and a projected attribute
//     changed, nothing when none did (meter_projection.go);
//   - a BatchWriteItem is billed per item it put or deleted, each as the PutItem or
//     DeleteItem of that item (API reference, BatchWriteItem: "The individual PutItem and
//     DeleteItem operations specified in BatchWriteItem are atomic"); the items it left
//     unprocessed were not written and cost nothing until they are sent again;
//   - reads are counted from the ConsumedCapacity the emulator answers (ReturnConsumedCapacity
//     TOTAL is set on GetItem, Query and Scan): 4 KB units, halved when eventually consistent.
type Meter struct {
	mu    sync.Mutex
	calls map[string]int // "dynamodb.PutItem", "sqs.SendMessage", ...
	// tableCalls are the DynamoDB single-table calls by operation and logical table
	// ("dynamodb.GetItem tenant_config"), for the call budgets (budget_test.go).
	tableCalls map[string]int
	units      map[string]float64 // "WRU processed", "WRU processed/by_status", "RRU tenant_config"
	// keysOnly is what each index's writes would cost if it projected its keys only.
	keysOnly map[string]float64
	events   int // EventBridge entries
	// raw reads the items around a write; it has no meter.
	raw *dynamodb.Client
	// tables are the blueprint's tables by physical name.
	tables map[string]blueprint.Table
	// physical maps a physical table name to its logical one, for the breakdown.
	physical map[string]string
}

// NewMeter meters stage's tables. Set raw, a client without the meter, before the first
// write.
func NewMeter(stage string) *Meter {
	m := &Meter{tables: map[string]blueprint.Table{}, physical: map[string]string{}}
	for _, t := range blueprint.Tables {
		name := blueprint.PhysicalName(stage, t.Name)
		m.tables[name] = t
		m.physical[name] = t.Name
	}
	m.Take()
	return m
}

// Install adds the meter to cfg's clients.
func (m *Meter) Install(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("costMeter", m.handle), middleware.After)
	})
}

// Usage is what the meter counted since the last Take.
type Usage struct {
	Calls  map[string]int
	Units  map[string]float64
	Events int
	// KeysOnly are the index WRU the same writes would cost with KEYS_ONLY indexes.
	KeysOnly map[string]float64
	// TableCalls are the DynamoDB calls that name one table, by operation and table.
	TableCalls map[string]int
}

// Calls is the calls counted since the last Take, every service.
func (m *Meter) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, v := range m.calls {
		n += v
	}
	return n
}

// DynamoCalls is the DynamoDB calls counted since the last Take.
func (m *Meter) DynamoCalls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for k, v := range m.calls {
		if strings.HasPrefix(k, "dynamodb.") && !strings.HasSuffix(k, "(error)") {
			n += v
		}
	}
	return n
}

// Add sums usages.
func (u Usage) Add(o Usage) Usage {
	out := Usage{Calls: map[string]int{}, Units: map[string]float64{}, KeysOnly: map[string]float64{}, Events: u.Events + o.Events,
		TableCalls: map[string]int{}}
	for _, x := range []Usage{u, o} {
		for k, v := range x.Calls {
			out.Calls[k] += v
		}
		for k, v := range x.TableCalls {
			out.TableCalls[k] += v
		}
		for k, v := range x.Units {
			out.Units[k] += v
		}
		for k, v := range x.KeysOnly {
			out.KeysOnly[k] += v
		}
	}
	return out
}

// Take returns the counts so far and starts again.
func (m *Meter) Take() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := Usage{Calls: m.calls, Units: m.units, Events: m.events, KeysOnly: m.keysOnly, TableCalls: m.tableCalls}
	m.calls, m.units, m.events, m.keysOnly = map[string]int{}, map[string]float64{}, 0, map[string]float64{}
	m.tableCalls = map[string]int{}
	return u
}

func (m *Meter) add(call string, units map[string]float64, events int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[call]++
	for k, v := range units {
		m.units[k] += v
	}
	m.events += events
}

// opName is "sqs.SendMessage" for a *sqs.SendMessageInput.
func opName(in any) string {
	t := strings.TrimPrefix(fmt.Sprintf("%T", in), "*")
	return strings.TrimSuffix(t, "Input")
}

// read sends a read and counts the units the emulator says it consumed.
func (m *Meter) read(ctx context.Context, op, table string, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleInitialize(ctx, in)
	var cc *types.ConsumedCapacity
	switch o := out.Result.(type) {
	case *dynamodb.GetItemOutput:
		cc = o.ConsumedCapacity
	case *dynamodb.QueryOutput:
		cc = o.ConsumedCapacity
	case *dynamodb.ScanOutput:
		cc = o.ConsumedCapacity
	}
	m.add(op, m.readUnits(table, cc), 0)
	return out, md, err
}

func (m *Meter) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	op := opName(in.Parameters)
	if table := tableOf(in.Parameters); table != "" {
		m.mu.Lock()
		m.tableCalls[op+" "+m.logical(table)]++
		m.mu.Unlock()
	}
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		return m.read(ctx, op, *p.TableName, in, next)
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		return m.read(ctx, op, *p.TableName, in, next)
	case *dynamodb.ScanInput:
		p.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
		return m.read(ctx, op, *p.TableName, in, next)
	case *dynamodb.PutItemInput:
		return m.write(ctx, op, *p.TableName, keyOf(p.Item, *p.TableName, m), in, next)
	case *dynamodb.UpdateItemInput:
		return m.write(ctx, op, *p.TableName, p.Key, in, next)
	case *dynamodb.DeleteItemInput:
		return m.write(ctx, op, *p.TableName, p.Key, in, next)
	case *dynamodb.BatchWriteItemInput:
		return m.batchWrite(ctx, op, p, in, next)
	case *eventbridge.PutEventsInput:
		m.add(op, nil, len(p.Entries))
	default:
		if !strings.HasPrefix(op, "sqs.") { // booked on the wire, see Meter
			m.add(op, nil, 0)
		}
	}
	return next.HandleInitialize(ctx, in)
}

// tableOf is the table a single-table DynamoDB call names, "" for any other call.
func tableOf(in any) string {
	var t *string
	switch p := in.(type) {
	case *dynamodb.GetItemInput:
		t = p.TableName
	case *dynamodb.QueryInput:
		t = p.TableName
	case *dynamodb.ScanInput:
		t = p.TableName
	case *dynamodb.PutItemInput:
		t = p.TableName
	case *dynamodb.UpdateItemInput:
		t = p.TableName
	case *dynamodb.DeleteItemInput:
		t = p.TableName
	}
	return aws.ToString(t)
}

// readUnits books a read's consumed capacity on its table (a query on an index is billed
// to the table's reads; the line names the table).
func (m *Meter) readUnits(table string, cc *types.ConsumedCapacity) map[string]float64 {
	if cc == nil || cc.CapacityUnits == nil {
		return map[string]float64{"RRU " + m.logical(table) + " (not reported)": 0}
	}
	return map[string]float64{"RRU " + m.logical(table): *cc.CapacityUnits}
}

// table is the blueprint's table of a physical name; a table the blueprint does not
// declare is priced with no index.
func (m *Meter) table(physical string) blueprint.Table {
	if t, ok := m.tables[physical]; ok {
		return t
	}
	return blueprint.Table{Name: physical}
}

func (m *Meter) logical(table string) string {
	if l, ok := m.physical[table]; ok {
		return l
	}
	return table
}

// write runs a write between two reads of its item and books its table and index units.
func (m *Meter) write(ctx context.Context, op, table string, key map[string]types.AttributeValue, in middleware.InitializeInput,
	next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	before := m.item(ctx, table, key)
	out, md, err := next.HandleInitialize(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	failed := err != nil
	if failed && !errors.As(err, &ccf) {
		m.add(op+" (error)", nil, 0)
		return out, md, err
	}
	after := before
	if !failed {
		after = m.item(ctx, table, key)
	}
	m.add(op, WriteUnits(m.table(table), before, after, failed), 0)
	if !failed {
		m.bookKeysOnly(table, before, after)
	}
	return out, md, err
}

// bookKeysOnly adds what a write from before to after would cost on the table's indexes
// projected KEYS_ONLY (the what-if make cost prints beside the bill).
func (m *Meter) bookKeysOnly(table string, before, after map[string]types.AttributeValue) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range KeysOnlyIndexUnits(m.table(table), before, after) {
		m.keysOnly[k] += v
	}
}

// item reads key's item as it is now (strongly consistent), nil when absent or unreadable.
func (m *Meter) item(ctx context.Context, table string, key map[string]types.AttributeValue) map[string]types.AttributeValue {
	if key == nil {
		return nil
	}
	out, err := m.raw.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil
	}
	return out.Item
}

// keyOf picks the table's key attributes out of a put's item.
func keyOf(item map[string]types.AttributeValue, table string, m *Meter) map[string]types.AttributeValue {
	for _, t := range blueprint.Tables {
		if m.logical(table) != t.Name {
			continue
		}
		key := map[string]types.AttributeValue{t.PartitionKey.Name: item[t.PartitionKey.Name]}
		if t.SortKey != nil {
			key[t.SortKey.Name] = item[t.SortKey.Name]
		}
		return key
	}
	return nil
}

// WriteUnits is what one write costs in WRU, on the table and on each index, by the rules
// in Meter's comment: before and after are the item around the write (nil when absent);
// failed is a conditional write whose condition failed.
func WriteUnits(t blueprint.Table, before, after map[string]types.AttributeValue, failed bool) map[string]float64 {
	table, indexes := t.Name, t.Indexes
	kb := func(item map[string]types.AttributeValue) float64 {
		return math.Ceil(float64(ItemSize(item)) / 1024)
	}
	out := map[string]float64{}
	if failed {
		out["WRU "+table] = math.Max(1, kb(before))
		return out
	}
	out["WRU "+table] = math.Max(1, math.Max(kb(before), kb(after)))
	for _, ix := range indexes {
		if n, ok := indexWriteUnits(t, ix, before, after); ok {
			out["WRU "+table+"/"+ix.Name] = n
		}
	}
	return out
}

// KeysOnlyIndexUnits is what the write would cost on each of t's indexes were it projected
// KEYS_ONLY (the what-if make cost prints): an entry (keys only, under 1 KB) is written
// when the item enters or leaves the index, both when its key changes, and not at all when
// only other attributes change.
func KeysOnlyIndexUnits(t blueprint.Table, before, after map[string]types.AttributeValue) map[string]float64 {
	out := map[string]float64{}
	for _, ix := range t.Indexes {
		ix.Projection = blueprint.Projection{KeysOnly: true}
		if n, ok := indexWriteUnits(t, ix, before, after); ok {
			out["WRU "+t.Name+"/"+ix.Name] = n
		}
	}
	return out
}

// indexKey is the item's key in the index ("" when the item is not in it: a GSI holds only
// items that have its key attributes).
func indexKey(ix blueprint.Index, item map[string]types.AttributeValue) string {
	pk, ok := item[ix.PartitionKey.Name]
	if !ok {
		return ""
	}
	k := attrString(pk)
	if ix.SortKey != nil {
		sk, ok := item[ix.SortKey.Name]
		if !ok {
			return ""
		}
		k += "\x00" + attrString(sk)
	}
	return k
}

func attrString(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "S" + v.Value
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberB:
		return "B" + string(v.Value)
	}
	return fmt.Sprintf("%T", v)
}

// ItemSize is an item's size as DynamoDB bills it: each attribute's name in UTF-8 bytes
// plus its value ("Item sizes and formats" in the developer guide): strings and binary
// by length, numbers about one byte per two digits plus one, booleans and null one byte,
// lists and maps 3 bytes plus one per element plus their elements.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberSize(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range v.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range v.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueSize(e)
		}
		return n
	}
	return 0
}

func numberSize(s string) int {
	digits := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return (digits+1)/2 + 1
}
