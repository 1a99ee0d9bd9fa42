package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"

	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// bulkActions are what a bulk request may do; each item runs its own route (assign and tag
// run the triage route).
var bulkActions = []string{"approve", "reject", "retry", "resolve", "assign", "tag"}

// Bulk decisions: limits and the time kept in reserve before the request's deadline (API
// Gateway gives an integration 30 s): an item is not started unless it can still finish.
// Two items at a time: a vendor account's concurrency is shared by everything that calls
// it (NetSuite's floor is 5 requests in flight for the whole account, shared/ratebudget),
// and a bulk approve that took 4 of them, with releases lagging under load, met the
// shared budget's refusal on a write of its own (the browser suite) and would leave the
// host ERP's own integrations one slot.
const (
	MaxBulkItems        = 100
	bulkConcurrency     = 2
	BulkDeadlineReserve = 10 * time.Second
)

// BulkItem is the outcome of one proposal in a bulk decision: the status and body the
// single-item route answered (row on success, problem otherwise).
type BulkItem struct {
	ID string `json:"id"`
	// ErrorID and RecordID name the row when the request named a filter, not ids, so the
	// console can name rows it never loaded.
	ErrorID  string           `json:"errorId,omitempty"`
	RecordID string           `json:"recordId,omitempty"`
	Status   int              `json:"status"`
	Outcome  string           `json:"outcome"`
	Row      json.RawMessage  `json:"row,omitempty"`
	Problem  *httpapi.Problem `json:"problem,omitempty"`
}

// BulkResult is the answer of a bulk decision, items in request order.
type BulkResult struct {
	Results   []BulkItem `json:"results"`
	Succeeded int        `json:"succeeded"`
	Failed    int        `json:"failed"`
	// Causes are the failed items grouped by what failed them, largest first: nineteen
	// "Bad Gateway" answers are one cause with a count.
	Causes []BulkCause `json:"causes"`
	// NextCursor, on a request by filter, resumes it with the rows after these; null when
	// the filter's rows are done (or when the request named ids).
	NextCursor *string `json:"nextCursor"`
	// Preview is what a dryRun request would act on; nothing was done.
	Preview *BulkPreview `json:"preview,omitempty"`
}

type bulkBody struct {
	Action string   `json:"action"`
	IDs    []string `json:"ids"`
	// Filter is the queue listing's query string ("status=pending&class=value"), acted on
	// instead of ids; Cursor resumes it (bulk_filter.go).
	Filter *string `json:"filter"`
	Cursor string  `json:"cursor"`
	DryRun bool    `json:"dryRun"`
	// FixKeys, to approve, are the keys of the fixes the approver confirmed: a group's key,
	// or the dry run's fixes[].key (confirm.go).
	FixKeys []string `json:"fixKeys"`
	Reason  string   `json:"reason"`
	Note    string   `json:"note"`
	// Assign.To is a pointer: absent is refused, "" unassigns.
	Assign *struct {
		To *string `json:"to"`
	} `json:"assign"`
	Tag *struct {
		Add    string `json:"add"`
		Remove string `json:"remove"`
	} `json:"tag"`
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
	switch {
	case b.IDs != nil && (len(b.IDs) == 0 || len(b.IDs) > MaxBulkItems):
		// Given, ids hold 1 to 100, beside a filter too (the document's minItems).
		errs = append(errs, httpapi.FieldError{Field: "ids", Message: "must hold 1 to 100 proposal ids"})
	case b.Filter != nil && len(b.IDs) > 0:
		errs = append(errs, httpapi.FieldError{Field: "filter", Message: "give ids or a filter, not both"})
	case b.Filter != nil && len(*b.Filter) > maxBulkFilterLen:
		errs = append(errs, httpapi.FieldError{Field: "filter", Message: "must be the listing's query string, at most 2000 characters"})
	case b.Filter == nil && b.Cursor != "":
		errs = append(errs, httpapi.FieldError{Field: "cursor", Message: "resumes a filter; give the filter with it"})
	case b.Filter == nil && (len(b.IDs) == 0 || len(b.IDs) > MaxBulkItems):
		errs = append(errs, httpapi.FieldError{Field: "ids", Message: "must hold 1 to 100 proposal ids"})
	}
	errs = append(errs, b.validateTriage()...)
	errs = append(errs, b.validateFixKeys()...)
	if n := utf8.RuneCountInString(strings.TrimSpace(b.Reason)); b.Action == "reject" && (n == 0 || n > 1000) {
		errs = append(errs, httpapi.FieldError{Field: "reason", Message: "is required to reject, at most 1000 characters"})
	}
	if b.Action == "resolve" && !slices.Contains(syncerror.ResolveReasons, b.Reason) {
		errs = append(errs, httpapi.FieldError{Field: "reason", Message: "must be one of " + strings.Join(syncerror.ResolveReasons, ", ")})
	}
	return errs
}

