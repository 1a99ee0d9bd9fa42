package flow

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Service is the flows feature: its HTTP surface, the executor the change events and
// the redrive run, and the poller the flow-poll schedule runs.
type Service struct {
	Store Store
	Exec  *Executor
	// Claims keeps the webhook-ids change events used (the flows table).
	Claims WebhookClaims
	Poller *Poller
	// SourceAuth verifies each source system's change events with that system's own
	// secrets (tenant.FlowPurpose): a system without an authenticator posts nothing.
	SourceAuth map[connector.System]*hostauth.Authenticator[tenant.Config]
	Audit      *audit.Log
	Now        func() time.Time
	// Manifests names the owners of the fields of a cycle a saved flow closes.
	Manifests governance.ManifestSource
	// Evaluator and Reader serve the dry run (dryrun.go): the guard's verdict without a
	// write, and records read through the connectors.
	Evaluator Evaluator
	Reader    Reader
	// Describer and MetaCache serve the vendors' metadata to the flow editor (metadata.go).
	Describer Describer
	MetaCache MetadataCache
}

// EventResponse is the 202 body of a change event.
type EventResponse struct {
	RunIDs    []string `json:"runIds"`
	Duplicate bool     `json:"duplicate"`
}

func problem(status int, code, detail string) *httpapi.Problem {
	return httpapi.NewProblem(status, code, detail)
}

// SignatureHint is added to a flow event's invalid_signature: the likeliest causes.
func SignatureHint(system connector.System) string {
	return "Flow events are signed with the source system's own secret (purpose " + string(tenant.FlowPurpose(string(system))) +
		"), never the sync-error webhook's; a tenant created before those existed has none until an admin rotates one in."
}

// EventHandler is POST /api/flows/events/{system}: a source system's change event, signed
// with that system's own secret. The order is fixed: signature (so the source is the one
// the secret proves, not the path's word), tenant flags, validation, the webhook-id's
// claim (none for the event's own EventMessageID), the runs. Nothing is stored unless
// every check before the claim passed.
func (s *Service) EventHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		system := connector.System(r.PathValue("system"))
		auth := s.SourceAuth[system]
		if !system.Known() || auth == nil {
			httpapi.WriteProblem(w, r, problem(http.StatusNotFound, "unknown_system",
				"No system "+strconv.Quote(string(system))+"; systems are "+connector.SystemNames()+"."))
			return
		}
		cfg, body, ok := auth.ReadSigned(w, r, MaxEventBytes, tenant.Config.FeatureEnabled)
		if !ok {
			return
		}
		if flag := cfg.DisabledFlag(); flag != "" {
			httpapi.WriteProblem(w, r, problem(http.StatusForbidden, "feature_disabled",
				"Flows are off for this tenant: "+flag+" is not 'true'; nothing was started."))
			return
		}
		ev, errs, ok := ParseEvent(body)
		if !ok {
			httpapi.WriteProblem(w, r, problem(http.StatusBadRequest, "malformed_json", "The body is not a single JSON object."))
			return
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The change event has invalid fields; see errors.", errs)
			return
		}
		// The event's own derived id names this event by construction, so it needs no claim:
		// a redelivery under it is answered by the event's own dedupe (the conditional put
		// at the event's key, EventRunID), a write fewer per event (issue 37 §3). The same id
		// sent with another event is not that event's derived id, so it is claimed and
		// checked like any other: as its first use was not recorded, its first reuse is
		// accepted and any later one refused. Only a holder of the tenant's secret for this
		// system can send it, and such a sender can sign any event anyway.
		var err error
		if id := r.Header.Get(webhook.HeaderID); id != EventMessageID(system, ev.EventID) {
			err = s.Claims.ClaimWebhook(r.Context(), cfg.ID, id, system, ev.EventID, s.now())
		}
		if errors.Is(err, ErrReplayed) {
			httpapi.WriteProblem(w, r, problem(http.StatusConflict, "request_replayed",
				"This webhook-id was used by another message of this tenant (another source or event); nothing was started. Each message has its own webhook-id."))
			return
		}
		var ids []string
		started := false
		if err == nil {
			ids, started, err = s.Exec.Handle(r.Context(), cfg.ID, system, ev)
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The change event could not be recorded. Retry shortly: runs stored before the failure are kept, and the retry starts the rest.")
			return
		}
		if ids == nil {
			ids = []string{}
		}
		httpapi.WriteJSON(w, http.StatusAccepted, EventResponse{RunIDs: ids, Duplicate: !started})
	})
}

