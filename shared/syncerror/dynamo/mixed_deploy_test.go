package dynamo

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// oldUpdate runs an update as the Lambda version before a6c17be wrote it (0fddcd4's
// FinishApply and BeginApply expressions, verbatim but for the write token).
func (r rawRows) oldUpdate(id, update, cond string, values dynamostore.Item) {
	r.t.Helper()
	if _, err := r.client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(r.table),
		Key: r.key("t1", id), UpdateExpression: aws.String(update), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: statusName(cond + update), ExpressionAttributeValues: values}); err != nil {
		r.t.Fatal(err)
	}
}

// During a deploy, an old Lambda ends a new lease (its REMOVE list does not know
// lease_key/lease_fix) and a later old approve takes a new lease on the row: the row then
// carries the new token with the dead lease's key and fix. The key is bound to the token it
// was stored with, so the row reads it as unbound and the settle looks for the old
// approve's write (its edit) as well, never for the dead lease's alone.
func TestAStaleLeaseKeyFromAnOldLambdaDoesNotHideTheWriteMade(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s, c, at := claimedAt3(t, e)
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, at, at); err != nil {
			t.Fatal(err)
		}
		f1 := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, 1, syncerror.Proposal{Class: "value", Fix: f1, InferenceID: c.ID + "-a1"}, at); err != nil {
			t.Fatal(err)
		}
		// New Lambda: approve takes the lease with its fix and key, then dies before writing.
		l1 := syncerror.NewLease(at, time.Minute)
		l1.Fix, l1.Key = f1, syncerror.FixKey(c.ID, f1)
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l1, nil, syncerror.HistoryEntry{At: at, Actor: "a", Action: "approve"}, at); err != nil {
			t.Fatal(err)
		}
		now := dynamostore.Str(dynamostore.FormatTime(at.Add(time.Hour)))
		empty, entry := &types.AttributeValueMemberL{}, historyList([]syncerror.HistoryEntry{{At: at, Actor: "reconcile", Action: "lease_expired"}})
		// Old reconcile: FinishApply back to pending (0fddcd4's expression).
		s.oldUpdate(c.ID, "SET #status = :to, status_key = :skey, updated_at = :now, apply_error = :err, "+
			"history = list_append(if_not_exists(history, :empty), :entry) REMOVE lease_token, lease_expires_at, lease_from",
			"#status = :applying AND lease_token = :tok AND attribute_not_exists(applied_key)", dynamostore.Item{
				":to": dynamostore.Str("pending"), ":skey": dynamostore.Str(statusKey("t1", syncerror.StatusPending)), ":now": now,
				":err": dynamostore.Str("lease expired"), ":empty": empty, ":entry": entry,
				":applying": dynamostore.Str("applying"), ":tok": dynamostore.Str(l1.Token)})
		// Old approve with an edit: BeginApply (0fddcd4's expression), writes f2 under its key.
		f2 := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DEU"}}
		b, _ := json.Marshal(f2)
		l2 := syncerror.NewLease(at.Add(time.Hour), time.Minute)
		s.oldUpdate(c.ID, "SET #status = :applying, status_key = :skey, lease_token = :tok, lease_expires_at = :exp, lease_from = :from, updated_at = :now, "+
			"history = list_append(if_not_exists(history, :empty), :entry), edited_fix = :edited",
			"#status = :from AND diagnosis = :ready", dynamostore.Item{
				":applying": dynamostore.Str("applying"), ":from": dynamostore.Str("pending"), ":ready": dynamostore.Str("ready"),
				":skey": dynamostore.Str(statusKey("t1", syncerror.StatusApplying)), ":tok": dynamostore.Str(l2.Token),
				":exp": dynamostore.Str(dynamostore.FormatTime(l2.ExpiresAt)), ":now": now, ":empty": empty, ":entry": entry,
				":edited": dynamostore.Str(string(b))})
		// The old approve's write of f2 lands (ledger: FixKey(f2)); the Lambda dies.
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		writes := syncerror.LeaseWrites(row)
		if !slices.ContainsFunc(writes, func(w syncerror.LeaseWrite) bool {
			return w.Key == syncerror.FixKey(c.ID, f2) && reflect.DeepEqual(w.Fix, f2)
		}) {
			t.Fatalf("lease %s carries key %s and fix %v from the dead lease %s; the settle looks for %+v, never for the write made (%s)",
				row.Lease.Token, row.Lease.Key, row.Lease.Fix, l1.Token, writes, syncerror.FixKey(c.ID, f2))
		}
		// A new approve's lease is bound again: its own write only.
		if err := s.FinishApply(ctx, "t1", c.ID, l2.Token, syncerror.StatusPending, "", syncerror.HistoryEntry{At: at, Actor: "reconcile", Action: "lease_expired"}, at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		l3 := syncerror.NewLease(at.Add(2*time.Hour), time.Minute)
		l3.Fix, l3.Key = f1, syncerror.FixKey(c.ID, f1)
		row, err = s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l3, nil, syncerror.HistoryEntry{At: at, Actor: "a", Action: "approve"}, at.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got := syncerror.LeaseWrites(row); len(got) != 1 || got[0].Key != l3.Key || row.Lease.Unbound {
			t.Fatalf("a lease taken by this version looks for %+v (unbound %v), want its own write only", got, row.Lease.Unbound)
		}
	})
}
