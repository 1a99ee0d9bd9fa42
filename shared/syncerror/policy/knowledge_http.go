package policy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/jsonvalue"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Knowledge listing limits.
const (
	DefaultKnowledgeLimit = 50
	MaxKnowledgeLimit     = 200
)

// KnowledgeListHandler serves GET /api/settings/knowledge?limit=&cursor= (admins): what
// the tenant learned, paged.
func (o *Service) KnowledgeListHandler() http.Handler {
	return o.docList(syncerror.DocKnowledge, DefaultKnowledgeLimit, MaxKnowledgeLimit, false, func(d syncerror.Doc) (any, bool, error) {
		k, err := knowledgeOf(d)
		return k, true, err
	})
}

// AutomationListHandler serves GET /api/sync-error-assist/automation?mode=&outcome=&rule=
// &limit=&cursor= (operators): what the auto rules applied (enforce) or would have applied
// (shadow), each with how it came out, newest first (by when the rule acted); the
// console's Auto-resolved view. outcome=applied keeps what a rule did write (applied, or
// applied and reverted since), not what it was stopped from writing (auto_apply off, the
// cap, a failure); outcome=disagreed keeps shadow records people edited or rejected. A
// filter may leave a page short of limit; follow nextCursor.
func (o *Service) AutomationListHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.URL.Query()
		mode, outcome, rule := v.Get("mode"), v.Get("outcome"), v.Get("rule")
		var errs []httpapi.FieldError
		if mode != "" && mode != ModeShadow && mode != ModeEnforce {
			errs = append(errs, httpapi.FieldError{Field: "mode", Message: "must be shadow or enforce"})
		}
		if _, ok := automationOutcomes[outcome]; !ok {
			errs = append(errs, httpapi.FieldError{Field: "outcome", Message: "must be applied or disagreed"})
		}
		if len(rule) > 128 {
			errs = append(errs, httpapi.FieldError{Field: "rule", Message: "must be a rule id of at most 128 characters"})
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidQuery(w, r, errs)
			return
		}
		keep := automationOutcomes[outcome]
		o.docList(syncerror.DocAutomation, syncerror.DefaultListLimit, syncerror.MaxListLimit, true, func(d syncerror.Doc) (any, bool, error) {
			var a syncerror.Automation
			// With its digits: the fix is what the rule wrote (or would have), shown as such.
			err := jsonvalue.Unmarshal(d.Body, &a)
			ok := err == nil && (mode == "" || a.Mode == mode) && (rule == "" || a.RuleID == rule) && (keep == nil || keep[a.Outcome])
			if ok && a.ErrorID == "" {
				o.nameAutomation(r.Context(), &a)
			}
			return a, ok, err
		}).ServeHTTP(w, r)
	})
}

// automationOutcomes are the outcome filters of the automation listing (nil keeps all).
var automationOutcomes = map[string]map[string]bool{
	"":          nil,
	"applied":   {syncerror.OutcomeApplied: true, syncerror.OutcomeReverted: true},
	"disagreed": {syncerror.OutcomeEdited: true, syncerror.OutcomeRejected: true},
}

// nameAutomation reads the row of a record stored without its names; a row that cannot
// be read leaves them empty (the console then shows the claim id).
func (o *Service) nameAutomation(ctx context.Context, a *syncerror.Automation) {
	id, _ := identity.FromContext(ctx)
	if c, err := o.Claims.Get(ctx, id.TenantID, a.ClaimID); err == nil {
		a.ErrorID, a.RecordType, a.RecordID = c.Record.ErrorID, c.Record.RecordType, c.Record.RecordID
	}
}

// docList pages the documents under prefix, in key order or, newest, by their Sort.
func (o *Service) docList(prefix string, def, maxLimit int, newest bool, decode func(syncerror.Doc) (any, bool, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := o.assistReady(w, r)
		if !ok {
			return
		}
		q, ok := httpapi.ParseList(w, r, httpapi.ListSpec{DefaultLimit: def, MaxLimit: maxLimit, StatusOptional: true})
		if !ok {
			return
		}
		list := o.Assist.Store.ListDocs
		if newest {
			list = o.Assist.Store.ListDocsNewest
		}
		docs, next, err := list(r.Context(), actor.TenantID, prefix, q.Limit, q.Cursor)
		if errors.Is(err, syncerror.ErrBadCursor) {
			httpapi.WriteBadCursor(w, r)
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The list is unavailable; retry shortly.")
			return
		}
		items := make([]any, 0, len(docs))
		for _, d := range docs {
			v, keep, err := decode(d)
			if err != nil {
				httpapi.WriteInternal(w, r, err)
				return
			}
			if keep {
				items = append(items, v)
			}
		}
		httpapi.WriteList(w, items, next)
	})
}

