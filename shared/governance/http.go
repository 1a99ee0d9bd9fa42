package governance

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Route patterns of the governance API (net/http ServeMux and API Gateway syntax). The
// approve and deny handlers read the id with r.PathValue, so mount them with these.
const (
	PatternApprovals           = "GET /api/governance/approvals"
	PatternOwnershipRejections = "GET /api/governance/ownership-rejections"
	PatternLoopDetections      = "GET /api/governance/loop-detections"
	PatternApprove             = "POST /api/governance/approvals/{id}/approve"
	PatternDeny                = "POST /api/governance/approvals/{id}/deny"
)

// Listing limits.
const (
	// ReadWindow is how far back rejections and loop detections are served (the spec's
	// last hour); since may narrow it, never widen it.
	ReadWindow       = time.Hour
	DefaultListLimit = 50
	MaxListLimit     = 100
	// DefaultReleaseTimeout is how long an approval may sit in releasing before another
	// approve takes the release over.
	DefaultReleaseTimeout = 2 * time.Minute
)

// Problem codes of the governance API (documented in the README's API reference).
const (
	CodeInvalidQuery  = "invalid_query"
	CodeInvalidCursor = "invalid_cursor"
	CodeNotFound      = "not_found"
	CodeNotPending    = "not_pending"
	CodeLoopDetected  = "loop_detected"
	CodeDLPBlocked    = "dlp_blocked"
	// CodeDLPMaskedValue: a value of the write is a DLP mask or placeholder.
	CodeDLPMaskedValue         = "dlp_masked_value"
	CodeRecordChanged          = "record_changed"
	CodeConnectorNotConfigured = "connector_not_configured"
	CodeWriteFailed            = "write_failed"
	// CodeReleaseUnsettled: the release sent the write and its answer was lost (or a
	// release of an unsettled approval failed again): the write may have landed, and the
	// approval is unsettled, not pending.
	CodeReleaseUnsettled = "release_unsettled"
	// CodeUnsettledCreate: an approve of a create whose release may have sent it; a create
	// is never sent again (a second record), only settled by an approver's word.
	CodeUnsettledCreate = "unsettled_create"
	// CodeNotUnsettled: a settle of an approval that is not unsettled.
	CodeNotUnsettled = "not_unsettled"
	// CodeInvalidBody: an approve's body that is not a settle this API knows.
	CodeInvalidBody = "invalid_body"
	// CodeFourEyes: the identity that requested a held write may not release it.
	CodeFourEyes = "four_eyes"
	// CodeSuperseded: every value of the held write is older than one written since from
	// the same source record (supersede.go); releasing it would put back a value the
	// source no longer holds.
	CodeSuperseded = "superseded"
)

// Service serves the governance API. Handlers that only read need Records; approve needs
// Guard as well. Audit records the decisions; nil uses the guard's audit log. Authentication and the approver role are
// checked by middleware in front (validateGuestContext, then requireApproverRole).
type Service struct {
	Records RecordStore
	Guard   *Guard
	Audit   *audit.Log
	Now     func() time.Time
	// ReleaseTimeout defaults to DefaultReleaseTimeout.
	ReleaseTimeout time.Duration
}

// Window is the time range a listing covers.
type Window struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// ListResponse is the envelope of every governance listing. Window is absent from the
// approvals listing, which is not limited in time: a pending approval stays listed until
// it is decided.
type ListResponse[T any] struct {
	Items      []T     `json:"items"`
	Window     *Window `json:"window,omitempty"`
	NextCursor *string `json:"nextCursor"`
}

// RejectionItem is an ownership rejection as the API shows it.
type RejectionItem struct {
	ID            string    `json:"id"`
	Time          time.Time `json:"time"`
	Tenant        string    `json:"tenant"`
	Entity        string    `json:"entity"`
	DeclaredOwner string    `json:"declaredOwner"`
	Caller        string    `json:"caller"`
	Target        string    `json:"target"`
	Resource      string    `json:"resource"`
	Policy        string    `json:"policy"`
	CorrelationID string    `json:"correlationId"`
	Fields        []string  `json:"fields"`
}

