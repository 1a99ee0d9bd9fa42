package governance_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func TestMain(m *testing.M) { emutest.MainDynamoDB(m) }

func newDynamoStore(t *testing.T, e emutest.Emulator) *governance.DynamoStore {
	t.Helper()
	db, table := e.Tables(t)
	return governance.NewDynamoStore(db, table(blueprint.TableGovernance))
}

func TestDynamoRecordStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunRecordStoreContract(t, func(t *testing.T) governance.RecordStore { return newDynamoStore(t, e) })
	})
}

func TestDynamoLedgerContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunLedgerContract(t, func(t *testing.T) governance.Ledger { return newDynamoStore(t, e) })
	})
}

func TestDynamoOverrideStoreContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunOverrideStoreContract(t, func(t *testing.T) governance.OverrideStore { return newDynamoStore(t, e) })
	})
}

func TestDynamoFlapCounterContract(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		governancetest.RunFlapCounterContract(t, func(t *testing.T) governance.FlapCounter { return newDynamoStore(t, e) })
	})
}

// A decision the SDK sent again after its first was applied (its answer lost) is done:
// the approve is not answered "no longer pending" by its own write. Another decider's
// decision from the same state is still refused.
func TestDynamoDecisionSentTwiceIsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := governance.NewDynamoStore(db, table(blueprint.TableGovernance))
		twice := governance.NewDynamoStore(e.SentTwice(t, "UpdateItem"), table(blueprint.TableGovernance))
		a := governancetest.SampleApproval("t1", 1)
		if err := s.PutApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
		at := a.Time.Add(time.Minute)
		got, err := twice.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "bob", at)
		if err != nil || got.Status != governance.StatusReleasing || got.DecidedBy != "bob" {
			t.Fatalf("a decision sent twice: %+v, %v", got, err)
		}
		if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusDenied, "carol", at); !errors.Is(err, governance.ErrStateChanged) {
			t.Fatalf("another decider's decision from pending: %v, want ErrStateChanged", err)
		}
	})
}

// A count the SDK sent again after its first was applied (its answer lost) counts the
// write once: the limit is reached by writes, not by resends. At the limit, a field is
// still over.
func TestDynamoCountSentTwiceCountsOnce(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := governance.NewDynamoStore(db, table(blueprint.TableGovernance))
		twice := governance.NewDynamoStore(e.SentTwice(t, "UpdateItem"), table(blueprint.TableGovernance))
		window := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		for i := range 2 {
			if over, err := twice.CountWrites(ctx, "t1", "contact#C-1", window, []string{"email"}, 2); err != nil || len(over) != 0 {
				t.Fatalf("write %d of 2, sent twice: over %v, %v", i+1, over, err)
			}
		}
		if over, err := s.CountWrites(ctx, "t1", "contact#C-1", window, []string{"email"}, 2); err != nil || len(over) != 1 {
			t.Fatalf("a third write at a limit of 2: over %v, %v; want email", over, err)
		}
	})
}