// loadKnowledge reads the knowledge the path's id names; false when it answered.
func (o *Service) loadKnowledge(w http.ResponseWriter, r *http.Request, tenantID string) (Knowledge, string, bool) {
	key, ok := knowledgeKeyOf(r.PathValue("id"))
	var d syncerror.Doc
	err := syncerror.ErrNotFound
	if ok {
		d, err = o.Assist.Store.GetDoc(r.Context(), tenantID, key)
	}
	if errors.Is(err, syncerror.ErrNotFound) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "not_found", "No such knowledge."))
		return Knowledge{}, "", false
	}
	if err != nil {
		httpapi.WriteUnavailable(w, r, err, "The knowledge is unavailable; retry shortly.")
		return Knowledge{}, "", false
	}
	k, err := knowledgeOf(d)
	if err != nil {
		httpapi.WriteInternal(w, r, err)
		return Knowledge{}, "", false
	}
	return k, key, true
}

func staleKnowledge(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "stale_version",
		"The knowledge changed since it was read; read it again."))
}

// KnowledgePutHandler serves PUT /api/settings/knowledge/{id} (admins), {"value", "version"}:
// corrects the learned value. The correction counts as the admin's approval of it (the
// earlier approvals were of another value); a value people rejected is proposed again.
func (o *Service) KnowledgePutHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := o.assistReady(w, r)
		if !ok {
			return
		}
		var body struct {
			Value   json.RawMessage `json:"value"`
			Version *int            `json:"version"`
		}
		if !syncerror.ReadJSON(w, r, &body, false) {
			return
		}
		var value any
		var fe []syncerror.FieldError
		if len(body.Value) == 0 || jsonvalue.Unmarshal(body.Value, &value) != nil {
			fe = append(fe, syncerror.FieldError{Field: "value", Message: "is required: the value to propose"})
		}
		if body.Version == nil || *body.Version < 1 {
			fe = append(fe, syncerror.FieldError{Field: "version", Message: "is required: the version the listing returned (1 or more)"})
		}
		if len(fe) > 0 {
			writeFieldErrors(w, r, fe)
			return
		}
		before, key, ok := o.loadKnowledge(w, r, actor.TenantID)
		if !ok {
			return
		}
		if err := Learnable(before.Field, value); err != nil {
			writeFieldErrors(w, r, []syncerror.FieldError{{Field: "value", Message: err.Error()}})
			return
		}
		if before.Version != *body.Version {
			staleKnowledge(w, r)
			return
		}
		now := o.NowUTC()
		after := before
		after.Value, after.HasValue, after.Approvals, after.Rejections = value, true, 1, 0
		after.Approvers, after.LastApprovedBy, after.LastApprovedAt, after.CorrectedBy = []string{actor.Actor}, actor.Actor, &now, actor.Actor
		after.Rejected = without(after.Rejected, value)
		b, _ := json.Marshal(after)
		d, err := o.Assist.Store.PutDoc(r.Context(), actor.TenantID, syncerror.Doc{Key: key, Version: before.Version, Body: b}, now)
		if errors.Is(err, syncerror.ErrStateChanged) {
			staleKnowledge(w, r)
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The knowledge could not be stored; nothing was changed.")
			return
		}
		after.Version, after.UpdatedAt = d.Version, d.UpdatedAt
		o.settingsAudit(r.Context(), actor, "settings.knowledge_correct", "knowledge/"+before.ID, map[string]any{"before": before, "after": after})
		httpapi.WriteJSON(w, http.StatusOK, after)
	})
}

func without(rs []RejectedValue, value any) []RejectedValue {
	out := []RejectedValue{}
	for _, r := range rs {
		if !jsonvalue.Same(r.Value, value) {
			out = append(out, r)
		}
	}
	return out
}

// KnowledgeDeleteHandler serves DELETE /api/settings/knowledge/{id}?version= (admins):
// forgets a case; the next such error is diagnosed afresh.
func (o *Service) KnowledgeDeleteHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := o.assistReady(w, r)
		if !ok {
			return
		}
		before, key, ok := o.loadKnowledge(w, r, actor.TenantID)
		if !ok {
			return
		}
		version := before.Version
		if s := r.URL.Query().Get("version"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				p := httpapi.NewProblem(http.StatusBadRequest, "invalid_query", "The query is invalid; see errors.")
				p.Errors = []httpapi.FieldError{{Field: "version", Message: "must be a positive integer"}}
				httpapi.WriteProblem(w, r, p)
				return
			}
			version = n
		}
		err := o.Assist.Store.DeleteDoc(r.Context(), actor.TenantID, key, version)
		switch {
		case errors.Is(err, syncerror.ErrStateChanged):
			staleKnowledge(w, r)
			return
		case errors.Is(err, syncerror.ErrNotFound):
			w.WriteHeader(http.StatusNoContent)
			return
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The knowledge could not be deleted; retry shortly.")
			return
		}
		o.settingsAudit(r.Context(), actor, "settings.knowledge_delete", "knowledge/"+before.ID, map[string]any{"before": before})
		w.WriteHeader(http.StatusNoContent)
	})
}