// RunsHandler is GET /api/flows/runs?flowId=&outcome=&limit=&cursor=.
func (s *Service) RunsHandler() http.Handler {
	outcomes := make([]string, len(Outcomes))
	for i, o := range Outcomes {
		outcomes[i] = string(o)
	}
	spec := httpapi.ListSpec{Statuses: outcomes, DefaultLimit: 50, MaxLimit: 100, StatusOptional: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if o := q.Get("outcome"); o != "" {
			q.Set("status", o)
		}
		if f := q.Get("flowId"); f != "" && !ValidID(f) {
			httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "flowId", Message: "is not a flow id"}})
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = q.Encode()
		p, ok := httpapi.ParseList(w, r2, spec)
		if !ok {
			return
		}
		who := caller(r)
		runs, next, err := s.Store.Runs(r.Context(), who.TenantID, RunQuery{FlowID: q.Get("flowId"), Outcome: Outcome(p.Status),
			Limit: p.Limit, Cursor: p.Cursor})
		switch {
		case errors.Is(err, ErrBadCursor):
			httpapi.WriteBadCursor(w, r)
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "Flow runs cannot be read right now. Retry shortly.")
		default:
			if runs == nil {
				runs = []Run{}
			}
			httpapi.WriteList(w, runs, next)
		}
	})
}

// RunHandler is GET /api/flows/runs/{id}.
func (s *Service) RunHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		if !ValidRunID(id) {
			httpapi.WriteProblem(w, r, problem(http.StatusNotFound, "not_found", "No such flow run."))
			return
		}
		run, err := s.Store.Run(r.Context(), caller(r).TenantID, id)
		switch {
		case errors.Is(err, ErrNotFound):
			httpapi.WriteProblem(w, r, problem(http.StatusNotFound, "not_found", "No such flow run."))
		case err != nil:
			httpapi.WriteUnavailable(w, r, err, "The flow run cannot be read right now. Retry shortly.")
		default:
			httpapi.WriteJSON(w, http.StatusOK, run)
		}
	})
}

func caller(r *http.Request) identity.Identity {
	id, _ := identity.FromContext(r.Context())
	return id
}

// FlowsHandler is GET /api/settings/flows: every flow of the tenant, by id.
func (s *Service) FlowsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flows, err := s.Store.Flows(r.Context(), caller(r).TenantID)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "Flows cannot be read right now. Retry shortly.")
			return
		}
		slices.SortFunc(flows, func(a, b Flow) int { return strings.Compare(a.ID, b.ID) })
		if flows == nil {
			flows = []Flow{}
		}
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"items": flows})
	})
}

// FlowHandler is GET /api/settings/flows/{id}.
func (s *Service) FlowHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := flowID(w, r)
		if !ok {
			return
		}
		f, err := s.Store.Flow(r.Context(), caller(r).TenantID, id)
		if err != nil {
			writeFlowError(w, r, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, f)
	})
}

// flowID is the path's flow id; an id no flow can have answers 404 before any store sees
// it (a key that long or odd would fail there as an outage, not as a missing flow).
func flowID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !ValidID(id) {
		writeFlowError(w, r, ErrNotFound)
		return "", false
	}
	return id, true
}

func writeFlowError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNotFound) {
		httpapi.WriteProblem(w, r, problem(http.StatusNotFound, "not_found", "No such flow."))
		return
	}
	httpapi.WriteUnavailable(w, r, err, "Flows cannot be changed right now; nothing was changed. Retry shortly.")
}

