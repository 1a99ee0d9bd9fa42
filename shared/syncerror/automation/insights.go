package automation

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Insights windows.
var insightWindows = map[string]time.Duration{"7d": 7 * 24 * time.Hour, "30d": 30 * 24 * time.Hour}

// insightStatuses are the row statuses insights read. Retry and resolve add theirs here.
var insightStatuses = []syncerror.Status{syncerror.StatusPending, syncerror.StatusRetrying, syncerror.StatusApplying, syncerror.StatusApproved, syncerror.StatusRejected, syncerror.StatusEscalated,
	syncerror.StatusResolved, syncerror.StatusReverted}

// Bounds of what one insights answer reads (rows per status, automation records).
const (
	maxInsightRows        = 5000
	maxInsightAutomations = 5000
)

// Counts are the figures of a window, overall or for one class.
type Counts struct {
	Received          int `json:"received"`
	FoldedOccurrences int `json:"foldedOccurrences"`
	AutoRetried       int `json:"autoRetried"`
	ResolvedByRetry   int `json:"resolvedByRetry"`
	ResolvedByPeople  int `json:"resolvedByPeople"`
	Rejected          int `json:"rejected"`
	// AutoApplied is what auto rules applied and people kept; a fix a rule applied and a
	// person then reverted counts under Reverted only, so every row counts in one of
	// resolvedByRetry, autoApplied, resolvedByPeople, rejected, reverted or open.
	AutoApplied int `json:"autoApplied"`
	Reverted    int `json:"reverted"`
	Open        int `json:"open"`
	// Resolved is resolvedByRetry + autoApplied + resolvedByPeople, AutoResolved is
	// resolvedByRetry + autoApplied: the two figures the rate divides (RateDefinition).
	Resolved     int `json:"resolved"`
	AutoResolved int `json:"autoResolved"`
	// AutoResolutionRate is autoResolved / resolved; nil when nothing was resolved.
	AutoResolutionRate *float64 `json:"autoResolutionRate"`
	// MedianSecondsToResolve is from the claim to the resolution; nil when none.
	MedianSecondsToResolve *float64 `json:"medianSecondsToResolve"`
	durations              []float64
}

// RateDefinition says what the auto-resolution rate divides, beside the figures.
const RateDefinition = "auto-resolved ÷ resolved: the sync errors a retry or an auto rule resolved (and no one reverted), " +
	"out of every resolved one (by a retry, an auto rule or a person); rejected, reverted and open ones are not resolved"

// RuleInsight is an auto rule's record in the window: what it applied or would have, and
// how that compares with what people decided.
type RuleInsight struct {
	RuleID           string `json:"ruleId"`
	Mode             string `json:"mode"`
	WouldHaveApplied int    `json:"wouldHaveApplied"`
	Applied          int    `json:"applied"`
	Reverted         int    `json:"reverted"`
	Same             int    `json:"same"`
	Edited           int    `json:"edited"`
	Rejected         int    `json:"rejected"`
	Undecided        int    `json:"undecided"`
	// Agreement is same / (same + edited + rejected); nil before people decided any.
	Agreement *float64 `json:"agreement"`
}

// Insights is the answer of the insights route.
type Insights struct {
	Window  string            `json:"window"`
	Since   time.Time         `json:"since"`
	Total   Counts            `json:"total"`
	ByClass map[string]Counts `json:"byClass"`
	// BySystem counts by the connector system each row's external system resolves to
	// (the name as sent when it resolves to none; "unspecified" when none was sent).
	BySystem map[string]Counts `json:"bySystem"`
	Rules    []RuleInsight     `json:"rules"`
	// Daily counts the window's rows by the UTC day they arrived, oldest first, one entry
	// for every day of the window (a quiet day counts zeros).
	Daily []DayCounts `json:"daily"`
	// RateDefinition says how autoResolutionRate is computed from the counts.
	RateDefinition string `json:"rateDefinition"`
	// Truncated is true when the window held more rows than one answer reads.
	Truncated bool `json:"truncated"`
}

