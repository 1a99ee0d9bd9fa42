package dynamo_test

import (
	"context"
	"fmt"
	"slices"
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

// Past a row's key bound, what a store believes and what the table holds can part: the
// row deleted and made again under its id (a tenant's rows erased), closed, or its
// errorId's mark lost. None of it drops a post or opens a row for a duplicate.
func TestFoldPastTheBoundWhenTheRowChanged(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableProcessed)
		a, b := dynamo.NewDynamoClaims(db, name), dynamo.NewDynamoClaims(db, name)
		ctx := context.Background()
		at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		fold := func(s *dynamo.DynamoClaims, record, errorID string) (syncerror.FoldResult, syncerror.Claim) {
			t.Helper()
			rec := syncerrortest.SampleRecord("acme", errorID)
			rec.RecordID = record
			at = at.Add(time.Second)
			res, row, err := syncerror.Fold(ctx, s, syncerror.NewClaim(rec, syncerror.SourceWebhook, "", at), syncerror.Arrival{})
			if err != nil {
				t.Fatalf("%s: %v", errorID, err)
			}
			return res, row
		}
		fill := func(record string) (syncerror.Claim, string) {
			var row syncerror.Claim
			for i := range syncerror.MaxErrorKeys + 1 {
				_, row = fold(a, record, fmt.Sprintf("%s-%d", record, i))
			}
			return row, fmt.Sprintf("%s-%d", record, syncerror.MaxErrorKeys) // counted in its slot, marked
		}
		item := func(id string) dynamostore.Item {
			return dynamostore.Item{"tenant_id": dynamostore.Str("acme"), "id": dynamostore.Str(id)}
		}

		// Marked with a row that was deleted and made again: counted on the new row.
		row, past := fill("H")
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: item(row.ID)}); err != nil {
			t.Fatal(err)
		}
		if res, _ := fold(b, "H", "H-new"); res != syncerror.FoldCreated {
			t.Fatalf("the first post after the delete: %v", res)
		}
		if res, again := fold(b, "H", past); res != syncerror.FoldOccurrence || again.Retry.Occurrences != 2 {
			t.Fatalf("a redelivery marked with the deleted row: %v, %d occurrences; want counted on the new row", res, again.Retry.Occurrences)
		}
		// A store that saw the row full counts on the new one keeping the key.
		if res, got := fold(a, "H", "H-kept"); res != syncerror.FoldOccurrence || !slices.Contains(got.Retry.ErrorKeys, syncerror.ErrorKey("H-kept")) {
			t.Fatalf("a store that saw the row full, on the new row: %v, keys %d; want the key kept", res, len(got.Retry.ErrorKeys))
		}

		// Closed with the error in its slot and the mark lost: a duplicate, no recurrence row.
		row, past = fill("C")
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: item(row.ID),
			UpdateExpression:          aws.String("SET #s = :r"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: dynamostore.Item{":r": dynamostore.Str(string(syncerror.StatusResolved))}}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name),
			Key: item("~eid#" + syncerror.ErrorKey(past)), UpdateExpression: aws.String("REMOVE row_id, row_claimed")}); err != nil {
			t.Fatal(err)
		}
		if res, got := fold(b, "C", past); res != syncerror.FoldDuplicate || got.ID != row.ID {
			t.Fatalf("a redelivery of a closed row's error in its slot: %v on %s; want a duplicate of %s", res, got.ID, row.ID)
		}
		if st, err := b.SignatureState(ctx, "acme", row.Retry.Signature); err != nil || st.Generation != 0 {
			t.Fatalf("the signature moved to generation %d (%v): a row opened for a duplicate", st.Generation, err)
		}
	})
}

// Closed keys and marks outlive a row deleted with the tenant's rows: a redelivery whose
// error the row made again does not hold is folded, not answered as its duplicate.
func TestFoldAfterTheSignaturesRowsWereDeleted(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableProcessed)
		ctx := context.Background()
		at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		fold := func(errorID string) (syncerror.FoldResult, syncerror.Claim) {
			t.Helper()
			rec := syncerrortest.SampleRecord("acme", errorID)
			rec.RecordID = "D"
			at = at.Add(time.Second)
			// A store of its own each time: no process's hints or beliefs.
			s := dynamo.NewDynamoClaims(db, name)
			res, row, err := syncerror.Fold(ctx, s, syncerror.NewClaim(rec, syncerror.SourceWebhook, "", at), syncerror.Arrival{})
			if err != nil {
				t.Fatalf("%s: %v", errorID, err)
			}
			return res, row
		}
		key := func(id string) dynamostore.Item {
			return dynamostore.Item{"tenant_id": dynamostore.Str("acme"), "id": dynamostore.Str(id)}
		}
		closeRow := func(id string) {
			t.Helper()
			if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key(id),
				UpdateExpression: aws.String("SET #s = :r"), ExpressionAttributeNames: map[string]string{"#s": "status"},
				ExpressionAttributeValues: dynamostore.Item{":r": dynamostore.Str(string(syncerror.StatusResolved))}}); err != nil {
				t.Fatal(err)
			}
		}
		drop := func(id string) {
			t.Helper()
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key(id)}); err != nil {
				t.Fatal(err)
			}
		}
		_, r0 := fold("D-1")
		fold("D-2")
		closeRow(r0.ID)
		_, r1 := fold("D-3") // the signature's generation 1, closed keys D-1 and D-2
		drop(r0.ID)
		drop(r1.ID)
		if res, remade := fold("D-new"); res != syncerror.FoldCreated || remade.ID != r0.ID {
			t.Fatalf("the first post after the delete: %v on %s; want generation 0's row made again", res, remade.ID)
		}
		closeRow(r0.ID)
		res, got := fold("D-1")
		if res != syncerror.FoldCreated || !slices.Contains(got.Retry.ErrorKeys, syncerror.ErrorKey("D-1")) {
			t.Fatalf("a redelivery of the deleted row's error: %v on %s; want a row holding it", res, got.ID)
		}
		if again, _ := fold("D-1"); again != syncerror.FoldDuplicate {
			t.Fatalf("its next redelivery: %v; want a duplicate", again)
		}
	})
}