// BulkHandler serves POST /api/sync-error-assist/proposals/bulk. Each item goes through
// the single-item route's own handler (its lease, guarded write and audit for approve; its
// conditional decision for reject; the triage route's compare-and-set for assign), never a
// shortcut, so a group is exactly the sum of its items. Items that cannot start before the
// deadline answer skipped, for a retry. The items are the ids given or, with a filter,
// the listing's rows that match it: at most MaxBulkItems per request and MaxBulkFilter
// in all, resumed with nextCursor (bulk_filter.go).
func (o *Service) BulkHandler() http.Handler {
	routes := map[string]http.Handler{"approve": o.ApproveHandler(), "reject": o.RejectHandler(), "retry": o.RetryHandler(),
		"resolve": o.ResolveHandler(), "assign": o.TriageHandler(), "tag": o.TriageHandler()}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok || !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body bulkBody
		if !syncerror.ReadJSON(w, r, &body, false) {
			return
		}
		if errs := body.validate(); len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The bulk decision is invalid.", errs)
			return
		}
		sel, ok := o.bulkTargets(w, r, actor, body)
		if !ok {
			return
		}
		if body.DryRun {
			p, err := o.bulkPreview(r.Context(), actor, body.Action, sel)
			if err != nil {
				httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; nothing was done. Retry shortly.")
				return
			}
			httpapi.WriteJSON(w, http.StatusOK, BulkResult{Results: []BulkItem{}, Causes: []BulkCause{}, Preview: &p})
			return
		}
		// Approve is not the approver's alone: each item goes through the single-item route,
		// which the tenant's approval policy decides (403 approval_not_allowed per item).
		res := BulkResult{Results: make([]BulkItem, len(sel.targets)), NextCursor: sel.next}
		// Each approve writes only a fix the approver confirmed; any other answers
		// fix_changed before its lease (syncerror.Unconfirmed).
		ir := r
		if body.Action == "approve" {
			ir = r.WithContext(syncerror.WithConfirmed(r.Context(), body.FixKeys))
		}
		var wg sync.WaitGroup
		sem := make(chan struct{}, bulkConcurrency)
		for i, t := range sel.targets {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				res.Results[i] = o.bulkOne(ir, routes[body.Action], body, t, sel.byFilter)
			}()
		}
		wg.Wait()
		for _, it := range res.Results {
			switch {
			case it.Status == http.StatusOK || it.Status == http.StatusAccepted:
				res.Succeeded++
			case it.Outcome != outcomeChanged: // neither: it waits for a review (bulkOne)
				res.Failed++
			}
		}
		res.Causes = causesOf(res.Results)
		httpapi.WriteJSON(w, http.StatusOK, res)
	})
}

// outcomeChanged is an approve's item whose fix changed since its approver confirmed it
// (fix_changed): not written, and no failure either, so neither counted as failed nor
// among the causes; the results list it.
const outcomeChanged = "changed"

// bulkOne runs one target through its route with the body the action asks for.
func (o *Service) bulkOne(r *http.Request, route http.Handler, body bulkBody, t bulkTarget, byFilter bool) BulkItem {
	payload, outcome, err := o.itemBody(r, body, t)
	var item BulkItem
	if err != nil {
		p := httpapi.NewProblem(http.StatusServiceUnavailable, "unavailable", "The row could not be read; nothing was done. Retry this item.")
		if errors.Is(err, syncerror.ErrNotFound) {
			p = httpapi.NewProblem(http.StatusNotFound, "not_found", "No such sync error.")
		}
		item = BulkItem{ID: t.id, Status: p.Status, Outcome: "failed", Problem: p}
	} else {
		item = bulkItem(r, route, t.id, payload, outcome)
	}
	if byFilter && t.claim != nil {
		item.ErrorID, item.RecordID = t.claim.Record.ErrorID, t.claim.Record.RecordID
	}
	return item
}

