package main

import (
	"math"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// A path worked by hand at ListPrices, per million units (scale 1,000):
//
//	API Gateway   1M requests × $1.00/M                                   = 1.00
//	Lambda        1M invocations × $0.20/M                                = 0.20
//	              billed ceil(2 ms / (256/1769) + 3 calls × 5 ms) = 29 ms;
//	              1M × 0.029 s × 0.25 GB = 7,250 GB-s × $0.0000133334     = 0.09666715
//	DynamoDB      4M WRU × $0.625/M = 2.50; 0.5M RRU × $0.125/M           = 2.5625
//	SQS           (1,000 sends + 200 event source requests) × 1,000 × $0.40/M = 0.48
//	KMS           10 × 1,000 = 10,000 requests × $0.03/10k                = 0.03
//	Logs          1 KiB × 1M = 1,024,000,000 B = 0.95367 GiB × $0.50       = 0.47683716
//	total                                                                 = 4.84600431
func TestHandCheckedPath(t *testing.T) {
	pa := Path{Name: "hand", Unit: "thing", N: 1000, APIRequests: 1000,
		Lambdas:     []Invocations{{Function: "ingest", MemoryMB: 256, Count: 1000, CPUMS: 2, AWSCalls: 3}},
		Usage:       Usage{Calls: map[string]int{"sqs.SendMessage": 1000, "dynamodb.PutItem": 2000}, Units: map[string]float64{"WRU t": 4000, "RRU t": 500}},
		SQSRequests: 200, KMSRequests: 10, LogBytes: 1000 * 1024}
	if got := pa.Lambdas[0].BilledMS(5); got != 29 {
		t.Fatalf("billed %v ms, want 29", got)
	}
	lines := pa.Lines(ListPrices, 5)
	want := map[string]float64{"API Gateway": 1, "Lambda": 0.2 + 0.09666715, "DynamoDB": 2.5625, "SQS": 0.48, "KMS": 0.03,
		"CloudWatch Logs": 0.47683716}
	got := map[string]float64{}
	for _, l := range lines {
		got[l.Service] += l.USD
	}
	for svc, w := range want {
		if math.Abs(got[svc]-w) > 1e-6 {
			t.Errorf("%s: $%.8f, want $%.8f", svc, got[svc], w)
		}
	}
	if total := Total(lines); math.Abs(total-4.84600431) > 1e-6 {
		t.Errorf("total $%.8f, want $4.84600431", total)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i].USD > lines[i-1].USD {
			t.Errorf("line %d ($%.4f) after a smaller one ($%.4f): largest first", i, lines[i].USD, lines[i-1].USD)
		}
	}
	if calls, byOp := pa.DynamoCalls(); calls != 2 || byOp != "PutItem 2.00" {
		t.Errorf("DynamoDB calls %v (%s), want 2 (PutItem 2.00)", calls, byOp)
	}
	var out strings.Builder
	pa.Write(&out, ListPrices, 5)
	if !strings.Contains(out.String(), "$4.8460 per million things") {
		t.Errorf("printed:\n%s", out.String())
	}
}

// A write is billed on the table at the larger of the two item sizes, and on each index by
// what happens to the item's entry there.
func TestWriteUnits(t *testing.T) {
	pad := func(n int) types.AttributeValue { return &types.AttributeValueMemberS{Value: strings.Repeat("x", n)} }
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	// 1,500 bytes before (2 KB units), 2,100 after (3): the status key changes, the diagnosis
	// key stays, the third index is absent both times.
	before := map[string]types.AttributeValue{"pad": pad(1500 - 3 - 2*10 - 2*12), "status_key": s("t#pending"), "claimed_sort": s("2026-11-26"),
		"diagnosis_key": s("t#ready"), "diagnosis_since": s("2026-11-26")}
	after := map[string]types.AttributeValue{"pad": pad(2100 - 3 - 2*10 - 2*12), "status_key": s("t#approve"), "claimed_sort": s("2026-11-26"),
		"diagnosis_key": s("t#ready"), "diagnosis_since": s("2026-11-26")}
	if kb := math.Ceil(float64(ItemSize(before)) / 1024); kb != 2 {
		t.Fatalf("before is %d bytes, want 2 KB units", ItemSize(before))
	}
	if kb := math.Ceil(float64(ItemSize(after)) / 1024); kb != 3 {
		t.Fatalf("after is %d bytes, want 3 KB units", ItemSize(after))
	}
	// The claim row's indexes as they were, projecting ALL (meter_projection_test.go has
	// the projections).
	indexes := append(allProjected(blueprint.Processed.Indexes), blueprint.Index{Name: "absent", PartitionKey: blueprint.Key{Name: "nope"}})
	p := blueprint.Table{Name: "p", Indexes: indexes}
	got := WriteUnits(p, before, after, false)
	want := map[string]float64{"WRU p": 3, "WRU p/by_status": 2 + 3, "WRU p/by_diagnosis": 3}
	if len(got) != len(want) {
		t.Errorf("units %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], w, got)
		}
	}
	// A new item is one put per index it enters; a deleted one a delete per index it leaves.
	if got := WriteUnits(p, nil, after, false); got["WRU p/by_status"] != 3 || got["WRU p"] != 3 {
		t.Errorf("put: %v", got)
	}
	if got := WriteUnits(p, before, nil, false); got["WRU p/by_status"] != 2 || got["WRU p"] != 2 {
		t.Errorf("delete: %v", got)
	}
	// Projected KEYS_ONLY, an index is written only when the item's entry appears, goes or
	// changes its key.
	if got := KeysOnlyIndexUnits(p, before, after); got["WRU p/by_status"] != 2 || got["WRU p/by_diagnosis"] != 0 || got["WRU p/absent"] != 0 {
		t.Errorf("keys only, an update: %v", got)
	}
	if got := KeysOnlyIndexUnits(p, nil, after); got["WRU p/by_status"] != 1 || got["WRU p/by_diagnosis"] != 1 {
		t.Errorf("keys only, a put: %v", got)
	}
	// A failed condition is billed on the table only, at the existing item's size, at least 1.
	if got := WriteUnits(p, before, before, true); len(got) != 1 || got["WRU p"] != 2 {
		t.Errorf("failed condition on an existing item: %v", got)
	}
	if got := WriteUnits(p, nil, nil, true); got["WRU p"] != 1 {
		t.Errorf("failed condition on no item: %v", got)
	}
}

// Item sizes follow the developer guide: names plus values, numbers a byte per two digits
// plus one, maps and lists 3 bytes plus one per element.
func TestItemSize(t *testing.T) {
	item := map[string]types.AttributeValue{
		"id": &types.AttributeValueMemberS{Value: "abc"},   // 2 + 3
		"n":  &types.AttributeValueMemberN{Value: "123"},   // 1 + 3
		"ok": &types.AttributeValueMemberBOOL{Value: true}, // 2 + 1
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{ // 1 + 3 + (1 + 1 + 2)
			"k": &types.AttributeValueMemberS{Value: "vv"}}},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "x"}}}, // 1 + 3 + (1 + 1)
	}
	if got := ItemSize(item); got != 5+4+3+8+6 {
		t.Errorf("ItemSize = %d, want %d", got, 5+4+3+8+6)
	}
}
