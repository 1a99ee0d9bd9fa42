package connector

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// Change is a record a changed-since read found, and when it last changed.
type Change struct {
	// Record is as Get returns it: the fields without the vendor's envelope, and Version.
	Record Record
	// ChangedAt is the vendor's modification time of the record, UTC.
	ChangedAt time.Time
}

// ChangePage is one page of changes, oldest first (by ChangedAt, then record id).
type ChangePage struct {
	Changes []Change
	// NextCursor is empty on the last page. It is opaque: only this client's Changes
	// takes it back, with the same entity and since.
	NextCursor string
}

// changeLister is a profile with a changed-since read.
type changeLister interface {
	changes(ctx context.Context, c *Client, q changeQuery) (ChangePage, error)
}

// changeQuery is one page of a changed-since read, past Changes' checks.
type changeQuery struct {
	entity string
	since  time.Time
	cursor string
	limit  int
}

// entityPattern is what Changes accepts as an entity: a plain identifier, because the
// NetSuite and Salesforce reads put it into a query's text (SuiteQL, SOQL), where
// anything else could change the query.
var entityPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_]{0,127}$`)

// maxCursorLen bounds a cursor handed back (Business Central's is a next-page URL).
const maxCursorLen = 4096

// Changes reads the records of entity that changed at or after since (inclusive: a record
// changed exactly at since is in it), oldest first, one page at a time. cursor "" is the
// first page; limit <= 0 lets the profile choose, and larger limits are clamped to the
// vendor's page maximum. entity must be a plain identifier (letters, digits, '_'). A system
// or entity that cannot be read this way answers ErrUnsupported.
//
// It is what a poll of a source that cannot push runs on; see each profile for the
// vendor's read and how it pages.
func (c *Client) Changes(ctx context.Context, entity string, since time.Time, cursor string, limit int) (ChangePage, error) {
	l, ok := c.prof.(changeLister)
	switch {
	case !ok:
		return ChangePage{}, &Error{System: c.sys, Op: OpChanges, Err: ErrUnsupported}
	case !entityPattern.MatchString(entity):
		return ChangePage{}, c.refuse(OpChanges, "entity must be 1 to 128 letters, digits or '_', starting with a letter or digit")
	case len(cursor) > maxCursorLen:
		return ChangePage{}, c.refuse(OpChanges, "cursor is not one this client issued")
	}
	return l.changes(ctx, c, changeQuery{entity: entity, since: since.UTC(), cursor: cursor, limit: limit})
}

// pageSize is limit within 1..max, def when not set.
func pageSize(limit, def, max int) int {
	if limit <= 0 {
		return def
	}
	return min(limit, max)
}

// atOrAfter keeps the changes at or after since, sorted oldest first: vendors whose
// filter is coarser than since (to the second, or exclusive) are asked from a little
// earlier, and what is before since is dropped here.
func atOrAfter(changes []Change, since time.Time) []Change {
	out := changes[:0]
	for _, ch := range changes {
		if !ch.ChangedAt.Before(since) {
			out = append(out, ch)
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		return cmp.Or(a.ChangedAt.Compare(b.ChangedAt), cmp.Compare(a.Record.ID, b.Record.ID))
	})
	return out
}

// offsetCursor is the cursor of vendors paged by offset: the next offset as text.
func offsetCursor(next int) string { return strconv.Itoa(next) }

// parseOffset reads an offsetCursor; "" is 0.
func parseOffset(cursor string) (int, bool) {
	if cursor == "" {
		return 0, true
	}
	n, err := strconv.Atoi(cursor)
	return n, err == nil && n >= 0 && strconv.Itoa(n) == cursor
}

// getJSON GETs target (with hdr, which may be nil) and decodes its answer into out; an
// answer that does not decode is malformed.
func (c *Client) getJSON(ctx context.Context, op, target string, hdr http.Header, out any) (answer, error) {
	ans, err := c.do(ctx, op, http.MethodGet, target, nil, hdr)
	if err != nil {
		return ans, err
	}
	if json.Unmarshal(ans.body, out) != nil {
		return ans, c.malformed(op, ans)
	}
	return ans, nil
}

// listing is how a vendor's changed-since answer holds its records: the keys of each
// record's id and modification time, the zone and layouts of that time, and the
// profile's decoder of one record's body.
type listing struct {
	idKey, stampKey string
	zone            *time.Location
	layouts         []string
	decode          func(body []byte, id string) (Record, error)
}

// changesIn reads the records of a listing answer as changes, oldest first from since.
// A record without an id or a readable time makes the answer malformed.
func (c *Client) changesIn(ans answer, raws []json.RawMessage, since time.Time, l listing) ([]Change, error) {
	out := make([]Change, 0, len(raws))
	for _, raw := range raws {
		obj, ok := decodeObject(raw)
		id := scalarText(obj[l.idKey])
		at, okAt := stamp(scalarText(obj[l.stampKey]), l.zone, l.layouts...)
		if !ok || id == "" || !okAt {
			return nil, c.malformed(OpChanges, ans)
		}
		rec, err := l.decode(raw, id)
		if err != nil {
			return nil, err
		}
		out = append(out, Change{Record: rec, ChangedAt: at})
	}
	return atOrAfter(out, since), nil
}

// stamp parses a vendor's modification time in one of layouts, in loc when the text
// carries no zone.
func stamp(text string, loc *time.Location, layouts ...string) (time.Time, bool) {
	for _, l := range layouts {
		if t, err := time.ParseInLocation(l, text, loc); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
