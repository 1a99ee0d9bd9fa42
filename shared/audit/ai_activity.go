package audit

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// AI record kinds: what the governed AI client leaves per inference.
const (
	KindTrace = "trace"
	KindCost  = "cost"
)

// AIRecordReader reads the governed AI client's records of one sync error (every attempt
// of its claim), oldest first, as the JSON documents that were stored.
type AIRecordReader interface {
	AIRecords(ctx context.Context, tenantID, kind, claimID string, limit int, cursor string) (docs []json.RawMessage, next string, err error)
}

// AI activity listing limits.
const (
	DefaultAILimit = 20
	MaxAILimit     = 100
)

var claimIDPattern = regexp.MustCompile(`^se_[a-z2-7]{10,64}$`)

// AIActivity serves GET /api/ai/traces and GET /api/ai/costs for approvers: what the AI saw
// and answered for one sync error, and what each inference cost. Traces are anonymized
// before they reach a provider; they are redacted once more on the way out (the record
// policy), so nothing a later detector finds leaves.
type AIActivity struct {
	Records  AIRecordReader
	Redactor Redactor
	Kind     string
}

// AIList is the envelope of both routes; TotalUSD is set for costs only and sums every
// cost record of the claim, not just the page.
type AIList struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor *string           `json:"nextCursor"`
	TotalUSD   *float64          `json:"totalUsd,omitempty"`
}

func (h *AIActivity) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, "unauthenticated", "Sign in to read AI activity."))
		return
	}
	q := r.URL.Query()
	var errs []httpapi.FieldError
	claimID := q.Get("claimId")
	if !claimIDPattern.MatchString(claimID) {
		errs = append(errs, httpapi.FieldError{Field: "claimId", Message: "is required: the sync error's id (se_…)"})
	}
	cursor := httpapi.QueryCursor(q, &errs)
	limit := DefaultAILimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxAILimit {
			errs = append(errs, httpapi.FieldError{Field: "limit", Message: "must be 1 to 100"})
		}
		limit = n
	}
	if len(errs) > 0 {
		httpapi.WriteInvalidQuery(w, r, errs)
		return
	}
	docs, next, err := h.Records.AIRecords(r.Context(), id.TenantID, h.Kind, claimID, limit, cursor)
	if errors.Is(err, ErrBadCursor) {
		httpapi.WriteBadCursor(w, r)
		return
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "AI records are unavailable; retry shortly.")
		return
	}
	out := AIList{Items: make([]json.RawMessage, 0, len(docs))}
	for _, d := range docs {
		red, err := h.Redactor.RedactJSON(r.Context(), d)
		if err != nil { // fail closed: an unredacted trace never leaves
			httpapi.WriteUnavailable(w, r, err, "AI records could not be redacted; retry shortly.")
			return
		}
		out.Items = append(out.Items, red)
	}
	if next != "" {
		out.NextCursor = &next
	}
	if h.Kind == KindCost {
		total, err := h.totalCost(r.Context(), id.TenantID, claimID)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "AI records are unavailable; retry shortly.")
			return
		}
		out.TotalUSD = &total
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// totalCost sums every cost record of the claim: two per diagnosis attempt, so a few.
func (h *AIActivity) totalCost(ctx context.Context, tenantID, claimID string) (float64, error) {
	total, cursor := 0.0, ""
	for {
		docs, next, err := h.Records.AIRecords(ctx, tenantID, KindCost, claimID, MaxAILimit, cursor)
		if err != nil {
			return 0, err
		}
		for _, d := range docs {
			var c struct {
				CostUSD float64 `json:"costUsd"`
			}
			if json.Unmarshal(d, &c) == nil {
				total += c.CostUSD
			}
		}
		if next == "" {
			return total, nil
		}
		cursor = next
	}
}
