package settings

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Checking a connector: one harmless authenticated read of the system (connector.Check),
// made through the same client, SSRF guard and credential as every call of the flows and
// the guard, answered with what worked and what failed in the vendor's words (status and
// error code, never the answer's body) and audited.

// Checker checks a tenant's connection to a system with its current configuration.
type Checker interface {
	Check(ctx context.Context, tenantID string, system connector.System) (read string, err error)
}

// ConnectorCheckTimeout bounds a check: the client's own attempts and backoff stop at it,
// well inside the function's timeout.
const ConnectorCheckTimeout = 8 * time.Second

// ConnectorCheck is the answer of a check.
type ConnectorCheck struct {
	System connector.System `json:"system"`
	Vendor string           `json:"vendor"`
	OK     bool             `json:"ok"`
	// Stage is where it stopped or "done": configuration (no connector, or one the client
	// cannot use) or read (the address, the credential, the vendor's answer).
	Stage string `json:"stage"`
	// Read is the request made, e.g. "GET /3.0/ping".
	Read       string             `json:"read,omitempty"`
	Failure    *connector.Failure `json:"failure,omitempty"`
	DurationMS int64              `json:"durationMs"`
	CheckedAt  time.Time          `json:"checkedAt"`
}

// CheckConnector checks the tenant's connector for system and audits the check.
// An error is an outage of the service's own (the tenant could not be read): nothing was
// checked, and nothing is audited.
func (s *Service) CheckConnector(ctx context.Context, r *http.Request, system connector.System) (ConnectorCheck, error) {
	who := caller(r)
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, ConnectorCheckTimeout)
	defer cancel()
	read, err := s.Checker.Check(ctx, who.TenantID, system)
	var ce *connector.Error
	if err != nil && !errors.As(err, &ce) && !errors.Is(err, connector.ErrNotConfigured) && !errors.Is(err, connector.ErrInvalidConfig) {
		return ConnectorCheck{}, err
	}
	out := ConnectorCheck{System: system, Vendor: system.Vendor(), OK: err == nil, Stage: "done", Read: read,
		DurationMS: time.Since(start).Milliseconds(), CheckedAt: s.now()}
	result := audit.ResultSuccess
	details := map[string]any{"system": string(system), "ok": out.OK}
	if err != nil {
		f := connector.Describe(err)
		out.Failure, out.Stage, result = &f, "read", audit.ResultFailure
		if ce == nil {
			out.Stage = "configuration"
		}
		details["kind"], details["status"], details["code"] = f.Kind, f.Status, f.Code
	}
	details["stage"] = out.Stage
	if s.Audit != nil {
		if aerr := s.Audit.Write(ctx, audit.Entry{Actor: who, ActionType: audit.TypeSettings, ActionKey: "settings.connector.test",
			Result: result, Resource: "connector/" + string(system), Details: details}); aerr != nil {
			httpapi.Logger(ctx).Error("connector check not audited", "system", system, "error", aerr)
		}
	}
	return out, nil
}

// ConnectorCheckHandler is POST /api/settings/connectors/{system}/test.
func (s *Service) ConnectorCheckHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		system := connector.System(r.PathValue("system"))
		if !system.Known() {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "unknown_system",
				"No such system; systems are "+connector.SystemNames()+"."))
			return
		}
		out, err := s.CheckConnector(r.Context(), r, system)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The connector cannot be checked right now. Retry shortly.")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		httpapi.WriteJSON(w, http.StatusOK, out)
	})
}
