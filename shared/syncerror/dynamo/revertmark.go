package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert's mark (syncerror.AppliedWrite.RevertSent) is one attribute, revert_sent:
// "<time>#<token>", compared whole when a failed revert removes its own. An applied write
// whose reverts are marked carries revert_marked (true); a row approved before marks were
// kept has neither. Both are in no index: the retry reads its row whole, and neither
// write below changes an attribute by_status projects (not updated_at either), so
// neither writes the index.

const (
	attrRevertsMarked = "revert_marked"
	attrRevertSent    = "revert_sent"
)

func revertMarkValue(m syncerror.RevertMark) types.AttributeValue {
	return dynamostore.Str(dynamostore.FormatTime(m.At) + "#" + m.Token)
}

// putRevertMarks puts a's revert marks on a row item (claimItem).
func putRevertMarks(it dynamostore.Item, a syncerror.AppliedWrite) {
	if a.RevertsMarked {
		it[attrRevertsMarked] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if a.RevertSent != nil {
		it[attrRevertSent] = revertMarkValue(*a.RevertSent)
	}
}

// readRevertMarks reads a row item's revert marks into a (claimFrom).
func readRevertMarks(it dynamostore.Item, a *syncerror.AppliedWrite) error {
	if v, ok := it[attrRevertsMarked].(*types.AttributeValueMemberBOOL); ok {
		a.RevertsMarked = v.Value
	}
	v := dynamostore.GetString(it, attrRevertSent)
	if v == "" {
		return nil
	}
	at, tok, ok := strings.Cut(v, "#")
	t, err := dynamostore.ParseTime(at)
	if !ok || err != nil || tok == "" {
		return fmt.Errorf("%s %q is no revert mark", attrRevertSent, v)
	}
	a.RevertSent = &syncerror.RevertMark{At: t, Token: tok}
	return nil
}

// MarkRevertSent implements AssistStore: one conditional update, under a write token
// (updateRow), so the SDK's resend of one whose answer was lost succeeds as it was.
func (s *DynamoClaims) MarkRevertSent(ctx context.Context, tenantID, id string, w syncerror.AppliedWrite, m syncerror.RevertMark) error {
	_, err := s.updateRow(ctx, "mark revert sent", tenantID, id, "SET "+attrRevertSent+" = :mark",
		dynamostore.Item{
			":mark":     revertMarkValue(m),
			":approved": dynamostore.Str(string(syncerror.StatusApproved)),
			":key":      dynamostore.Str(w.Key),
			":at":       dynamostore.Str(dynamostore.FormatTime(w.At)),
		}, "#status = :approved AND applied_key = :key AND applied_at = :at")
	return err
}

// ClearRevertSent implements AssistStore. Not under a write token (updateRow's updates
// begin with SET, and a removal sets nothing): the SDK's resend of one applied before its
// answer was lost finds the mark gone and is refused (ErrStateChanged), and the mark is
// gone either way, which is all the caller asks.
func (s *DynamoClaims) ClearRevertSent(ctx context.Context, tenantID, id string, m syncerror.RevertMark) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       s.key(tenantID, id),
		ConditionExpression:       aws.String(attrRevertSent + " = :mark"),
		UpdateExpression:          aws.String("REMOVE " + attrRevertSent),
		ExpressionAttributeValues: dynamostore.Item{":mark": revertMarkValue(m)},
	})
	if dynamostore.IsConditionFailed(err) {
		if _, gerr := s.getItem(ctx, tenantID, id); gerr != nil {
			return gerr
		}
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("clear revert sent %s/%s: %w", tenantID, id, err)
	}
	return nil
}