// retryFacts reads what retry and recurrence folding record on a row: occurrences beyond
// the first, whether the schedule retried it (an attempt by "schedule:retry" in its
// history) and whether a retry resolved it.
func retryFacts(c syncerror.Claim) (folded int, autoRetried, resolvedByRetry bool) {
	folded = max(c.Retry.Occurrences-1, 0)
	for _, h := range c.History {
		if h.Action == "retry" && h.Actor == "schedule:retry" {
			autoRetried = true
			break
		}
	}
	return folded, autoRetried, c.Status == syncerror.StatusResolved && c.Retry.Resolution == syncerror.ResolutionRetried
}

// InsightsReader computes the insights of the tenant's rows and automation records.
type InsightsReader struct {
	Claims syncerror.ClaimStore
	// Tenants names the systems the rows count under (nil: the defaults alone).
	Tenants tenant.Reader
	// Assist holds the automation records the rules' figures read (nil: no rules).
	Assist *policy.Assist
	Now    func() time.Time
}

func (o *InsightsReader) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

// Handler serves GET /api/sync-error-assist/insights?window=7d|30d (operators).
func (o *InsightsReader) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		window := r.URL.Query().Get("window")
		if window == "" {
			window = "7d"
		}
		d, ok := insightWindows[window]
		if !ok {
			p := httpapi.NewProblem(http.StatusBadRequest, "invalid_query", "The query is invalid; see errors.")
			p.Errors = []httpapi.FieldError{{Field: "window", Message: "must be 7d or 30d"}}
			httpapi.WriteProblem(w, r, p)
			return
		}
		in, err := o.Insights(r.Context(), actor.TenantID, window, o.now().Add(-d))
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The insights are unavailable; retry shortly.")
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, in)
	})
}

// Insights computes the figures of rows claimed since.
func (o *InsightsReader) Insights(ctx context.Context, tenantID, window string, since time.Time) (Insights, error) {
	in := Insights{Window: window, Since: since, ByClass: map[string]Counts{}, BySystem: map[string]Counts{}, Rules: []RuleInsight{},
		RateDefinition: RateDefinition}
	days := newDaily(since, o.now())
	names := queue.SystemNames(ctx, o.Tenants, tenantID)
	for _, st := range insightStatuses {
		n, cursor := 0, ""
		for {
			page, err := o.Claims.List(ctx, tenantID, syncerror.ListQuery{Status: st, Since: since, Limit: syncerror.MaxListLimit, Cursor: cursor})
			if err != nil {
				return Insights{}, err
			}
			for _, c := range page.Claims {
				in.count(c)
				in.countSystem(c, names)
				days.add(c)
			}
			n += len(page.Claims)
			if cursor = page.NextCursor; cursor == "" {
				break
			}
			if n >= maxInsightRows {
				in.Truncated = true
				break
			}
		}
	}
	in.Total.finish()
	for k, c := range in.ByClass {
		c.finish()
		in.ByClass[k] = c
	}
	in.finishBySystem()
	in.Daily = days.finish()
	if o.Assist != nil {
		rules, truncated, err := o.ruleInsights(ctx, tenantID, since)
		if err != nil {
			return Insights{}, err
		}
		in.Rules, in.Truncated = rules, in.Truncated || truncated
	}
	return in, nil
}

func (in *Insights) count(c syncerror.Claim) {
	class := "unclassified"
	if c.Proposal != nil && c.Proposal.Class != "" {
		class = c.Proposal.Class
	}
	cc := in.ByClass[class]
	for _, t := range []*Counts{&in.Total, &cc} {
		t.add(c)
	}
	in.ByClass[class] = cc
}

func (t *Counts) add(c syncerror.Claim) {
	t.Received++
	folded, retried, byRetry := retryFacts(c)
	t.FoldedOccurrences += folded
	if retried {
		t.AutoRetried++
	}
	resolved := false
	switch {
	case byRetry:
		t.ResolvedByRetry, resolved = t.ResolvedByRetry+1, true
	case c.Status == syncerror.StatusApproved && approvedByPolicy(c):
		t.AutoApplied, resolved = t.AutoApplied+1, true
	case c.Status == syncerror.StatusApproved:
		t.ResolvedByPeople, resolved = t.ResolvedByPeople+1, true
	case c.Status == syncerror.StatusReverted:
		t.Reverted++
	case c.Status == syncerror.StatusRejected:
		t.Rejected++
	case c.Status == syncerror.StatusResolved:
		t.ResolvedByPeople, resolved = t.ResolvedByPeople+1, true
	default:
		t.Open++
	}
	if resolved {
		t.durations = append(t.durations, appliedAt(c).Sub(c.ClaimedAt).Seconds())
	}
}

