package dynamo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// writeLog keeps the write requests a client sends, in order, as "Op" or, for an
// UpdateItem, "UpdateItem <update expression>".
type writeLog struct {
	mu     sync.Mutex
	writes []string
	values []int // ExpressionAttributeValues per UpdateItem
}

func (l *writeLog) install(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, emutest.Observe(func(in, _ any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		switch p := in.(type) {
		case *dynamodb.PutItemInput:
			l.writes = append(l.writes, "PutItem")
		case *dynamodb.UpdateItemInput:
			l.writes = append(l.writes, "UpdateItem "+aws.ToString(p.UpdateExpression))
			l.values = append(l.values, len(p.ExpressionAttributeValues))
		}
	}))
}

func (l *writeLog) take() ([]string, []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, v := l.writes, l.values
	l.writes, l.values = nil, nil
	return w, v
}

// A new row is the claim's one put, and a store's next occurrence of it one short
// update that sends the count, not the row (issue 37 §0: an update naming all thirty
// attributes with if_not_exists cost the local emulator more than the rest of the ingest).
// A row another process created costs this store one refused put before its first count;
// a row gone since is created again.
func TestFoldCreatesWithAPutAndCountsWithAShortUpdate(t *testing.T) {
	db, table := emutest.Pair.Tables(t)
	var log writeLog
	client := dynamodb.New(db.Options(), log.install)
	claims := dynamo.NewDynamoClaims(client, table(blueprint.TableProcessed))
	other := dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed))
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	post := func(s *dynamo.DynamoClaims, errorID string) (syncerror.FoldResult, syncerror.Claim) {
		t.Helper()
		c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", errorID), syncerror.SourceWebhook, "", at)
		c.Record.RecordID = errorID[:1] // E-… and O-… are two records: two rows
		c.Retry.Signature, c.Retry.Occurrences, c.Retry.ErrorKeys = "sig", 1, []string{syncerror.ErrorKey(errorID)}
		c.ID = syncerror.RowID(c.Record)
		res, row, err := s.Fold(ctx, c, syncerror.ErrorKey(errorID))
		if err != nil {
			t.Fatal(err)
		}
		return res, row
	}
	short := func(w string) bool {
		// Nor does it write the row's write_token, which every other update's resend check
		// reads: the fold's count has a token of its own.
		return strings.HasPrefix(w, "UpdateItem ") && !strings.Contains(w, "if_not_exists") && !strings.Contains(w, "write_token")
	}

	if res, _ := post(claims, "E-1"); res != syncerror.FoldCreated {
		t.Fatalf("first post %v", res)
	}
	if w, _ := log.take(); fmt.Sprint(w) != "[PutItem]" {
		t.Fatalf("a new row's writes %q, want the claim's put", w)
	}
	res, row := post(claims, "E-2")
	w, v := log.take()
	if res != syncerror.FoldOccurrence || row.Retry.Occurrences != 2 || len(w) != 1 || !short(w[0]) || v[0] > 10 {
		t.Fatalf("an occurrence: %v %d, writes %q with %v values, want one short update", res, row.Retry.Occurrences, w, v)
	}
	if res, _ := post(claims, "E-2"); res != syncerror.FoldDuplicate {
		t.Fatalf("a redelivery %v", res)
	}
	log.take()

	// A row another store created: one refused put, then counted; counted directly after.
	if res, _ := post(other, "O-1"); res != syncerror.FoldCreated {
		t.Fatal(res)
	}
	for i, want := range []string{"[PutItem UpdateItem]", "[UpdateItem]"} {
		res, row := post(claims, fmt.Sprint("O-", i+2))
		w, _ := log.take()
		ops := make([]string, len(w))
		for j, x := range w {
			ops[j], _, _ = strings.Cut(x, " ")
		}
		if res != syncerror.FoldOccurrence || row.Retry.Occurrences != i+2 || fmt.Sprint(ops) != want || ops[0] == "PutItem" && !short(w[1]) {
			t.Fatalf("occurrence %d of another store's row: %v %d, writes %q, want %s", i+2, res, row.Retry.Occurrences, w, want)
		}
	}
	_, row = post(other, "O-1")
	stored, err := other.Get(ctx, "acme", row.ID)
	if err != nil || stored.Retry.Occurrences != 3 || len(stored.Retry.ErrorKeys) != 3 {
		t.Fatalf("stored %+v err=%v", stored.Retry, err)
	}

	// A row gone since this store counted on it (a tenant's data erased): created again.
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table(blueprint.TableProcessed)),
		Key: dynamostore.Item{"tenant_id": dynamostore.Str("acme"), "id": dynamostore.Str(row.ID)}}); err != nil {
		t.Fatal(err)
	}
	log.take()
	if res, row := post(claims, "O-9"); res != syncerror.FoldCreated || row.Retry.Occurrences != 1 {
		t.Fatalf("a post after the row was deleted: %v %+v", res, row.Retry)
	}
	if w, _ := log.take(); len(w) != 2 || !short(w[0]) || w[1] != "PutItem" {
		t.Fatalf("writes %q, want the refused count, then the put", w)
	}
}

