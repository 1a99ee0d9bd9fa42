package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"

	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// A bulk request by filter ("select all N matching") acts on the queue listing's rows that
// match the filter, newest first, as they stood when it was counted: at most MaxBulkItems
// per request (one API Gateway integration's 30 s) and MaxBulkFilter in all, the rest
// left for another filter. Its cursor pins the count's time and the last row acted on, so
// a row that fails stays behind it (and is listed, never tried twice), and a row that
// arrives later is not taken.
const (
	MaxBulkFilter    = 1000
	maxBulkFilterLen = 2000
	maxPreviewFixes  = 20
	maxFixErrorIDs   = 5
	maxFixKeys       = 100
)

// BulkPreview is what a dryRun bulk request would act on.
type BulkPreview struct {
	// Total is how many rows the request would act on (by filter: at most MaxBulkFilter);
	// Truncated says more match than that.
	Total     int  `json:"total"`
	Truncated bool `json:"truncated"`
	// Fixes are the distinct fixes among them (largest first, at most 20), for the
	// confirmation to show what will be written; WithoutFix counts rows with none. The
	// approve sends the keys of those shown, and a row whose fix is not among them (one
	// beyond the 20, or changed since) is not written: it answers fix_changed.
	Fixes      []BulkFix `json:"fixes"`
	WithoutFix int       `json:"withoutFix"`
	// Allowed, for approve, is how many of them the approval policy lets the caller
	// approve; the others will be refused item by item.
	Allowed *int `json:"allowed,omitempty"`
	// Cursor, by filter, is what the acting requests send: it pins the rows to those
	// counted here.
	Cursor string `json:"cursor,omitempty"`
}

// BulkFix is one fix and how many of the rows propose it. Key is what the approve
// carries (fixKeys) for the fixes the approver confirmed.
type BulkFix struct {
	Key      string   `json:"key"`
	Class    string   `json:"class"`
	Changes  []Change `json:"changes"`
	Count    int      `json:"count"`
	ErrorIDs []string `json:"errorIds"`
}

// BulkCause is the failed items that failed alike (the same problem code and title).
type BulkCause struct {
	Code   string   `json:"code"`
	Title  string   `json:"title"`
	Detail string   `json:"detail,omitempty"`
	Count  int      `json:"count"`
	IDs    []string `json:"ids"`
}

type bulkTarget struct {
	id    string
	claim *syncerror.Claim
}

type bulkSelection struct {
	targets  []bulkTarget
	byFilter bool
	next     *string
	total    int
	more     bool
	cursor   string
}

// bulkCursor is where a bulk request by filter stands.
type bulkCursor struct {
	Key  string    `json:"k"`
	AsOf time.Time `json:"a"`
	At   time.Time `json:"t,omitzero"`
	ID   string    `json:"i,omitempty"`
	Done int       `json:"n"`
}

