package flow

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// The admins' checks and fixes of flows: the dry run (dryrun.go) and the cross-reference
// fix-up (xref_fix.go).

// decodeStrict reads one JSON object of at most limit bytes, numbers kept as sent and
// unknown fields refused; false after answering 400.
func decodeStrict(w http.ResponseWriter, r *http.Request, limit int64, v any, what string) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, limit))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		httpapi.WriteProblem(w, r, problem(http.StatusBadRequest, "malformed_json",
			"The body is not "+what+" (unknown fields are refused)."))
		return false
	}
	return true
}

// DryRunHandler is POST /api/settings/flows/{id}/dry-run: what the flow would do with
// one record, writing nothing.
func (s *Service) DryRunHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := flowID(w, r)
		if !ok {
			return
		}
		var in DryRunRequest
		if !decodeStrict(w, r, MaxEventBytes, &in, "a dry-run request ({recordId, fields, flow})") {
			return
		}
		if !validRecordID(in.RecordID) {
			httpapi.WriteInvalidBody(w, r, "The record is not named correctly; see errors.",
				[]httpapi.FieldError{{Field: "recordId", Message: "must be 1 to 256 characters without control characters"}})
			return
		}
		ctx, tenantID := r.Context(), caller(r).TenantID
		f, ok := s.dryRunFlow(w, r, id, in.Flow)
		if !ok {
			return
		}
		out, err := s.DryRun(ctx, tenantID, f, in)
		switch {
		case errors.Is(err, errDryRunInput):
			writeConnectorProblem(w, r, err, "The source record cannot be read from "+f.Source.System.Vendor()+"; nothing was evaluated.")
		case err != nil:
			writeConnectorProblem(w, r, err, "The dry run could not be evaluated; nothing was written.")
		default:
			httpapi.WriteJSON(w, http.StatusOK, out)
		}
	})
}

// dryRunFlow is the flow a dry run runs: the unsaved definition in the body, checked as a
// save would check it (the answer is 400 with the same field errors, nothing run), or the
// stored flow when the body has none. False after answering.
func (s *Service) dryRunFlow(w http.ResponseWriter, r *http.Request, id string, edited *Flow) (Flow, bool) {
	if edited == nil {
		f, err := s.Store.Flow(r.Context(), caller(r).TenantID, id)
		if err != nil {
			writeFlowError(w, r, err)
			return Flow{}, false
		}
		return f, true
	}
	f := *edited
	if f.ID == "" {
		f.ID = id
	}
	errs := f.Validate()
	if f.ID != id {
		errs = append(errs, httpapi.FieldError{Field: "id", Message: "must equal the id in the path"})
	}
	for i := range errs {
		errs[i].Field = "flow." + errs[i].Field
	}
	if len(errs) > 0 {
		httpapi.WriteInvalidBody(w, r, "The flow as edited is invalid; nothing was run. See errors.", errs)
		return Flow{}, false
	}
	return f, true
}

// XRefFixHandler is PUT /api/flows/xrefs: an admin links, re-links or unlinks a record's
// counterpart (xref_fix.go), or settles a create whose outcome was lost (xref_settle.go),
// audited.
func (s *Service) XRefFixHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var fx XRefFix
		if !decodeStrict(w, r, 16<<10, &fx, "a cross-reference fix ({source, target, expect, settle})") {
			return
		}
		if errs := fx.validate(); len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The fix is invalid; nothing was changed. See errors.", errs)
			return
		}
		who := caller(r)
		after, err := s.FixXRef(r.Context(), who.TenantID, who.Actor, fx)
		switch {
		case errors.Is(err, ErrNotCreating):
			httpapi.WriteProblem(w, r, problem(http.StatusConflict, "xref_not_creating",
				"Only a create whose outcome was lost is settled ("+err.Error()+"); nothing was changed. Read it again."))
		case errors.Is(err, ErrXRefChanged):
			httpapi.WriteProblem(w, r, problem(http.StatusConflict, "xref_changed",
				"The link is not what you saw ("+err.Error()+"); nothing was changed. Read it again and retry."))
		case errors.Is(err, ErrTargetLinked):
			httpapi.WriteProblem(w, r, problem(http.StatusConflict, "target_linked_elsewhere",
				"The target record is the counterpart of another record ("+err.Error()+"); unlink that one first. Nothing was changed."))
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The cross-reference cannot be changed right now; nothing was changed. Retry shortly.")
		default:
			action := "settings.xref.link"
			if fx.Settle != "" {
				action = "settings.xref.settle_" + fx.Settle
			} else if fx.Target.ID == "" {
				action = "settings.xref.unlink"
			} else if fx.Expect != "" {
				action = "settings.xref.relink"
			}
			details := map[string]any{"source": fx.Source, "target": fx.Target, "before": fx.Expect}
			if fx.Settle != "" {
				details["settle"] = fx.Settle
			}
			s.auditAs(r, action, "xref/"+string(fx.Source.System)+"/"+fx.Source.Entity+"/"+fx.Source.ID, details)
			items, err := s.Exec.XRefs.XRefsOf(r.Context(), who.TenantID, fx.Source)
			if err != nil {
				items = []XRef{after}
			}
			httpapi.WriteJSON(w, http.StatusOK, XRefList{Items: items})
		}
	})
}