// The SDK's resend of a fold's write that DynamoDB had applied meets its own first
// attempt: still the create or the count it was, never a duplicate (which would leave a
// new row undiagnosed until the reconcile) and never counted twice.
func TestFoldWritesSentTwiceAreAnsweredAsWhatTheyDid(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for _, op := range []string{"PutItem", "UpdateItem"} {
		t.Run(op, func(t *testing.T) {
			db, table := emutest.Pair.Tables(t)
			claims := dynamo.NewDynamoClaims(emutest.Pair.SentTwice(t, op), table(blueprint.TableProcessed))
			other := dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed))
			want := []syncerror.FoldResult{syncerror.FoldCreated, syncerror.FoldOccurrence, syncerror.FoldOccurrence}
			for i, w := range want {
				errorID := fmt.Sprint("E-", i)
				c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", errorID), syncerror.SourceWebhook, "", at)
				c.Retry.Signature, c.Retry.Occurrences, c.Retry.ErrorKeys = "sig", 1, []string{syncerror.ErrorKey(errorID)}
				c.ID = syncerror.RowID(c.Record)
				s := claims
				if i == 2 {
					// A row this store has not seen: its put is refused, then the count sent twice.
					s = dynamo.NewDynamoClaims(emutest.Pair.SentTwice(t, op), table(blueprint.TableProcessed))
				}
				res, _, err := s.Fold(ctx, c, syncerror.ErrorKey(errorID))
				if err != nil || res != w {
					t.Fatalf("post %d sent twice: %v %v, want %v", i, res, err, w)
				}
			}
			row, err := other.Get(ctx, "acme", syncerror.RowID(syncerrortest.SampleRecord("acme", "E-0")))
			if err != nil || row.Retry.Occurrences != 3 || len(row.Retry.ErrorKeys) != 3 {
				t.Fatalf("row %+v err=%v, want 3 occurrences", row.Retry, err)
			}
		})
	}
}

// A row stored before rows counted occurrences has neither occurrences nor error keys:
// the count's condition (NOT occurrences >= :max, no parentheses for dynalite's parser)
// holds for it, as DynamoDB makes a comparison with a missing attribute false.
func TestFoldCountsOnARowWithoutOccurrences(t *testing.T) {
	for name, e := range map[string]emutest.Emulator{"dynalite": emutest.Pair, "moto": emutest.Moto} {
		t.Run(name, func(t *testing.T) {
			db, table := e.Tables(t)
			ctx := context.Background()
			writer := dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed))
			c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", "L-1"), syncerror.SourceWebhook, "", time.Now())
			c.ID = syncerror.RowID(c.Record)
			if ok, err := writer.Claim(ctx, c); err != nil || !ok {
				t.Fatal(ok, err)
			}
			again := c
			again.Record.ErrorID = "L-2"
			res, row, err := dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed)).Fold(ctx, again, syncerror.ErrorKey("L-2"))
			if err != nil || res != syncerror.FoldOccurrence || row.Retry.Occurrences != 1 {
				t.Fatalf("%v %+v %v, want counted", res, row.Retry, err)
			}
		})
	}
}

// A row past its key bound is counted without the key, in the key's slot among the row's
// last keys, then the errorId's record is marked with the row: the errorId's put, the
// count, the mark. A store that has not seen the row (another process filled it) first has
// its put and a keeping count refused, the count billed at the row's size, then knows.
func TestFoldPastTheBoundCountsInTheKeysSlot(t *testing.T) {
	db, table := emutest.Pair.Tables(t)
	var log writeLog
	client := dynamodb.New(db.Options(), log.install)
	filler, claims := dynamo.NewDynamoClaims(db, table(blueprint.TableProcessed)), dynamo.NewDynamoClaims(client, table(blueprint.TableProcessed))
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fold := func(s *dynamo.DynamoClaims, i int) syncerror.Claim {
		t.Helper()
		rec := syncerrortest.SampleRecord("acme", fmt.Sprint("B-", i))
		rec.RecordID = "B"
		res, row, err := syncerror.Fold(ctx, s, syncerror.NewClaim(rec, syncerror.SourceWebhook, "", at), syncerror.Arrival{})
		if err != nil || (res != syncerror.FoldCreated && res != syncerror.FoldOccurrence) {
			t.Fatalf("post %d: %v %v", i, res, err)
		}
		return row
	}
	for i := range syncerror.MaxErrorKeys {
		fold(filler, i)
	}
	if row := fold(claims, syncerror.MaxErrorKeys); row.Retry.Occurrences != syncerror.MaxErrorKeys+1 || len(row.Retry.ErrorKeys) != syncerror.MaxErrorKeys {
		t.Fatalf("the first post past the bound: %d occurrences, %d keys", row.Retry.Occurrences, len(row.Retry.ErrorKeys))
	}
	if w, _ := log.take(); len(w) != 5 || !strings.Contains(w[2], "error_keys") || !strings.Contains(w[3], "#recent = :key") {
		t.Fatalf("a store new to the full row wrote %q; want the errorId's put, the refused create and keeping count, the count in the slot, the mark", w)
	}
	row := fold(claims, syncerror.MaxErrorKeys+1)
	w, _ := log.take()
	if len(w) != 3 || !strings.Contains(w[1], "#recent = :key") || strings.Contains(w[1], "error_keys") || !strings.Contains(w[2], "row_id") ||
		row.Retry.Occurrences != syncerror.MaxErrorKeys+2 {
		t.Fatalf("the next post past the bound wrote %q (%d occurrences); want the errorId's put, the count in the slot, the mark", w, row.Retry.Occurrences)
	}
}
