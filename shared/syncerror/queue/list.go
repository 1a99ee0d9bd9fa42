package queue

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

var classPattern = regexp.MustCompile(`^[a-z_]{1,32}$`)

// Sorts of the queue: newest and oldest follow the by_status index; class, confidence and
// escalated (newest escalation first) have no index and are sorted in a bounded window
// (listsort.go).
const (
	SortNewest     = "newest"
	SortOldest     = "oldest"
	SortClass      = "class"
	SortConfidence = "confidence"
	SortEscalated  = "escalated"
)

var sorts = []string{SortNewest, SortOldest, SortClass, SortConfidence, SortEscalated}

// Statuses the listing takes beside one row status: open (what still waits on someone:
// pending, retrying, escalated) and any (every status). Each is a merge of one store
// listing per status (listmerge.go).
const (
	StatusOpen = "open"
	StatusAny  = "any"
)

// OpenStatuses are the statuses of status=open.
var OpenStatuses = []syncerror.Status{syncerror.StatusPending, syncerror.StatusRetrying, syncerror.StatusEscalated}

// ListStatuses are the listing's status values: each row status, then open and any.
func ListStatuses() []string { return append(syncerror.StatusNames(), StatusOpen, StatusAny) }

// MaxSearchLen bounds the search text.
const MaxSearchLen = 200

// MaxSystemLen bounds the system filter as ParseRecord bounds externalSystem, so every
// system a row can carry can be asked for and nothing longer reaches the store.
const MaxSystemLen = 128

// ListFilters reads the queue's own filters: class (an error class), since (RFC 3339:
// rows claimed at or after it, which is how the console's age filter asks), q (search),
// assignee ("me", "none" or a user id), tag, system (an external system as the host sent
// it, compared without case, or the system it resolves to: systems.go), decider (who can
// approve, for the caller: you, approver, two_approvers) and sort; status open and any
// become the statuses they merge. It answers 400 with every field error and returns false
// on bad input.
func ListFilters(w http.ResponseWriter, r *http.Request, who identity.Identity, q syncerror.ListQuery) (syncerror.ListQuery, string, bool) {
	var errs []httpapi.FieldError
	bad := func(f, m string) { errs = append(errs, httpapi.FieldError{Field: f, Message: m}) }
	v := r.URL.Query()
	if q.Class = v.Get("class"); q.Class != "" && !classPattern.MatchString(q.Class) {
		bad("class", "must be an error class such as value or missing")
	}
	if s := v.Get("since"); s != "" {
		t, err := httpapi.ParseTime(s)
		if err != nil {
			bad("since", "must be an RFC 3339 time")
		}
		q.Since = t
	}
	q.Search = strings.TrimSpace(v.Get("q"))
	if !PlainText(q.Search, MaxSearchLen) {
		bad("q", "must be at most 200 characters, without control characters")
	}
	switch a := v.Get("assignee"); {
	case a == "me":
		q.Assignee = who.Actor
	case a == "none":
		q.Unassigned = true
	case a != "" && !syncerror.AssigneePattern.MatchString(a):
		bad("assignee", "must be me, none or a user id")
	default:
		q.Assignee = a
	}
	if q.Tag = v.Get("tag"); q.Tag != "" && !syncerror.TagPattern.MatchString(q.Tag) {
		bad("tag", "must be a tag: lower-case letters, digits, - or _")
	}
	if q.System = v.Get("system"); !PlainText(q.System, MaxSystemLen) {
		bad("system", "must be an external system such as webshop: at most 128 characters, without control characters")
	}
	switch q.Status {
	case StatusOpen:
		q.Statuses = OpenStatuses
	case StatusAny:
		q.Statuses = syncerror.Statuses
	}
	if q.Decider = v.Get("decider"); q.Decider != "" && !slices.Contains(policy.Deciders, q.Decider) {
		bad("decider", "must be one of "+strings.Join(policy.Deciders, ", "))
	}
	q.Approver = who.HasRole(identity.RoleApprover)
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

// PlainText reports whether a free-text parameter is valid UTF-8 of at most max characters
// without control characters: the shape of what a row's text fields can hold (records are
// decoded from JSON, so always valid UTF-8), so a value no row could match is named as the
// mistake it is instead of answering an empty queue.
func PlainText(s string, max int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= max && !syncerror.HasControl(s)
}

// listing is the queue listing's answer: the page, and on the first page the systems the
// System filter offers (systemChoices), so the console needs no read of its own for them.
type listing struct {
	Items      []Summary      `json:"items"`
	NextCursor *string        `json:"nextCursor"`
	Systems    []SystemChoice `json:"systems,omitempty"`
}

func writeListing(w http.ResponseWriter, items []Summary, next string, first bool, names tenant.Config) {
	l := listing{Items: items}
	if next != "" {
		l.NextCursor = &next
	}
	if first {
		l.Systems = systemChoices(names)
	}
	httpapi.WriteJSON(w, http.StatusOK, l)
}