func (c bulkCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeBulkCursor(s, key string) (bulkCursor, bool) {
	var c bulkCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Key != key || c.Done < 0 || c.AsOf.IsZero() {
		return bulkCursor{}, false
	}
	return c, true
}

// validateFixKeys asks an approve for what its approver confirmed. One without fixKeys is
// refused, not run as before (every row's fix as it stands when written): the console
// that sent it showed a listing or a preview, and a fix changed since then would be
// written with values nobody confirmed. A client that shows no fix has confirmed none; it
// reads them with a dry run (or the groups) and sends their keys.
// Keys sent with another action, or with a dry run, are held to the same shape (the
// OpenAPI schema's): an empty or malformed list is an error, not ignored.
func (b bulkBody) validateFixKeys() []httpapi.FieldError {
	optional := b.Action != "approve" || b.DryRun
	if optional && b.FixKeys == nil {
		return nil
	}
	if len(b.FixKeys) == 0 || len(b.FixKeys) > maxFixKeys {
		msg := "is required to approve: the keys of the fixes you confirmed (a group's key, or a dry run's " +
			"preview.fixes[].key), 1 to 100; only rows whose fix still has one of them are written"
		if optional {
			msg = "is optional here; sent, it holds 1 to 100 keys of fixes (a group's key, or a dry run's preview.fixes[].key)"
		}
		return []httpapi.FieldError{{Field: "fixKeys", Message: msg}}
	}
	for _, k := range b.FixKeys {
		if k == "" || len(k) > 64 {
			return []httpapi.FieldError{{Field: "fixKeys", Message: "must be keys as the groups or a dry run answered them"}}
		}
	}
	return nil
}

func (b bulkBody) validateTriage() []httpapi.FieldError {
	var errs []httpapi.FieldError
	switch {
	case b.Action == "assign" && b.Assign == nil:
		errs = append(errs, httpapi.FieldError{Field: "assign", Message: "is required to assign: {\"to\": a user id, or \"\" to unassign}"})
	case b.Assign != nil && b.Assign.To == nil:
		// With assign an absent to would unassign every row; with another action it is the
		// same malformed object (the schema's required to), refused rather than ignored.
		errs = append(errs, httpapi.FieldError{Field: "assign.to", Message: "is required: a user id, or \"\" to unassign"})
	case b.Action == "assign" && *b.Assign.To != "" && !syncerror.AssigneePattern.MatchString(*b.Assign.To):
		errs = append(errs, httpapi.FieldError{Field: "assign.to", Message: "must be a user id of 1 to 128 letters, digits or . _ @ : + | -"})
	case b.Action == "tag" && (b.Tag == nil || (b.Tag.Add == "") == (b.Tag.Remove == "")):
		errs = append(errs, httpapi.FieldError{Field: "tag", Message: "needs exactly one of add or remove"})
	case b.Action == "tag" && !syncerror.TagPattern.MatchString(b.Tag.Add+b.Tag.Remove):
		errs = append(errs, httpapi.FieldError{Field: "tag", Message: "must be 1 to 32 lower-case letters, digits, - or _, starting with a letter or digit"})
	}
	return errs
}

// bulkTargets are the rows a bulk request names: its ids, or its filter's next rows.
func (o *Service) bulkTargets(w http.ResponseWriter, r *http.Request, actor identity.Identity, body bulkBody) (bulkSelection, bool) {
	if body.Filter == nil {
		sel := bulkSelection{total: len(body.IDs)}
		for _, id := range body.IDs {
			sel.targets = append(sel.targets, bulkTarget{id: id})
		}
		return sel, true
	}
	v, err := url.ParseQuery(*body.Filter)
	if err != nil {
		httpapi.WriteInvalidBody(w, r, "The bulk decision is invalid.", []httpapi.FieldError{{Field: "filter", Message: "must be the listing's query string"}})
		return bulkSelection{}, false
	}
	for _, k := range []string{"cursor", "limit", "sort", "format"} {
		v.Del(k)
	}
	if v.Get("status") == "" {
		v.Set("status", string(syncerror.StatusPending))
	}
	sum := sha256.Sum256([]byte(body.Action + "\n" + v.Encode()))
	key := base64.RawURLEncoding.EncodeToString(sum[:12])
	cur := bulkCursor{Key: key, AsOf: o.NowUTC().UTC()}
	if body.Cursor != "" {
		var ok bool
		if cur, ok = decodeBulkCursor(body.Cursor, key); !ok {
			httpapi.WriteBadCursor(w, r)
			return bulkSelection{}, false
		}
	}
	req := r.Clone(r.Context())
	req.URL = &url.URL{Path: r.URL.Path, RawQuery: v.Encode()}
	p, ok := httpapi.ParseList(w, req, httpapi.ListSpec{DefaultLimit: syncerror.DefaultListLimit, MaxLimit: syncerror.MaxListLimit, Statuses: queue.ListStatuses()})
	if !ok {
		return bulkSelection{}, false
	}
	q, _, ok := queue.ListFilters(w, req, actor, syncerror.ListQuery{Status: syncerror.Status(p.Status)})
	if !ok {
		return bulkSelection{}, false
	}
	q = queue.WithSystemNames(o.SystemNames(r.Context(), actor.TenantID), q)
	claims, truncated, err := o.Collect(r.Context(), actor.TenantID, q, MaxBulkFilter)
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; nothing was done. Retry shortly.")
		return bulkSelection{}, false
	}
	return selectAfter(claims, truncated, cur, body.DryRun), true
}

// selectAfter takes, newest first, the claims the cursor has not passed: claimed by its
// time, and after its last row.
func selectAfter(claims []syncerror.Claim, truncated bool, cur bulkCursor, dryRun bool) bulkSelection {
	slices.SortFunc(claims, func(a, b syncerror.Claim) int {
		return cmp.Or(b.ClaimedAt.Compare(a.ClaimedAt), cmp.Compare(b.ID, a.ID))
	})
	var rest []syncerror.Claim
	for _, c := range claims {
		if c.ClaimedAt.After(cur.AsOf) {
			continue
		}
		if cur.ID != "" && (c.ClaimedAt.After(cur.At) || c.ClaimedAt.Equal(cur.At) && c.ID >= cur.ID) {
			continue
		}
		rest = append(rest, c)
	}
	left := max(MaxBulkFilter-cur.Done, 0)
	sel := bulkSelection{byFilter: true, total: min(len(rest), left), more: truncated || len(rest) > left, cursor: cur.encode()}
	n := min(len(rest), left, MaxBulkItems)
	if dryRun {
		n = sel.total
	}
	for i := range n {
		sel.targets = append(sel.targets, bulkTarget{id: rest[i].ID, claim: &rest[i]})
	}
	if !dryRun && n > 0 && cur.Done+n < MaxBulkFilter && (len(rest) > n || truncated) {
		last := rest[n-1]
		next := bulkCursor{Key: cur.Key, AsOf: cur.AsOf, At: last.ClaimedAt, ID: last.ID, Done: cur.Done + n}.encode()
		sel.next = &next
	}
	return sel
}

