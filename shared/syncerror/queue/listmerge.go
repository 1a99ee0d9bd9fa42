package queue

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Status "open" and "any" (issue 35 §2). The by_status index keeps one partition per
// status, so a listing of several statuses is one store listing per status, merged here:
// each page reads one store page of each status still to read (the statuses share the
// store's scan bound, ListQuery.Share) and at most once more per status to place its
// cursor, so a merged page costs at most 2·n Queries (n statuses; unfiltered, each of
// limit+1 rows) and, filtered, examines about 2·ListScanCap rows whatever n is. Nothing is
// scanned and no index is added.
//
// The merge is exact: a row is answered only when no unread row of another status can come
// before it (it sorts before every status's frontier, the last row that status's page
// answered). A status whose filtered page ended at the scan bound with no row has an
// unknown frontier: the page then answers nothing from the others and goes on from where
// that status stopped, as a single status's filtered page may end empty with a cursor.

// mergeCursorPrefix marks a merged listing's cursor: base64url JSON of each status's store
// cursor ("" not started, "-" read to its end).
const mergeCursorPrefix = "m"

const statusDone = "-"

// list answers one page of q: the store's listing of q.Status, or the merge of q.Statuses.
func (o *Service) list(ctx context.Context, tenantID string, q syncerror.ListQuery) (syncerror.Page, error) {
	if len(q.Statuses) == 0 {
		return o.Claims.List(ctx, tenantID, q)
	}
	at, ok := decodeMergeCursor(q.Cursor, q.Statuses)
	if !ok {
		return syncerror.Page{}, syncerror.ErrBadCursor
	}
	type part struct {
		status syncerror.Status
		page   syncerror.Page
		taken  int
	}
	var parts []*part
	var frontier *syncerror.Claim // the latest-sorting frontier of the statuses with more to read
	blocked := false
	for _, st := range q.Statuses {
		if at[st] == statusDone {
			continue
		}
		sq := q
		sq.Status, sq.Statuses, sq.Cursor, sq.Share = st, nil, at[st], len(q.Statuses)
		p, err := o.Claims.List(ctx, tenantID, sq)
		if err != nil {
			return syncerror.Page{}, err
		}
		parts = append(parts, &part{status: st, page: p})
		if p.NextCursor == "" {
			continue
		}
		if len(p.Claims) == 0 {
			blocked = true
			continue
		}
		if last := p.Claims[len(p.Claims)-1]; frontier == nil || before(last, *frontier, q.Oldest) {
			frontier = &last
		}
	}
	type row struct {
		c    syncerror.Claim
		part *part
	}
	var rows []row
	for _, p := range parts {
		for _, c := range p.page.Claims {
			if !blocked && (frontier == nil || !before(*frontier, c, q.Oldest)) {
				rows = append(rows, row{c, p})
			}
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		switch {
		case before(a.c, b.c, q.Oldest):
			return -1
		case before(b.c, a.c, q.Oldest):
			return 1
		}
		return 0
	})
	rows = rows[:min(len(rows), q.Limit)]
	var out syncerror.Page
	for _, r := range rows {
		out.Claims = append(out.Claims, r.c)
		r.part.taken++
	}
	for _, p := range parts {
		next, err := o.placeAfter(ctx, tenantID, q, p.status, at[p.status], p.page, p.taken)
		if err != nil {
			return syncerror.Page{}, err
		}
		at[p.status] = next
	}
	for _, st := range q.Statuses {
		if at[st] != statusDone {
			out.NextCursor = encodeMergeCursor(at)
			break
		}
	}
	return out, nil
}

// placeAfter is where status st goes on after a merged page took the first taken rows of
// page (read from cursor from): its next cursor when it took them all, else a store cursor
// after the last row taken (one more read of those rows), else where it was.
func (o *Service) placeAfter(ctx context.Context, tenantID string, q syncerror.ListQuery, st syncerror.Status, from string, page syncerror.Page, taken int) (string, error) {
	switch {
	case taken == len(page.Claims) && page.NextCursor == "":
		return statusDone, nil
	case taken == len(page.Claims):
		return page.NextCursor, nil
	case taken == 0:
		return from, nil
	}
	sq := q
	sq.Status, sq.Statuses, sq.Cursor, sq.Limit, sq.Share = st, nil, from, taken, len(q.Statuses)
	p, err := o.Claims.List(ctx, tenantID, sq)
	if err != nil {
		return "", err
	}
	if p.NextCursor == "" {
		return statusDone, nil
	}
	return p.NextCursor, nil
}

// before reports whether a sorts before b: newest (or oldest) claim first, then by id as
// the stores order equal times.
func before(a, b syncerror.Claim, oldest bool) bool {
	if !a.ClaimedAt.Equal(b.ClaimedAt) {
		return a.ClaimedAt.After(b.ClaimedAt) != oldest
	}
	return a.ID != b.ID && (a.ID > b.ID) != oldest
}

func encodeMergeCursor(at map[syncerror.Status]string) string {
	b, _ := json.Marshal(at)
	return mergeCursorPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// decodeMergeCursor reads a merged cursor for statuses ("" is the first page); false for a
// cursor this listing did not issue.
func decodeMergeCursor(cursor string, statuses []syncerror.Status) (map[syncerror.Status]string, bool) {
	at := map[syncerror.Status]string{}
	if cursor == "" {
		return at, true
	}
	raw, ok := strings.CutPrefix(cursor, mergeCursorPrefix)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if !ok || err != nil || json.Unmarshal(b, &at) != nil {
		return nil, false
	}
	for st := range at {
		if !slices.Contains(statuses, st) {
			return nil, false
		}
	}
	return at, true
}