// LoopItem is a loop detection as the API shows it.
type LoopItem struct {
	ID                string    `json:"id"`
	Time              time.Time `json:"time"`
	Tenant            string    `json:"tenant"`
	Entity            string    `json:"entity"`
	Caller            string    `json:"caller"`
	Target            string    `json:"target"`
	Resource          string    `json:"resource"`
	BreakingCondition string    `json:"breakingCondition"`
	CorrelationID     string    `json:"correlationId"`
}

// ApprovalItem is a pending ownership approval as the API shows it. It names the held
// fields but never their values, like every governance record.
type ApprovalItem struct {
	ID            string     `json:"id"`
	Time          time.Time  `json:"time"`
	Tenant        string     `json:"tenant"`
	Entity        string     `json:"entity"`
	DeclaredOwner string     `json:"declaredOwner"`
	Caller        string     `json:"caller"`
	Target        string     `json:"target"`
	Resource      string     `json:"resource"`
	Reason        string     `json:"reason"`
	Status        string     `json:"status"`
	Fields        []string   `json:"fields"`
	CorrelationID string     `json:"correlationId"`
	RequestedBy   string     `json:"requestedBy,omitempty"`
	WriteReason   string     `json:"writeReason,omitempty"`
	DecidedBy     string     `json:"decidedBy,omitempty"`
	DecidedAt     *time.Time `json:"decidedAt,omitempty"`
	// ReleaseByRetry says approving writes nothing: the operation that asked writes it
	// when it is approved again (WriteRequest.ReleaseByRetry), so the approver knows what
	// the button does before pressing it.
	ReleaseByRetry bool `json:"releaseByRetry,omitempty"`
	// Message is set on an approve's answer that wrote nothing (ReleaseByRetry): what the
	// release did and who writes the write now; and on a settle's answer.
	Message string `json:"message,omitempty"`
	// Create says the held write makes a new record: an unsettled one is never approved
	// again (sent again), only settled.
	Create bool `json:"create,omitempty"`
}

func rejectionItem(r OwnershipRejection) RejectionItem {
	return RejectionItem{ID: r.ID, Time: r.Time, Tenant: r.Tenant, Entity: r.Entity,
		DeclaredOwner: string(r.DeclaredOwner), Caller: string(r.Caller), Target: string(r.Target),
		Resource: r.Resource, Policy: string(r.Policy), CorrelationID: r.CorrelationID, Fields: nonNil(r.Fields)}
}

func loopItem(l LoopDetection) LoopItem {
	return LoopItem{ID: l.ID, Time: l.Time, Tenant: l.Tenant, Entity: l.Entity, Caller: string(l.Caller),
		Target: string(l.Target), Resource: l.Resource, BreakingCondition: l.BreakingCondition,
		CorrelationID: l.CorrelationID}
}

func approvalItem(a PendingApproval) ApprovalItem {
	it := ApprovalItem{ID: a.ID, Time: a.Time, Tenant: a.Tenant, Entity: a.Entity,
		DeclaredOwner: string(a.DeclaredOwner), Caller: string(a.Caller), Target: string(a.Target),
		Resource: a.Resource, Reason: a.Reason, Status: string(a.Status), Fields: nonNil(a.Fields),
		CorrelationID: a.CorrelationID, RequestedBy: a.RequestedBy, WriteReason: a.Request.Reason,
		DecidedBy: a.DecidedBy, ReleaseByRetry: releasedByRetry(a.Request), Create: a.Request.Create}
	if !a.DecidedAt.IsZero() {
		at := a.DecidedAt
		it.DecidedAt = &at
	}
	return it
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// caller returns the request's identity, answering 401 itself when there is none: the
// middleware in front should have refused such a request already.
func caller(w http.ResponseWriter, r *http.Request) (identity.Identity, bool) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		w.Header().Set("WWW-Authenticate", "Bearer")
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, identity.CodeUnauthenticated,
			"Sign in to use the governance API."))
		return identity.Identity{}, false
	}
	return id, true
}

func writeListError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrBadCursor) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, CodeInvalidCursor,
			"The cursor is not from a previous page of this listing."))
		return
	}
	httpapi.WriteUnavailable(w, r, err, "Governance records are unavailable; retry shortly.")
}

