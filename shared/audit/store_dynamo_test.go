package audit_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/identity"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		audittest.RunStoreContract(t, func(t *testing.T) audittest.Backend {
			db, table := e.Tables(t)
			s := audit.NewDynamoStore(db, table(blueprint.TableAudit))
			return audittest.Backend{Store: s,
				PutMany:     func(t *testing.T, recs []audit.Record) { putAll(t, db, s, recs) },
				PutAsBefore: func(t *testing.T, r audit.Record) { putAsBefore(t, db, s, r) }}
		})
	})
}

// Records long ago, behind many newer ones a filter drops (of another actor, of another
// machine type, read on the tenant's partition): a page examines at most FilteredScanCap
// records and then ends with a cursor at the last one examined, so no request reads the
// whole window, and the pages that follow still find the records.
func TestDynamoFilteredPageStopsAtTheScanCap(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		s := audit.NewDynamoStore(db, table(blueprint.TableAudit))
		rec := func(i int, actor, typ string) audit.Record {
			return audit.Record{TenantID: "t1", ID: fmt.Sprintf("r%04d", i), At: base.Add(time.Duration(i) * time.Second),
				Actor: identity.Identity{TenantID: "t1", Actor: actor, Source: identity.SourceAuth}, ActionType: typ,
				ActionKey: typ + ".test", Result: audit.ResultSuccess}
		}
		recs := []audit.Record{rec(0, "alice", audit.TypeDLP), rec(1, "alice", audit.TypeDLP)}
		for i := 2; i < audit.FilteredScanCap+10; i++ {
			recs = append(recs, rec(i, "bob", audit.TypeAI))
		}
		putAll(t, db, s, recs)
		for _, f := range []audit.Query{{Actor: "alice"}, {ActionType: audit.TypeDLP}, {ActionType: audit.TypeDLP, Actor: "alice"}} {
			q := audit.Query{TenantID: "t1", Actor: f.Actor, ActionType: f.ActionType, From: base, To: base.Add(time.Hour), Limit: 10}
			p, err := s.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Records) != 0 || p.NextCursor == "" {
				t.Fatalf("%+v: first page %d records, cursor %q: want none and a cursor at the cap", f, len(p.Records), p.NextCursor)
			}
			q.Cursor = p.NextCursor
			if p, err = s.Query(ctx, q); err != nil {
				t.Fatal(err)
			}
			if len(p.Records) != 2 || p.Records[0].ID != "r0001" || p.NextCursor != "" {
				t.Fatalf("%+v: second page %+v, cursor %q: want alice's two records and no cursor", f, p.Records, p.NextCursor)
			}
		}
	})
}

// Only the rare types carry the by_action_type key: an index entry is a WRU per record,
// and the machine types, most of the log, are found on the tenant's partition.
func TestDynamoOnlySparseTypesAreIndexed(t *testing.T) {
	ctx := context.Background()
	dense := []string{audit.TypeDLP, audit.TypeAI, audit.TypeConnector}
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		s := audit.NewDynamoStore(db, table(blueprint.TableAudit))
		for i, typ := range audit.ActionTypes {
			r := audit.Record{TenantID: "t1", ID: fmt.Sprintf("r%02d", i), At: time.Now().UTC(), ActionType: typ,
				Actor: identity.Identity{TenantID: "t1", Actor: "alice", Source: identity.SourceAuth}, ActionKey: typ + ".test"}
			if err := s.Put(ctx, r); err != nil {
				t.Fatal(err)
			}
			out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table(blueprint.TableAudit)),
				Key: dynamostore.Item{"tenant_id": dynamostore.Str("t1"), "sort": dynamostore.Str(dynamostore.FormatTime(r.At) + "#" + r.ID)}})
			if err != nil {
				t.Fatal(err)
			}
			_, indexed := out.Item["tenant_action"]
			if want := !slices.Contains(dense, typ); indexed != want || len(out.Item) == 0 {
				t.Errorf("%s: a record with the index key %v, want %v (%v)", typ, indexed, want, out.Item)
			}
		}
	})
}

// A cursor a page of a machine type issued from the index, before the type left it, is a
// sort key there as on the partition: the next page goes on from that record.
func TestDynamoIndexCursorGoesOnOnThePartition(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		s := audit.NewDynamoStore(db, table(blueprint.TableAudit))
		var recs []audit.Record
		for i := range 6 {
			r := audit.Record{TenantID: "t1", ID: fmt.Sprintf("r%02d", i), At: base.Add(time.Duration(i) * time.Second),
				Actor: identity.Identity{TenantID: "t1", Actor: "alice", Source: identity.SourceAuth}, ActionType: audit.TypeConnector,
				ActionKey: "connector.write"}
			putAsBefore(t, db, s, r)
			recs = append(recs, r)
		}
		// The index's page of 2 ended at r04, newest first; its cursor was r04's sort key.
		cursor := dynamostore.EncodeCursor(dynamostore.FormatTime(recs[4].At) + "#" + recs[4].ID)
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", ActionType: audit.TypeConnector, From: base, To: base.Add(time.Hour),
			Limit: 10, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range p.Records {
			got = append(got, r.ID)
		}
		if fmt.Sprint(got) != "[r03 r02 r01 r00]" || p.NextCursor != "" {
			t.Fatalf("after an index cursor at r04: %v, cursor %q", got, p.NextCursor)
		}
	})
}

// putAll seeds records through the store's own item encoding (WriteRequest) in
// BatchWriteItem calls of 25, DynamoDB's most per call: the test is about the query, and a
// thousand single puts (one at a time through moto's gate) took 25 s of its 26 on moto.
func putAll(t *testing.T, db *dynamodb.Client, s audit.Batched, recs []audit.Record) {
	t.Helper()
	ctx := context.Background()
	for len(recs) > 0 {
		n := min(len(recs), 25)
		items := map[string][]types.WriteRequest{}
		for _, r := range recs[:n] {
			table, req, err := s.WriteRequest(r)
			if err != nil {
				t.Fatal(err)
			}
			items[table] = append(items[table], req)
		}
		recs = recs[n:]
		for len(items) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: items})
			if err != nil {
				t.Fatal(err)
			}
			items = out.UnprocessedItems
		}
	}
}

// putAsBefore stores r as the store wrote every record until the machine types left the
// by_action_type index: with its key, whatever the type.
func putAsBefore(t *testing.T, db *dynamodb.Client, s audit.Batched, r audit.Record) {
	t.Helper()
	table, req, err := s.WriteRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	it := req.PutRequest.Item
	it["tenant_action"] = dynamostore.Str(r.TenantID + "#" + r.ActionType)
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: it}); err != nil {
		t.Fatal(err)
	}
}
