package audit_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

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
		putAll(t, s, recs)
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

// putAll writes records from a few goroutines: the emulators answer one put at a time
// slowly enough that a thousand in a row would dominate the test.
func putAll(t *testing.T, s audit.Store, recs []audit.Record) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(recs))
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(recs); i += 8 {
				if err := s.Put(context.Background(), recs[i]); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
