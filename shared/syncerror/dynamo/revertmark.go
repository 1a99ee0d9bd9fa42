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

// A revert's marks (syncerror.AppliedWrite.RevertMarks) are one string set, revert_marks,
// of "<time>#<token>", one element per revert: a revert ADDs its own and DELETEs only its
// own, so no revert's write removes or replaces another's mark. An applied write whose
// reverts are marked carries revert_marked (true); a row approved before marks were kept
// has neither. Neither is in an index: the retry reads its row whole, and neither write
// below changes an attribute by_status projects (not updated_at either), so neither
// writes the index.
//
// revert_sent is the single mark (a string) the first marking version kept, replaced by
// the next revert's: it is still read as one mark, so a row that version marked is not
// taken for one without a revert sent. It is never written.

const (
	attrRevertsMarked = "revert_marked"
	attrRevertMarks   = "revert_marks"
	attrRevertSentOld = "revert_sent"
)

func revertMarkString(m syncerror.RevertMark) string {
	return dynamostore.FormatTime(m.At) + "#" + m.Token
}

func parseRevertMark(v string) (syncerror.RevertMark, error) {
	at, tok, ok := strings.Cut(v, "#")
	t, err := dynamostore.ParseTime(at)
	if !ok || err != nil || tok == "" {
		return syncerror.RevertMark{}, fmt.Errorf("%q is no revert mark", v)
	}
	return syncerror.RevertMark{At: t, Token: tok}, nil
}

// putRevertMarks puts a's revert marks on a row item (claimItem).
func putRevertMarks(it dynamostore.Item, a syncerror.AppliedWrite) {
	if a.RevertsMarked {
		it[attrRevertsMarked] = &types.AttributeValueMemberBOOL{Value: true}
	}
	if len(a.RevertMarks) > 0 {
		set := &types.AttributeValueMemberSS{}
		for _, m := range a.RevertMarks {
			set.Value = append(set.Value, revertMarkString(m))
		}
		it[attrRevertMarks] = set
	}
}

// readRevertMarks reads a row item's revert marks into a (claimFrom). A mark that is not
// one fails the read rather than read as no mark: a retry would take it for no revert sent.
func readRevertMarks(it dynamostore.Item, a *syncerror.AppliedWrite) error {
	if v, ok := it[attrRevertsMarked].(*types.AttributeValueMemberBOOL); ok {
		a.RevertsMarked = v.Value
	}
	var all []string
	if v, ok := it[attrRevertMarks].(*types.AttributeValueMemberSS); ok {
		all = v.Value
	}
	if v := dynamostore.GetString(it, attrRevertSentOld); v != "" {
		all = append(all, v)
	}
	for _, v := range all {
		m, err := parseRevertMark(v)
		if err != nil {
			return fmt.Errorf("%s: %w", attrRevertMarks, err)
		}
		a.RevertMarks = append(a.RevertMarks, m)
	}
	syncerror.SortRevertMarks(a.RevertMarks)
	return nil
}

// MarkRevertSent implements AssistStore: one conditional ADD to the set. Not under a write
// token (updateRow's): adding an element the set has is no change, so the SDK's resend of
// one applied before its answer was lost succeeds as it was, and leaving the row's write
// token alone keeps another writer's resend telling its own write.
func (s *DynamoClaims) MarkRevertSent(ctx context.Context, tenantID, id string, w syncerror.AppliedWrite, m syncerror.RevertMark) error {
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      s.key(tenantID, id),
		ConditionExpression:      aws.String("#status = :approved AND applied_key = :key AND applied_at = :at"),
		UpdateExpression:         aws.String("ADD " + attrRevertMarks + " :mark"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: dynamostore.Item{
			":mark":     &types.AttributeValueMemberSS{Value: []string{revertMarkString(m)}},
			":approved": dynamostore.Str(string(syncerror.StatusApproved)),
			":key":      dynamostore.Str(w.Key),
			":at":       dynamostore.Str(dynamostore.FormatTime(w.At)),
		},
	})
	return s.refusedAs(ctx, "mark revert sent", tenantID, id, err)
}

// ClearRevertSent implements AssistStore: one conditional DELETE from the set (DynamoDB
// removes a set left empty). The SDK's resend of one applied before its answer was lost
// finds the mark gone and is refused (ErrStateChanged); the mark is gone either way, which
// is all the caller asks.
func (s *DynamoClaims) ClearRevertSent(ctx context.Context, tenantID, id string, m syncerror.RevertMark) error {
	v := revertMarkString(m)
	_, err := s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           aws.String(s.table),
		Key:                 s.key(tenantID, id),
		ConditionExpression: aws.String("contains(" + attrRevertMarks + ", :mark)"),
		UpdateExpression:    aws.String("DELETE " + attrRevertMarks + " :marks"),
		ExpressionAttributeValues: dynamostore.Item{
			":mark":  dynamostore.Str(v),
			":marks": &types.AttributeValueMemberSS{Value: []string{v}},
		},
	})
	return s.refusedAs(ctx, "clear revert sent", tenantID, id, err)
}

// refusedAs is an update's error as the store answers it: a refused condition is
// ErrNotFound where there is no row, ErrStateChanged otherwise.
func (s *DynamoClaims) refusedAs(ctx context.Context, op, tenantID, id string, err error) error {
	if dynamostore.IsConditionFailed(err) {
		if _, gerr := s.getItem(ctx, tenantID, id); gerr != nil {
			return gerr
		}
		return syncerror.ErrStateChanged
	}
	if err != nil {
		return fmt.Errorf("%s %s/%s: %w", op, tenantID, id, err)
	}
	return nil
}