// PutFlowHandler is PUT /api/settings/flows/{id}: create or replace a flow. The id is
// the path's; a body naming another id is refused. The answer names the cycles the flow
// closes (cycles.go).
func (s *Service) PutFlowHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var f Flow
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			httpapi.WriteProblem(w, r, problem(http.StatusBadRequest, "malformed_json",
				"The body is not a flow object (unknown fields are refused)."))
			return
		}
		id := r.PathValue("id")
		if f.ID == "" {
			f.ID = id
		}
		errs := f.Validate()
		// A missing or null enabled decodes as false: stated, not implied (issue 36 §1; the
		// document requires it). Found by the OpenAPI fuzz search, seed kept.
		var stated struct {
			Enabled *bool `json:"enabled"`
		}
		if json.Unmarshal(body, &stated) != nil || stated.Enabled == nil {
			errs = append(errs, httpapi.FieldError{Field: "enabled", Message: "is required: true or false"})
		}
		if f.ID != id {
			errs = append(errs, httpapi.FieldError{Field: "id", Message: "must equal the id in the path"})
		}
		if len(errs) > 0 {
			httpapi.WriteInvalidBody(w, r, "The flow is invalid; see errors.", errs)
			return
		}
		who := caller(r)
		ctx := r.Context()
		before, err := s.Store.Flow(ctx, who.TenantID, id)
		created := errors.Is(err, ErrNotFound)
		if err != nil && !created {
			writeFlowError(w, r, err)
			return
		}
		all, err := s.Store.Flows(ctx, who.TenantID)
		if err != nil {
			writeFlowError(w, r, err)
			return
		}
		if created && len(all) >= MaxFlows {
			httpapi.WriteProblem(w, r, problem(http.StatusConflict, "too_many_flows", "A tenant has at most 100 flows."))
			return
		}
		// Named before the flow is stored, so a manifest that cannot be read changes nothing.
		cycles, err := s.cyclesOf(ctx, who.TenantID, f, all)
		if err != nil {
			writeFlowError(w, r, err)
			return
		}
		f.Trigger, f.UpdatedAt, f.UpdatedBy = f.TriggerOrDefault(), s.now(), who.Actor
		if err := s.Store.PutFlow(ctx, who.TenantID, f); err != nil {
			writeFlowError(w, r, err)
			return
		}
		details := map[string]any{"after": f}
		if !created {
			details["before"] = before
		}
		if len(cycles) > 0 {
			details["cycles"] = cycleSummaries(cycles)
		}
		s.audit(r, "settings.flow.put", id, details)
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		if cycles == nil {
			cycles = []Cycle{}
		}
		httpapi.WriteJSON(w, status, SavedFlow{Flow: f, Cycles: cycles})
	})
}

// DeleteFlowHandler is DELETE /api/settings/flows/{id}. Runs already made stay readable.
func (s *Service) DeleteFlowHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := flowID(w, r)
		if !ok {
			return
		}
		who := caller(r)
		before, err := s.Store.Flow(r.Context(), who.TenantID, id)
		if err == nil {
			err = s.Store.DeleteFlow(r.Context(), who.TenantID, id)
		}
		if err != nil {
			writeFlowError(w, r, err)
			return
		}
		s.audit(r, "settings.flow.delete", id, map[string]any{"before": before})
		w.WriteHeader(http.StatusNoContent)
	})
}

// audit records a settings change. The change is made already; a failed audit write is
// logged rather than reported as a failed change.
func (s *Service) audit(r *http.Request, key, id string, details map[string]any) {
	s.auditAs(r, key, "flow/"+id, details)
}

// auditAs is audit of any resource.
func (s *Service) auditAs(r *http.Request, key, resource string, details map[string]any) {
	err := s.Audit.Write(r.Context(), audit.Entry{Actor: caller(r), ActionType: audit.TypeSettings, ActionKey: key,
		Result: audit.ResultSuccess, Resource: resource, Details: details})
	if err != nil {
		httpapi.Logger(r.Context()).Error("settings change not audited", "key", key, "resource", resource, "error", err)
	}
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}