// parseLimit reads limit and cursor, appending to errs.
func parseLimit(r *http.Request, errs *[]httpapi.FieldError) (int, string) {
	v := r.URL.Query()
	limit := DefaultListLimit
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxListLimit {
			*errs = append(*errs, httpapi.FieldError{Field: "limit", Message: "must be a whole number from 1 to " + strconv.Itoa(MaxListLimit)})
		} else {
			limit = n
		}
	}
	return limit, httpapi.QueryCursor(v, errs)
}

// parseRecordQuery builds the window: the last hour up to now, narrowed by since. A since
// older than the hour is clamped, not refused, so a dashboard that remembers its last poll
// keeps working after a pause.
func (s *Service) parseRecordQuery(r *http.Request, tenant string) (RecordQuery, []httpapi.FieldError) {
	var errs []httpapi.FieldError
	now := s.now()
	q := RecordQuery{Tenant: tenant, From: now.Add(-ReadWindow), To: now}
	if v := r.URL.Query().Get("since"); v != "" {
		since, err := httpapi.ParseTime(v)
		switch {
		case err != nil:
			errs = append(errs, httpapi.FieldError{Field: "since", Message: "must be an RFC 3339 date-time"})
		case since.After(now):
			q.From = now
		case since.After(q.From):
			q.From = since.UTC()
		}
	}
	q.Limit, q.Cursor = parseLimit(r, &errs)
	return q, errs
}

func listResponse[T, R any](items []R, conv func(R) T, window *Window, next string) ListResponse[T] {
	resp := ListResponse[T]{Items: make([]T, 0, len(items)), Window: window}
	for _, it := range items {
		resp.Items = append(resp.Items, conv(it))
	}
	if next != "" {
		resp.NextCursor = &next
	}
	return resp
}

// OwnershipRejectionsHandler serves GET /api/governance/ownership-rejections?since=&limit=&cursor=.
func (s *Service) OwnershipRejectionsHandler() http.Handler {
	return windowed(s, s.Records.ListRejections, rejectionItem)
}

// LoopDetectionsHandler serves GET /api/governance/loop-detections?since=&limit=&cursor=.
func (s *Service) LoopDetectionsHandler() http.Handler {
	return windowed(s, s.Records.ListLoops, loopItem)
}

// windowed serves a listing of the last hour's records of one kind.
func windowed[R, T any](s *Service, list func(context.Context, RecordQuery) (Page[R], error), conv func(R) T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := caller(w, r)
		if !ok {
			return
		}
		q, errs := s.parseRecordQuery(r, id.TenantID)
		if len(errs) > 0 {
			httpapi.WriteInvalidQuery(w, r, errs)
			return
		}
		page, err := list(r.Context(), q)
		if err != nil {
			writeListError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, listResponse(page.Items, conv, &Window{q.From, q.To}, page.NextCursor))
	})
}

// ApprovalsHandler serves GET /api/governance/approvals?reason=ownership&status=pending
// &limit=&cursor=. reason defaults to ownership and status to pending.
func (s *Service) ApprovalsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := caller(w, r)
		if !ok {
			return
		}
		var errs []httpapi.FieldError
		v := r.URL.Query()
		q := ApprovalQuery{Tenant: id.TenantID, Reason: ReasonOwnership, Status: StatusPending}
		if reason := v.Get("reason"); reason != "" {
			if reason != ReasonOwnership {
				errs = append(errs, httpapi.FieldError{Field: "reason", Message: "must be ownership"})
			}
			q.Reason = reason
		}
		if status := ApprovalStatus(v.Get("status")); status != "" {
			if !status.Valid() {
				errs = append(errs, httpapi.FieldError{Field: "status",
					Message: "must be one of pending, releasing, unsettled, approved, denied"})
			}
			q.Status = status
		}
		q.Limit, q.Cursor = parseLimit(r, &errs)
		if len(errs) > 0 {
			httpapi.WriteInvalidQuery(w, r, errs)
			return
		}
		page, err := s.Records.ListApprovals(r.Context(), q)
		if err != nil {
			writeListError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, listResponse(page.Items, approvalItem, nil, page.NextCursor))
	})
}

// approvalID reads the path id; ids the service issues are short and plain, so anything
// else cannot exist and is answered like an unknown id.
func approvalID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	ok := id != "" && len(id) <= 128
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			ok = false
			break
		}
	}
	if !ok {
		writeDecisionError(w, r, ErrNotFound)
	}
	return id, ok
}