// itemBody is the single-item route's body for the action, and the outcome its success
// is named by. Assign compares with the assignee the row has now, read here when the
// request named ids: a bulk assign takes rows from whoever has them, as a person picking
// each row would, but never overwrites a change made since that read.
func (o *Service) itemBody(r *http.Request, body bulkBody, t bulkTarget) ([]byte, string, error) {
	payload, outcome := map[string]any{}, map[string]string{"approve": "approved", "reject": "rejected",
		"retry": "retried", "resolve": "resolved", "assign": "assigned", "tag": "tagged"}[body.Action]
	switch body.Action {
	case "reject", "resolve":
		payload["reason"] = body.Reason
	case "assign":
		c := t.claim
		if c == nil {
			got, err := o.Claims.Get(r.Context(), tenantOf(r), t.id)
			if err != nil {
				return nil, "", err
			}
			c = &got
		}
		payload = map[string]any{"assign": map[string]string{"to": *body.Assign.To, "from": c.Triage.Assignee}}
	case "tag":
		payload = map[string]any{"tag": map[string]string{"add": body.Tag.Add, "remove": body.Tag.Remove}}
		if body.Tag.Remove != "" {
			outcome = "untagged"
		}
	}
	if body.Note != "" && (body.Action == "approve" || body.Action == "retry" || body.Action == "resolve") {
		payload["note"] = body.Note
	}
	b, err := json.Marshal(payload)
	return b, outcome, err
}

// tenantOf is the caller's tenant (who has already answered for a request without one).
func tenantOf(r *http.Request) string {
	id, _ := identity.FromContext(r.Context())
	return id.TenantID
}

// bulkItem runs one item through the single-item handler and reads its answer.
func bulkItem(r *http.Request, single http.Handler, id string, body []byte, outcome string) BulkItem {
	if single == nil {
		p := httpapi.NewProblem(http.StatusInternalServerError, "internal", "No route for this action.")
		return BulkItem{ID: id, Status: p.Status, Outcome: "failed", Problem: p}
	}
	if d, ok := r.Context().Deadline(); ok && time.Until(d) < BulkDeadlineReserve {
		p := httpapi.NewProblem(http.StatusServiceUnavailable, "not_attempted",
			"Not started: the request ran out of time. Retry this item.")
		return BulkItem{ID: id, Status: p.Status, Outcome: "skipped", Problem: p}
	}
	rec := serveItem(r, single, id, body)
	if wait, ok := busyFor(rec); ok && enoughTime(r, wait) {
		time.Sleep(wait)
		rec = serveItem(r, single, id, body)
	}
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
		if p.Code == syncerror.CodeFixChanged {
			// Not a failure to retry: the row is for the approver to look at again.
			item.Outcome = outcomeChanged
		}
	}
	return item
}

// bulkRetryWait is how long an item whose target was busy waits before its one more try,
// and maxBulkRetryWait the longest wait a target may ask for and still be tried again
// within the request.
var bulkRetryWait = time.Second

const maxBulkRetryWait = 2 * time.Second

// serveItem runs one item through the single-item handler.
func serveItem(r *http.Request, single http.Handler, id string, body []byte) *syncerror.Recorder {
	req := r.Clone(r.Context())
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetPathValue("id", id)
	rec := syncerror.NewRecorder()
	single.ServeHTTP(rec, req)
	return rec
}

// busyFor says whether an item's answer is a target's passing refusal (busy, rate limited:
// the target marks it retryable) and how long to wait before trying it once more. Trying
// again is what the approver would do, and safe: the single-item route writes under the
// approve's idempotency key. A target that asks for longer than maxBulkRetryWait is left
// to the approver.
func busyFor(rec *syncerror.Recorder) (time.Duration, bool) {
	var p httpapi.Problem
	if rec.Code < 500 || json.Unmarshal(rec.Body.Bytes(), &p) != nil || p.Target == nil || !p.Target.Retryable {
		return 0, false
	}
	wait := bulkRetryWait
	if s, err := strconv.Atoi(rec.Header().Get("Retry-After")); err == nil {
		wait = time.Duration(s) * time.Second
	}
	return wait, wait <= maxBulkRetryWait
}

// enoughTime says whether the request can wait and still finish the item before its deadline.
func enoughTime(r *http.Request, wait time.Duration) bool {
	d, ok := r.Context().Deadline()
	return !ok || time.Until(d) > BulkDeadlineReserve+wait
}
