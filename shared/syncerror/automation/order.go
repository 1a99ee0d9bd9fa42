package automation

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// syncerror.Automation records written before records carried their time (syncerror.Doc.Sort) are not in the
// newest-first list. The reconcile gives them one: a bounded number per run, resuming where
// the last run stopped, and, once a tenant's are all done, never walks them again.

// docAutoOrder is a tenant's progress through its automation records.
const docAutoOrder = "~migr#auto-order"

// AutoOrderPerRun bounds the records one reconcile run reads for one tenant.
const AutoOrderPerRun = 500

type autoOrder struct {
	Cursor string `json:"cursor,omitempty"`
	Done   bool   `json:"done"`
}

// OrderAutomation reads up to limit more of the tenant's automation records, gives those
// without a Sort their time, and says how many it gave one. A record changed meanwhile is
// left to its writer, which sets the Sort itself (UpdateDoc).
func OrderAutomation(ctx context.Context, s syncerror.DocStore, tenantID string, limit int, now time.Time) (int, error) {
	marker, err := s.GetDoc(ctx, tenantID, docAutoOrder)
	var at autoOrder
	switch {
	case errors.Is(err, syncerror.ErrNotFound):
	case err != nil:
		return 0, err
	default:
		if err := json.Unmarshal(marker.Body, &at); err != nil {
			return 0, err
		}
	}
	if at.Done {
		return 0, nil
	}
	ordered, read := 0, 0
	for read < limit {
		docs, next, err := s.ListDocs(ctx, tenantID, syncerror.DocAutomation, min(100, limit-read), at.Cursor)
		if err != nil {
			return ordered, err
		}
		read += len(docs)
		for _, d := range docs {
			n, err := orderOne(ctx, s, tenantID, d, now)
			if err != nil {
				return ordered, err
			}
			ordered += n
		}
		at.Cursor, at.Done = next, next == ""
		if at.Done {
			break
		}
	}
	body, _ := json.Marshal(at)
	_, err = s.PutDoc(ctx, tenantID, syncerror.Doc{Key: docAutoOrder, Version: marker.Version, Body: body}, now)
	if errors.Is(err, syncerror.ErrStateChanged) {
		err = nil // another run went on at the same time; the next run resumes from its mark
	}
	return ordered, err
}

// orderOne writes d again with its record's time as Sort, if it has none.
func orderOne(ctx context.Context, s syncerror.DocStore, tenantID string, d syncerror.Doc, now time.Time) (int, error) {
	var a syncerror.Automation
	if !d.Sort.IsZero() || json.Unmarshal(d.Body, &a) != nil || a.At.IsZero() {
		return 0, nil
	}
	d.Sort = a.DocSort()
	_, err := s.PutDoc(ctx, tenantID, d, now)
	if errors.Is(err, syncerror.ErrStateChanged) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return 1, nil
}