// bulkPreview says what the selection would act on, without acting. Rows named by id are
// read here (those of another tenant, or unknown, are left out).
func (o *Service) bulkPreview(ctx context.Context, actor identity.Identity, action string, sel bulkSelection) (BulkPreview, error) {
	p := BulkPreview{Fixes: []BulkFix{}, Truncated: sel.more}
	if sel.byFilter {
		p.Cursor = sel.cursor
	}
	var pol *policy.Policy
	if action == "approve" && o.Assist != nil {
		got, err := o.Assist.Policies().Get(ctx, actor.TenantID)
		if err != nil {
			return BulkPreview{}, err
		}
		pol, p.Allowed = &got, new(int)
	}
	byKey := map[string]int{}
	for _, t := range sel.targets {
		c := t.claim
		if c == nil {
			got, err := o.Claims.Get(ctx, actor.TenantID, t.id)
			if errors.Is(err, syncerror.ErrNotFound) {
				continue
			}
			if err != nil {
				return BulkPreview{}, err
			}
			c = &got
		}
		p.Total++
		fix := syncerror.FixOf(*c)
		if pol != nil && mayApply(actor, pol.Decide(policy.FactsOf(*c, fix))) {
			*p.Allowed++
		}
		if len(fix) == 0 || c.Proposal == nil {
			p.WithoutFix++
			continue
		}
		p.addFix(byKey, c.Proposal.Class, fix, c.Record.ErrorID)
	}
	slices.SortStableFunc(p.Fixes, func(a, b BulkFix) int { return b.Count - a.Count })
	if len(p.Fixes) > maxPreviewFixes {
		p.Fixes = p.Fixes[:maxPreviewFixes]
	}
	return p, nil
}

func (p *BulkPreview) addFix(byKey map[string]int, class string, fix []syncerror.FieldChange, errorID string) {
	key, ok := syncerror.ConfirmKey(class, fix)
	if !ok {
		return
	}
	i, seen := byKey[key]
	if !seen {
		i, byKey[key] = len(p.Fixes), len(p.Fixes)
		p.Fixes = append(p.Fixes, BulkFix{Key: key, Class: class, Changes: changesOf(fix), ErrorIDs: []string{}})
	}
	p.Fixes[i].Count++
	if len(p.Fixes[i].ErrorIDs) < maxFixErrorIDs {
		p.Fixes[i].ErrorIDs = append(p.Fixes[i].ErrorIDs, errorID)
	}
}

// mayApply reports whether the approval policy's decision lets actor approve alone (a
// two-approver fix counts: the caller's approval is one of the two).
func mayApply(actor identity.Identity, d policy.Decision) bool {
	if d.Apply == policy.ApplyAuto || d.Apply == policy.ApplyOperator {
		return actor.HasRole(identity.RoleOperator)
	}
	return actor.HasRole(identity.RoleApprover)
}

// causesOf groups the failed items by their problem (code, title and detail), largest first.
func causesOf(items []BulkItem) []BulkCause {
	out := []BulkCause{}
	at := map[string]int{}
	for _, it := range items {
		if it.Status == http.StatusOK || it.Status == http.StatusAccepted || it.Outcome == outcomeChanged {
			continue
		}
		code, title, detail := "failed", "Failed", ""
		if it.Problem != nil {
			code, title, detail = it.Problem.Code, it.Problem.Title, it.Problem.Detail
		}
		// The detail too: one code (write_back_failed) covers a missing record and a busy
		// system, and each needs its own words and its own next step.
		k := code + "\x00" + title + "\x00" + detail
		i, ok := at[k]
		if !ok {
			i, at[k] = len(out), len(out)
			out = append(out, BulkCause{Code: code, Title: title, Detail: detail, IDs: []string{}})
		}
		out[i].Count++
		out[i].IDs = append(out[i].IDs, it.ID)
	}
	slices.SortStableFunc(out, func(a, b BulkCause) int { return b.Count - a.Count })
	return out
}
