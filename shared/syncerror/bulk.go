package syncerror

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// bulkActions are the decisions a bulk request may take; each item runs its own route.
var bulkActions = []string{"approve", "reject", "retry", "resolve"}

// Bulk decisions: limits and the time kept in reserve before the request's deadline (API
// Gateway gives an integration 30 s): an item is not started unless it can still finish.
const (
	MaxBulkItems        = 100
	bulkConcurrency     = 4
	BulkDeadlineReserve = 10 * time.Second
)

// BulkItem is the outcome of one proposal in a bulk decision: the status and body the
// single-item route answered (row on success, problem otherwise).
type BulkItem struct {
	ID      string           `json:"id"`
	Status  int              `json:"status"`
	Outcome string           `json:"outcome"`
	Row     json.RawMessage  `json:"row,omitempty"`
	Problem *httpapi.Problem `json:"problem,omitempty"`
}

// BulkResult is the answer of a bulk decision, items in request order.
type BulkResult struct {
	Results   []BulkItem `json:"results"`
	Succeeded int        `json:"succeeded"`
	Failed    int        `json:"failed"`
}

type bulkBody struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
	Reason string   `json:"reason"`
	Note   string   `json:"note"`
}

func (b bulkBody) validate() []httpapi.FieldError {
	var errs []httpapi.FieldError
	if !slices.Contains(bulkActions, b.Action) {
		errs = append(errs, httpapi.FieldError{Field: "action", Message: "must be approve, reject, retry or resolve"})
	}
	seen := map[string]bool{}
	for _, id := range b.IDs {
		if id == "" || len(id) > 128 || seen[id] {
			errs = append(errs, httpapi.FieldError{Field: "ids", Message: "must be distinct, non-empty proposal ids"})
			break
		}
		seen[id] = true
	}
	if len(b.IDs) == 0 || len(b.IDs) > MaxBulkItems {
		errs = append(errs, httpapi.FieldError{Field: "ids", Message: "must hold 1 to 100 proposal ids"})
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(b.Reason)); b.Action == "reject" && (n == 0 || n > 1000) {
		errs = append(errs, httpapi.FieldError{Field: "reason", Message: "is required to reject, at most 1000 characters"})
	}
	if b.Action == "resolve" && !slices.Contains(ResolveReasons, b.Reason) {
		errs = append(errs, httpapi.FieldError{Field: "reason", Message: "must be one of " + strings.Join(ResolveReasons, ", ")})
	}
	return errs
}

// BulkHandler serves POST /api/sync-error-assist/proposals/bulk. Each item goes through
// the single-item route's own handler (its lease, guarded write and audit for approve; its
// conditional decision for reject), never a shortcut, so a group is exactly the sum of its
// items. Items that cannot start before the deadline answer skipped, for a retry.
func (o *Operator) BulkHandler() http.Handler {
	approve, reject := o.ApproveHandler(), o.RejectHandler()
	retry, resolve := o.RetryHandler(), o.ResolveHandler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := who(w, r)
		if !ok || !featureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body bulkBody
		if !readJSON(w, r, &body, false) {
			return
		}
		if errs := body.validate(); len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The bulk decision is invalid.", errs)
			return
		}
		// Approve is not the approver's alone: each item goes through the single-item route,
		// which the tenant's approval policy decides (403 approval_not_allowed per item).
		single, outcome, payload := approve, "approved", map[string]any{}
		switch body.Action {
		case "reject":
			single, outcome, payload["reason"] = reject, "rejected", body.Reason
		case "retry":
			single, outcome = retry, "retried"
		case "resolve":
			single, outcome, payload["reason"] = resolve, "resolved", body.Reason
		}
		if body.Note != "" && body.Action != "reject" {
			payload["note"] = body.Note
		}
		itemBody, _ := json.Marshal(payload)
		res := BulkResult{Results: make([]BulkItem, len(body.IDs))}
		var wg sync.WaitGroup
		sem := make(chan struct{}, bulkConcurrency)
		for i, id := range body.IDs {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				res.Results[i] = bulkItem(r, single, id, itemBody, outcome)
			}()
		}
		wg.Wait()
		for _, it := range res.Results {
			if it.Status == http.StatusOK || it.Status == http.StatusAccepted {
				res.Succeeded++
			} else {
				res.Failed++
			}
		}
		httpapi.WriteJSON(w, http.StatusOK, res)
	})
}

// bulkItem runs one item through the single-item handler and reads its answer.
func bulkItem(r *http.Request, single http.Handler, id string, body []byte, outcome string) BulkItem {
	if d, ok := r.Context().Deadline(); ok && time.Until(d) < BulkDeadlineReserve {
		p := httpapi.NewProblem(http.StatusServiceUnavailable, "not_attempted",
			"Not started: the request ran out of time. Retry this item.")
		return BulkItem{ID: id, Status: p.Status, Outcome: "skipped", Problem: p}
	}
	req := r.Clone(r.Context())
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetPathValue("id", id)
	rec := &recorder{header: http.Header{}, Code: http.StatusOK}
	single.ServeHTTP(rec, req)
	item := BulkItem{ID: id, Status: rec.Code}
	switch rec.Code {
	case http.StatusOK:
		item.Outcome, item.Row = outcome, json.RawMessage(rec.Body.Bytes())
		return item
	case http.StatusAccepted:
		// The fix reached the host ERP and the reconcile completes the approval; or, under
		// a two_approvers rule, the approval is recorded and waits for a second approver.
		item.Outcome, item.Row = "written", json.RawMessage(rec.Body.Bytes())
		if bytes.Contains(rec.Body.Bytes(), []byte(`"needed":`)) {
			item.Outcome = "recorded"
		}
		return item
	}
	item.Outcome = "failed"
	var p httpapi.Problem
	if json.Unmarshal(rec.Body.Bytes(), &p) == nil {
		item.Problem = &p
	}
	return item
}

// recorder keeps what the single-item handler answered. (httptest's recorder would link a
// test package, and its flag, into the Lambda.)
type recorder struct {
	header http.Header
	Code   int
	Body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.Code, r.wrote = code, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.Body.Write(b)
}
