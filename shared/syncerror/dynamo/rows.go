package dynamo

import (
	"context"
	"fmt"

	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// wholeRows reads the rows of found (claims decoded from an index that projects part of
// the row: blueprint.ByStatusAttributes) whole and strongly consistent, in found's order,
// for the sweeps that act on a row (ExpiredLeases, DueRetries). A row gone since the
// index answered is left out.
func (s *DynamoClaims) wholeRows(ctx context.Context, tenantID string, found []syncerror.Claim) ([]syncerror.Claim, error) {
	keys := make([]dynamostore.Item, 0, len(found))
	for _, c := range found {
		keys = append(keys, s.key(tenantID, c.ID))
	}
	items, err := dynamostore.BatchGet(ctx, s.client, s.table, keys)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", tenantID, err)
	}
	byID := make(map[string]dynamostore.Item, len(items))
	for _, it := range items {
		byID[dynamostore.GetString(it, "id")] = it
	}
	rows := make([]syncerror.Claim, 0, len(found))
	for _, c := range found {
		it, ok := byID[c.ID]
		if !ok {
			continue
		}
		row, err := claimFrom(it)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}
