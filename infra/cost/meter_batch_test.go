package main

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// A BatchWriteItem is priced per item it writes, each as that item's PutItem: the same
// items put one by one and in one batch (two tables, one with an index) cost the same
// units. The meter booked none for a batch before (make cost's flow event was short by the
// ledger and trail entries' WRU).
func TestMeterPricesABatchWriteAsItsPuts(t *testing.T) {
	startEmulators(t)
	ctx := context.Background()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
		t.Setenv(k, v)
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const stage = "metertest"
	raw := dynamodb.NewFromConfig(cfg)
	if err := dynamostore.CreateTables(ctx, raw, stage); err != nil {
		t.Fatal(err)
	}
	m := NewMeter(stage)
	m.raw = raw
	m.Install(&cfg)
	db := dynamodb.NewFromConfig(cfg)
	gov, aud := blueprint.PhysicalName(stage, blueprint.TableGovernance), blueprint.PhysicalName(stage, blueprint.TableAudit)
	// A ledger entry over 1 KB (2 WRU), a small one, and an audit record in its index.
	items := func(run string) map[string][]dynamostore.Item {
		return map[string][]dynamostore.Item{
			gov: {
				{"tenant_id": dynamostore.Str("t1"), "record": dynamostore.Str("ledger#" + run + "#1"), "pad": dynamostore.Str(strings.Repeat("x", 1500))},
				{"tenant_id": dynamostore.Str("t1"), "record": dynamostore.Str("ledger#" + run + "#2")},
			},
			aud: {{"tenant_id": dynamostore.Str("t1"), "sort": dynamostore.Str(run), "tenant_action": dynamostore.Str("t1#connector")}},
		}
	}
	for table, its := range items("put") {
		for _, it := range its {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	puts := m.Take()
	reqs := map[string][]types.WriteRequest{}
	for table, its := range items("batch") {
		for _, it := range its {
			reqs[table] = append(reqs[table], types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
	}
	if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: reqs}); err != nil {
		t.Fatal(err)
	}
	batch := m.Take()
	if want := map[string]float64{"WRU governance": 3, "WRU audit_logs": 1}; puts.Units["WRU governance"] != want["WRU governance"] ||
		puts.Units["WRU audit_logs"] != want["WRU audit_logs"] {
		t.Fatalf("the puts cost %v, want at least %v", puts.Units, want)
	}
	if !maps.Equal(batch.Units, puts.Units) || !maps.Equal(batch.KeysOnly, puts.KeysOnly) {
		t.Errorf("the batch cost %v (keys only %v), its items put one by one %v (keys only %v)",
			batch.Units, batch.KeysOnly, puts.Units, puts.KeysOnly)
	}
	if got := fmt.Sprint(batch.Calls); got != "map[dynamodb.BatchWriteItem:1]" {
		t.Errorf("the batch counted as %s", got)
	}
}
