package syncerror

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/jsonvalue"
)

// Doc is one of the queue's tenant documents kept beside its rows: the approval policy,
// what was learned from decisions, automation records, co-approvals and the auto-apply
// counter. Version is the optimistic lock: every change names the version it read.
type Doc struct {
	Key       string
	Version   int
	Body      json.RawMessage
	UpdatedAt time.Time
	// Sort places the document in ListDocsNewest (newest first); zero leaves it out. Keys
	// are no use for that order: an automation record's key holds a claim id, a hash.
	Sort time.Time
}

// Document keys start with "~", which no claim id does (ClaimID is "se_…"), so a document
// is never served as a row nor a row changed as a document.
const (
	// DocPolicy keys the tenant's approval policy; DocKnowledge prefixes what it learned.
	DocPolicy    = "~policy#approval"
	DocKnowledge = "~kn#"
	// DocAutomation keys an automation record by its row's claim id.
	DocAutomation = "~auto#"
	// DocCoApproval keys a two-approver fix's approvals by its row's claim id;
	// DocAutoCounter keys the tenant's auto-applies of the minute.
	DocCoApproval  = "~coappr#"
	DocAutoCounter = "~autocap"
)

// ValidDocKey reports whether key names a document rather than a claim.
func ValidDocKey(key string) bool { return strings.HasPrefix(key, "~") && len(key) <= 256 }

// DocStore keeps the documents; each change is one conditional write.
type DocStore interface {
	// GetDoc returns ErrNotFound when there is no document at key.
	GetDoc(ctx context.Context, tenantID, key string) (Doc, error)
	// PutDoc stores d if the stored version is d.Version (0: there is none yet) and
	// returns it stored, Version+1. ErrStateChanged when another change came first.
	PutDoc(ctx context.Context, tenantID string, d Doc, now time.Time) (Doc, error)
	// DeleteDoc deletes the document at key if it is at version. ErrStateChanged when it
	// is at another, ErrNotFound when there is none.
	DeleteDoc(ctx context.Context, tenantID, key string, version int) error
	// ListDocs pages the documents whose key starts with prefix, in key order.
	// ErrBadCursor for a cursor this listing did not issue.
	ListDocs(ctx context.Context, tenantID, prefix string, limit int, cursor string) ([]Doc, string, error)
	// ListDocsNewest pages the documents under prefix (which ends in "#") that have a
	// Sort, the newest Sort first (equal ones by key, descending); its cursor is a
	// position, so documents added meanwhile never shift a page. ErrBadCursor as ListDocs.
	ListDocsNewest(ctx context.Context, tenantID, prefix string, limit int, cursor string) ([]Doc, string, error)
}

// DocPrefix is the listing prefix a document's key belongs to: up to its first '#'.
func DocPrefix(key string) string {
	if i := strings.IndexByte(key, '#'); i >= 0 {
		return key[:i+1]
	}
	return key
}

// docSorter is a document body that says where ListDocsNewest places it.
type docSorter interface{ DocSort() time.Time }

// AssistStore is what the approval policy, the learning and the automation keep: the
// documents, and the one row transition they add (an approved row reverted).
type AssistStore interface {
	DocStore
	// MarkReverted moves an approved row to reverted with the entry. ErrStateChanged when
	// it is not approved, ErrNotFound when there is no row.
	MarkReverted(ctx context.Context, tenantID, id string, entry HistoryEntry, now time.Time) error
	// MarkRevertSent adds m to the revert marks (AppliedWrite.RevertMarks) of a row still
	// approved with the applied write w (its key and time), beside any mark before it: the
	// revert records that it is about to send before it sends, and never replaces the mark
	// of another revert, which may still land. Adding a mark the row has already (a resend)
	// changes nothing. ErrStateChanged when the row is not approved (a retry holds it) or
	// holds another write, ErrNotFound when there is no row.
	MarkRevertSent(ctx context.Context, tenantID, id string, w AppliedWrite, m RevertMark) error
	// ClearRevertSent removes m from the row's marks where the row has it: the revert that
	// set it is known not to have landed. The other marks stay. ErrStateChanged when the
	// row does not have m (nothing of m's to remove), ErrNotFound when there is no row.
	ClearRevertSent(ctx context.Context, tenantID, id string, m RevertMark) error
}

// StatusReverted is an approved row whose fix was written back out again (§ revert).
const StatusReverted Status = "reverted"

// UpdateDoc reads the document at key, lets change edit its body (nil body: none yet) and
// writes it back on the version read, again while another change comes first.
func UpdateDoc[T any](ctx context.Context, s DocStore, tenantID, key string, now time.Time, change func(v *T, exists bool) error) (T, error) {
	var zero T
	for attempt := 0; ; attempt++ {
		d, err := s.GetDoc(ctx, tenantID, key)
		exists := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			return zero, err
		}
		var v T
		if exists {
			// Numbers as json.Number: a fix kept in a document (an edit waiting for its second
			// approver) is written with every digit it was sent with.
			if err := jsonvalue.Unmarshal(d.Body, &v); err != nil {
				return zero, err
			}
		}
		if err := change(&v, exists); err != nil {
			return zero, err
		}
		body, err := json.Marshal(v)
		if err != nil {
			return zero, err
		}
		put := Doc{Key: key, Version: d.Version, Body: body}
		if ds, ok := any(v).(docSorter); ok {
			put.Sort = ds.DocSort()
		}
		_, err = s.PutDoc(ctx, tenantID, put, now)
		if errors.Is(err, ErrStateChanged) && attempt < 8 {
			continue
		}
		return v, err
	}
}
