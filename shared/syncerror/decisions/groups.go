package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"

	"context"
	"net/http"
	"sort"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// MaxGroupScan bounds how many pending rows one grouping reads; beyond it the answer says
// truncated, and the groups cover the newest rows.
const MaxGroupScan = 1000

// Change is a proposed value for one field, without the before value (which differs per
// record in a group).
type Change struct {
	Path  string `json:"path"`
	After any    `json:"after"`
}

// Group is the pending proposals that share a diagnosis: the same class and the same
// changes (path and the value an approve writes: the row's fix, FixOf), such as 40 orders
// failing on shipcountry Deutschland.
type Group struct {
	// Key names the changes (syncerror.ConfirmKey): the group approve sends it as fixKeys,
	// so that a member whose fix changed since this listing is not written.
	Key      string   `json:"key"`
	Class    string   `json:"class"`
	Changes  []Change `json:"changes"`
	Count    int      `json:"count"`
	IDs      []string `json:"ids"`
	ErrorIDs []string `json:"errorIds"`
	// RecordIDs name each member's record, in the order of IDs, so that the console can
	// list what a group decision will write before anyone confirms it.
	RecordIDs []string `json:"recordIds"`
	// Sample is the newest member, to show what the group is about.
	Sample queue.Summary `json:"sample"`
}

// Members are pending rows decided one by one: those whose diagnosis proposes no field
// change or failed, which a person must look at.
type Members struct {
	Count    int      `json:"count"`
	IDs      []string `json:"ids"`
	ErrorIDs []string `json:"errorIds"`
}

// GroupList is the answer of the proposal-groups route.
type GroupList struct {
	Items []Group `json:"items"`
	// NeedsPerson is every scanned row no group can decide, so none is silently left out.
	NeedsPerson Members `json:"needsPerson"`
	Scanned     int     `json:"scanned"`
	Truncated   bool    `json:"truncated"`
}

// changesOf is a fix as the group view and the bulk preview list it: each path and the
// value written, by path.
func changesOf(fix []syncerror.FieldChange) []Change {
	changes := make([]Change, 0, len(fix))
	for _, f := range fix {
		changes = append(changes, Change{Path: f.Path, After: f.After})
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes
}

// GroupPending groups claims (newest first) that are pending with a ready proposal that
// changes something; rows with nothing to write are never grouped: they are counted in
// needsPerson when their diagnosis is done (ready without a fix, or failed).
func (o *Service) GroupPending(ctx context.Context, claims []syncerror.Claim) ([]Group, Members) {
	byKey := map[string]*Group{}
	var order []string
	needs := Members{IDs: []string{}, ErrorIDs: []string{}}
	for _, c := range claims {
		if c.Status != syncerror.StatusPending {
			continue
		}
		// The fix a group approve writes for the row (FixOf): the AI's, or the edit the row
		// keeps for its next approve (EditKept). The console confirms a group approve by the
		// group's changes, so a row is grouped by what its approve writes, never by a fix
		// it does not write.
		fix := syncerror.FixOf(c)
		if c.Diagnosis == syncerror.DiagnosisFailed || c.Diagnosis == syncerror.DiagnosisReady && (c.Proposal == nil || len(fix) == 0) {
			needs.Count++
			needs.IDs = append(needs.IDs, c.ID)
			needs.ErrorIDs = append(needs.ErrorIDs, c.Record.ErrorID)
			continue
		}
		if c.Diagnosis != syncerror.DiagnosisReady {
			continue
		}
		// The key is what a group approve carries as confirmed (ConfirmKey): each member's
		// approve writes its fix only while the fix still has it.
		key, ok := syncerror.ConfirmKey(c.Proposal.Class, fix)
		if !ok {
			continue
		}
		g := byKey[key]
		if g == nil {
			g = &Group{Key: key, Class: c.Proposal.Class, Changes: changesOf(fix), Sample: o.Summarize(ctx, c)}
			byKey[key] = g
			order = append(order, key)
		}
		g.Count++
		g.IDs = append(g.IDs, c.ID)
		g.ErrorIDs = append(g.ErrorIDs, c.Record.ErrorID)
		g.RecordIDs = append(g.RecordIDs, c.Record.RecordID)
	}
	out := make([]Group, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	// Largest first; among equals the group with the newest member first (insertion order).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	return out, needs
}

// GroupsHandler serves GET /api/sync-error-assist/proposal-groups?status=pending, with the
// listing's filters (listFilters: the console sends class, since and system).
func (o *Service) GroupsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		if s := r.URL.Query().Get("status"); s != "" && s != string(syncerror.StatusPending) {
			httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "status", Message: "only pending proposals are grouped"}})
			return
		}
		q, _, ok := queue.ListFilters(w, r, id, syncerror.ListQuery{Status: syncerror.StatusPending})
		if !ok {
			return
		}
		q = queue.WithSystemNames(o.SystemNames(r.Context(), id.TenantID), q)
		claims, truncated, err := o.Collect(r.Context(), id.TenantID, q, MaxGroupScan)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
			return
		}
		groups, needs := o.GroupPending(r.Context(), claims)
		httpapi.WriteJSON(w, http.StatusOK, GroupList{Items: groups, NeedsPerson: needs, Scanned: len(claims), Truncated: truncated})
	})
}
