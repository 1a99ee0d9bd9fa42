package audit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/identity"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestDynamoStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		audittest.RunStoreContract(t, func(t *testing.T) audit.Store {
			db, table := e.Tables(t)
			return audit.NewDynamoStore(db, table(blueprint.TableAudit))
		})
	})
}

// An actor who acted long ago, behind many newer records of others: a page examines at
// most ActorScanCap records and then ends with a cursor at the last one examined, so no
// request reads the whole window, and the pages that follow still find the actor's.
func TestDynamoActorFilterStopsAtTheScanCap(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		s := audit.NewDynamoStore(db, table(blueprint.TableAudit))
		rec := func(i int, actor string) audit.Record {
			return audit.Record{TenantID: "t1", ID: fmt.Sprintf("r%04d", i), At: base.Add(time.Duration(i) * time.Second),
				Actor: identity.Identity{TenantID: "t1", Actor: actor, Source: identity.SourceAuth}, ActionType: audit.TypeAI,
				ActionKey: "ai.inference", Result: audit.ResultSuccess}
		}
		recs := []audit.Record{rec(0, "alice"), rec(1, "alice")}
		for i := 2; i < audit.ActorScanCap+10; i++ {
			recs = append(recs, rec(i, "bob"))
		}
		putAll(t, db, s, recs)
		q := audit.Query{TenantID: "t1", Actor: "alice", From: base, To: base.Add(time.Hour), Limit: 10}
		p, err := s.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 0 || p.NextCursor == "" {
			t.Fatalf("first page %d records, cursor %q: want none and a cursor at the cap", len(p.Records), p.NextCursor)
		}
		q.Cursor = p.NextCursor
		if p, err = s.Query(ctx, q); err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 2 || p.Records[0].ID != "r0001" || p.NextCursor != "" {
			t.Fatalf("second page %+v, cursor %q: want alice's two records and no cursor", p.Records, p.NextCursor)
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
