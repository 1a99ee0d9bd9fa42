package governance

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
)

// An entry stored before ledger keys were folded (under "Vendor"/"V-1" as spelt) is still
// found by Wrote, which sweeps ask hours after the write; entries stored since are found
// under any spelling.
func TestDynamoWroteFindsEntriesStoredUnfolded(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, table := e.Tables(t)
		s := NewDynamoStore(db, table(blueprint.TableGovernance))
		at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
		old := LedgerEntry{ID: "old", Time: at, Tenant: "t1", Source: connector.SystemHostERP, Target: connector.SystemHostERP,
			Entity: "Vendor", RecordID: "V-1", Fields: []string{"notes"}, PayloadHash: "h", IdempotencyKey: "fix-1"}
		it, err := ledgerItem(old)
		if err != nil {
			t.Fatal(err)
		}
		it["record"] = dynamostore.Str(exactLedgerPrefix("Vendor", "V-1") + dynamostore.FormatTime(at) + "#old")
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: it}); err != nil {
			t.Fatal(err)
		}
		recent := old
		recent.ID, recent.IdempotencyKey = "new", "fix-2"
		if err := s.Append(ctx, recent); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"fix-1", "fix-2"} {
			if ok, err := Wrote(ctx, s, "t1", "Vendor", "V-1", at, key); err != nil || !ok {
				t.Errorf("Wrote(%s) = %v, %v; want true", key, ok, err)
			}
		}
		if ok, err := Wrote(ctx, s, "t1", "vendor", "v-1", at, "fix-2"); err != nil || !ok {
			t.Errorf("Wrote in another case = %v, %v; want true", ok, err)
		}
	})
}

// A sent mark outlives the ledger's day: a held write may be released weeks after a newer
// change of its source record was written, and is compared with it (supersede.go).
func TestSentMarksAreKeptAsLongAsTheRecords(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	e := LedgerEntry{ID: "m", Time: at, Tenant: "t1", Entity: trailEntity, RecordID: "crm/account/C-1", Fields: []string{"phone"}}
	for _, tc := range []struct {
		sent map[string]SentMark
		keep time.Duration
	}{{nil, LedgerRetention}, {map[string]SentMark{"hosterp/customer/phone": {Changed: at, Key: "k"}}, SentRetention}} {
		e.Sent = tc.sent
		it, err := ledgerItem(e)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := dynamostore.GetInt(it, "expires_at"); got != at.Add(tc.keep).Unix() {
			t.Errorf("sent %v: expires at %d, want %s later", tc.sent, got, tc.keep)
		}
	}
}
