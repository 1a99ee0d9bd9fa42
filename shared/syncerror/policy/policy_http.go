package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// The settings of the approval policy and the knowledge are the queue's own: their routes
// sit under /api/settings beside the tenant's other settings, for admins.

func (o *Service) settingsAudit(ctx context.Context, who identity.Identity, key, resource string, details map[string]any) {
	if o.Audit == nil {
		return
	}
	if err := o.Audit.Write(ctx, audit.Entry{Actor: who, ActionType: audit.TypeSettings, ActionKey: key,
		Result: audit.ResultSuccess, Resource: resource, Details: details}); err != nil {
		httpapi.Logger(ctx).Error("settings change not audited", "key", key, "error", err)
	}
}

func (o *Service) assistReady(w http.ResponseWriter, r *http.Request) (identity.Identity, bool) {
	actor, ok := syncerror.Who(w, r)
	if ok && o.Assist == nil {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "not_configured", "The approval policy is not configured."))
		return actor, false
	}
	return actor, ok
}

func writeFieldErrors(w http.ResponseWriter, r *http.Request, fe []syncerror.FieldError) {
	errs := make([]httpapi.FieldError, len(fe))
	for i, e := range fe {
		errs[i] = httpapi.FieldError{Field: e.Field, Message: e.Message}
	}
	httpapi.WriteInvalidBody(w, r, "", errs)
}

// nullRuleMembers refuses a rule, or a rule's mode or match, given as null: decoded, null
// is the same as absent (a shadow mode, a match of anything), so a default would be taken
// for a value the caller did send.
func nullRuleMembers(raw []byte) []syncerror.FieldError {
	var body struct {
		Rules []map[string]json.RawMessage `json:"rules"`
	}
	_ = json.Unmarshal(raw, &body)
	var fe []syncerror.FieldError
	for i, rule := range body.Rules {
		at := "rules[" + strconv.Itoa(i) + "]"
		if rule == nil {
			fe = append(fe, syncerror.FieldError{Field: at, Message: "is null: a rule is an object"})
			continue
		}
		for _, k := range []string{"match", "mode"} {
			if v, ok := rule[k]; ok && bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
				fe = append(fe, syncerror.FieldError{Field: at + "." + k, Message: "is null: leave it out or give a value ({} matches every fix)"})
			}
		}
	}
	return fe
}

// PolicyGetHandler serves GET /api/settings/approval-policy: the tenant's policy, or the
// default (version 0) when it has none.
func (o *Service) PolicyGetHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := o.assistReady(w, r)
		if !ok {
			return
		}
		p, err := o.Assist.Policies().Get(r.Context(), actor.TenantID)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The approval policy could not be read; retry shortly.")
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, p)
	})
}

// PolicyPutHandler serves PUT /api/settings/approval-policy: the whole policy, validated
// whole, stored if version is the one stored (409 stale_version otherwise), audited with
// before and after.
func (o *Service) PolicyPutHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := o.assistReady(w, r)
		if !ok {
			return
		}
		raw, err := syncerror.ReadLimited(w, r)
		if err != nil {
			return
		}
		var next struct {
			Version *int         `json:"version"`
			Rules   []PolicyRule `json:"rules"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&next); err != nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusBadRequest, "malformed_json",
				"The body is not an approval policy: "+err.Error()))
			return
		}
		p := Policy{Rules: next.Rules}
		fe := append(nullRuleMembers(raw), p.Validate()...)
		if next.Version == nil || *next.Version < 0 {
			fe = append([]syncerror.FieldError{{Field: "version", Message: "is required: the version the policy's GET returned (0 for the default)"}}, fe...)
		} else {
			p.Version = *next.Version
		}
		if len(fe) > 0 {
			writeFieldErrors(w, r, fe)
			return
		}
		ctx := r.Context()
		before, err := o.Assist.Policies().Get(ctx, actor.TenantID)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The approval policy could not be read; nothing was changed.")
			return
		}
		// The version read is the one replaced, so the audit's before is exact (a change in
		// between fails the conditional put).
		stored, err := Policy{}, error(syncerror.ErrStateChanged)
		if before.Version == p.Version {
			stored, err = o.Assist.Policies().Put(ctx, actor.TenantID, p, o.NowUTC())
		}
		if errors.Is(err, syncerror.ErrStateChanged) {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "stale_version",
				"The policy changed since version "+strconv.Itoa(p.Version)+" was read; read it again and reapply your change."))
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The approval policy could not be stored; nothing was changed.")
			return
		}
		o.settingsAudit(ctx, actor, "settings.approval_policy", "approval-policy", map[string]any{"before": before, "after": stored})
		httpapi.WriteJSON(w, http.StatusOK, stored)
	})
}