// approvedByPolicy reports whether an auto rule approved the row.
func approvedByPolicy(c syncerror.Claim) bool {
	for _, h := range slices.Backward(c.History) {
		if h.Action == "approved" || h.Action == "approve" {
			return strings.HasPrefix(h.Actor, "policy:")
		}
	}
	return false
}

func (t *Counts) finish() {
	t.AutoResolved = t.ResolvedByRetry + t.AutoApplied
	t.Resolved = t.AutoResolved + t.ResolvedByPeople
	if t.Resolved > 0 {
		rate := float64(t.AutoResolved) / float64(t.Resolved)
		t.AutoResolutionRate = &rate
	}
	if n := len(t.durations); n > 0 {
		slices.Sort(t.durations)
		m := t.durations[n/2]
		if n%2 == 0 {
			m = (t.durations[n/2-1] + t.durations[n/2]) / 2
		}
		t.MedianSecondsToResolve = &m
	}
}

// ruleInsights reads the window's automation records newest first, so it stops at the
// first one older than since, and only a window with more than maxInsightAutomations is cut.
func (o *InsightsReader) ruleInsights(ctx context.Context, tenantID string, since time.Time) ([]RuleInsight, bool, error) {
	byRule := map[string]*RuleInsight{}
	var order []string
	n, cursor := 0, ""
	for {
		docs, next, err := o.Assist.Store.ListDocsNewest(ctx, tenantID, syncerror.DocAutomation, 200, cursor)
		if err != nil {
			return nil, false, err
		}
		for _, d := range docs {
			if d.Sort.Before(since) {
				return collect(byRule, order), false, nil
			}
			if n == maxInsightAutomations {
				return collect(byRule, order), true, nil
			}
			n++
			var a syncerror.Automation
			if json.Unmarshal(d.Body, &a) != nil {
				continue
			}
			ri := byRule[a.RuleID]
			if ri == nil {
				ri = &RuleInsight{RuleID: a.RuleID, Mode: a.Mode}
				byRule[a.RuleID], order = ri, append(order, a.RuleID)
			}
			ri.add(a)
		}
		if cursor = next; cursor == "" {
			return collect(byRule, order), false, nil
		}
	}
}

func (ri *RuleInsight) add(a syncerror.Automation) {
	if a.Mode == policy.ModeShadow {
		ri.WouldHaveApplied++
	}
	switch a.Outcome {
	case syncerror.OutcomeApplied:
		ri.Applied++
	case syncerror.OutcomeReverted:
		ri.Reverted++
		if a.Mode == policy.ModeEnforce {
			ri.Applied++
		} else {
			ri.Rejected++
		}
	case syncerror.OutcomeSame:
		ri.Same++
	case syncerror.OutcomeEdited:
		ri.Edited++
	case syncerror.OutcomeRejected:
		ri.Rejected++
	case "":
		ri.Undecided++
	}
}

func collect(m map[string]*RuleInsight, order []string) []RuleInsight {
	slices.Sort(order)
	out := make([]RuleInsight, 0, len(order))
	for _, id := range order {
		ri := *m[id]
		if d := ri.Same + ri.Edited + ri.Rejected; d > 0 {
			a := float64(ri.Same) / float64(d)
			ri.Agreement = &a
		}
		out = append(out, ri)
	}
	return out
}

// unspecifiedSystem keys, in the insights, rows whose host named no external system.
const unspecifiedSystem = "unspecified"

// countSystem counts the row under the system its host's name resolves to.
func (in *Insights) countSystem(c syncerror.Claim, names tenant.Config) {
	sys := queue.ResolvedSystem(names, c.Record.ExternalSystem)
	if sys == "" {
		sys = unspecifiedSystem
	}
	cc := in.BySystem[sys]
	cc.add(c)
	in.BySystem[sys] = cc
}

func (in *Insights) finishBySystem() {
	for k, c := range in.BySystem {
		c.finish()
		in.BySystem[k] = c
	}
}

// appliedAt is when c's fix was written, else when the row last changed.
func appliedAt(c syncerror.Claim) time.Time {
	if c.Applied != nil {
		return c.Applied.At
	}
	return c.UpdatedAt
}
