package audit

import (
	"context"
	"errors"
)

// HasPageCap bounds the pages Has reads: each examines at most FilteredScanCap records
// of the query's window, so a tenant that wrote more than HasPageCap×FilteredScanCap
// records of the type in it is answered ErrTooManyToTell rather than read whole.
const HasPageCap = 20

// ErrTooManyToTell means Has read HasPageCap pages without finding a record nor reaching
// the end of the window: whether one is there cannot be told at that cost.
var ErrTooManyToTell = errors.New("audit: too many records in the window to tell")

// ErrResourceUnredacted means the record policy could not be applied to the resource Has
// looks for, so the stored form it must match is not known.
var ErrResourceUnredacted = errors.New("audit: the resource cannot be matched now")

// Has reports whether the tenant's log holds a record q selects (its window, action type,
// key, resource and result; Limit and Cursor are Has's own). It is how a feature finds
// its own durable record of an action another record (a ledger that keeps a day) lost:
// q.Resource is matched as Write stores it, after the record policy. Keep the window and
// the action type narrow: the key, resource and result filter what the store reads.
func (l *Log) Has(ctx context.Context, q Query) (bool, error) {
	if q.Resource != "" {
		clean, ok := l.redactText(ctx, q.Resource)
		if !ok {
			return false, ErrResourceUnredacted
		}
		q.Resource = clean
	}
	q.Limit, q.Cursor = 1, ""
	for range HasPageCap {
		p, err := l.Store.Query(ctx, q)
		if err != nil {
			return false, err
		}
		if len(p.Records) > 0 {
			return true, nil
		}
		if p.NextCursor == "" {
			return false, nil
		}
		q.Cursor = p.NextCursor
	}
	return false, ErrTooManyToTell
}
