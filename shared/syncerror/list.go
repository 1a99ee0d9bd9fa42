package syncerror

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

var classPattern = regexp.MustCompile(`^[a-z_]{1,32}$`)

// Sorts of the queue: newest and oldest follow the by_status index; class and confidence
// have no index and are sorted in a bounded window (listsort.go).
const (
	SortNewest     = "newest"
	SortOldest     = "oldest"
	SortClass      = "class"
	SortConfidence = "confidence"
)

var sorts = []string{SortNewest, SortOldest, SortClass, SortConfidence}

// MaxSearchLen bounds the search text.
const MaxSearchLen = 200

// MaxSystemLen bounds the system filter as ParseRecord bounds externalSystem, so every
// system a row can carry can be asked for and nothing longer reaches the store.
const MaxSystemLen = 128

// listFilters reads the queue's own filters: class (an error class), since (RFC 3339:
// rows claimed at or after it, which is how the console's age filter asks), q (search),
// assignee ("me", "none" or a user id), tag, system (the external system exactly as the
// host sent it: not trimmed, case-sensitive), and sort. It answers 400 with every field
// error and returns false on bad input.
func listFilters(w http.ResponseWriter, r *http.Request, who identity.Identity, q ListQuery) (ListQuery, string, bool) {
	var errs []httpapi.FieldError
	bad := func(f, m string) { errs = append(errs, httpapi.FieldError{Field: f, Message: m}) }
	v := r.URL.Query()
	if q.Class = v.Get("class"); q.Class != "" && !classPattern.MatchString(q.Class) {
		bad("class", "must be an error class such as value or missing")
	}
	if s := v.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			bad("since", "must be an RFC 3339 time")
		}
		q.Since = t
	}
	q.Search = strings.TrimSpace(v.Get("q"))
	if !plainText(q.Search, MaxSearchLen) {
		bad("q", "must be at most 200 characters, without control characters")
	}
	switch a := v.Get("assignee"); {
	case a == "me":
		q.Assignee = who.Actor
	case a == "none":
		q.Unassigned = true
	case a != "" && !assigneePattern.MatchString(a):
		bad("assignee", "must be me, none or a user id")
	default:
		q.Assignee = a
	}
	if q.Tag = v.Get("tag"); q.Tag != "" && !tagPattern.MatchString(q.Tag) {
		bad("tag", "must be a tag: lower-case letters, digits, - or _")
	}
	if q.System = v.Get("system"); !plainText(q.System, MaxSystemLen) {
		bad("system", "must be an external system such as webshop: at most 128 characters, without control characters")
	}
	sort := v.Get("sort")
	if sort == "" {
		sort = SortNewest
	} else if !slices.Contains(sorts, sort) {
		bad("sort", "must be one of "+strings.Join(sorts, ", "))
	}
	q.Oldest = sort == SortOldest
	if len(errs) > 0 {
		httpapi.WriteInvalidQuery(w, r, errs)
		return q, "", false
	}
	return q, sort, true
}

// plainText reports whether a free-text parameter is valid UTF-8 of at most max characters
// without control characters: the shape of what a row's text fields can hold (records are
// decoded from JSON, so always valid UTF-8), so a value no row could match is named as the
// mistake it is instead of answering an empty queue.
func plainText(s string, max int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= max && !hasControl(s)
}
