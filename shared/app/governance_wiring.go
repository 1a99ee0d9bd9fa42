package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

// buildGovernance wires the guard: manifests (default + tenant overrides), ledger and
// records on the governance table, the tenants' connectors, DLP, audit, and alerts (log,
// metric and, when ALERT_BUS_NAME is set, an EventBridge event).
func (d *Deps) buildGovernance(awsCfg aws.Config, store *dynamostore.Governance) error {
	alerter := &governance.EventAlerter{Metrics: os.Stdout, Now: d.now}
	if bus := os.Getenv("ALERT_BUS_NAME"); bus != "" {
		alerter.Events, alerter.BusName = eventbridge.NewFromConfig(awsCfg), bus
	}
	d.Manifests = &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: store}
	d.Ledger = store
	guard, err := governance.NewGuard(governance.Deps{
		Manifests:  d.Manifests,
		Ledger:     d.Ledger,
		Records:    store,
		Connectors: governance.RegistryConnectors(d.Connectors),
		Scanner:    d.DLP,
		Audit:      d.Audit,
		Alerter:    alerter,
		Now:        d.now,
		LoopWindow: d.Config.LoopWindow,
	})
	if err != nil {
		return fmt.Errorf("governance guard: %w", err)
	}
	d.Guard = guard
	d.Governance = &governance.Service{Records: store, Guard: guard, Audit: d.Audit, Now: d.now}
	return nil
}

// Catalog returns the tool catalogue and MCP endpoint's service.
func (d *Deps) Catalog() *toolcatalog.Catalog {
	return &toolcatalog.Catalog{Claims: d.Claims, Manifests: d.Manifests, Ledger: d.Ledger, Scanner: d.DLP,
		AI: d.AI, Audit: d.Audit, External: toolcatalog.TenantExternalTools{Tenants: d.Tenants},
		Now: d.now, LoopWindow: d.Config.LoopWindow}
}

// Operator returns the operator queue's handlers' service.
func (d *Deps) Operator() *syncerror.Operator {
	return &syncerror.Operator{Claims: d.Claims, Fixes: fixWriter{d.Guard}, Audit: d.Audit, Now: d.Now}
}

// governanceHandler returns the handler of a governance route by function name.
func (d *Deps) governanceHandler(name string) http.Handler {
	return map[string]func() http.Handler{
		blueprint.FuncGovernanceApprovals:  d.Governance.ApprovalsHandler,
		blueprint.FuncGovernanceRejections: d.Governance.OwnershipRejectionsHandler,
		blueprint.FuncGovernanceLoops:      d.Governance.LoopDetectionsHandler,
		blueprint.FuncGovernanceApprove:    d.Governance.ApproveHandler,
		blueprint.FuncGovernanceDeny:       d.Governance.DenyHandler,
	}[name]()
}

// fixWriter is the operator queue's syncerror.FixWriter: an approved fix is written back
// to the host ERP record that failed, through the guard, in the host ERP's own name (the
// operator corrects the owner's record; field-level ownership entries still apply).
type fixWriter struct{ guard *governance.Guard }

func (f fixWriter) WriteFix(ctx context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key string) error {
	fields := make(map[string]any, len(fix))
	for _, ch := range fix {
		fields[ch.Path] = ch.After
	}
	res, err := f.guard.Write(ctx, who, governance.WriteRequest{
		Target: connector.SystemHostERP, Source: connector.SystemHostERP,
		Entity: c.Record.RecordType, RecordID: c.Record.RecordID, Fields: fields,
		IdempotencyKey: key, Reason: "syncerror.approve",
	})
	refuse := func(status int, code, reason string) error {
		return &syncerror.RefusedError{Status: status, Code: code, Reason: reason}
	}
	switch {
	case err == nil && len(res.Dropped) == len(fields):
		return refuse(http.StatusUnprocessableEntity, "ownership_rejected",
			"every field of the fix is owned by another system (source_wins); nothing was written: "+strings.Join(res.Dropped, ", "))
	case err == nil:
		return nil
	case errors.Is(err, governance.ErrOwnershipRejected):
		return refuse(http.StatusUnprocessableEntity, "ownership_rejected",
			"the ownership manifest refuses this write: a field of the fix is owned by another system")
	case errors.Is(err, governance.ErrPendingApproval):
		id := ""
		if res.Held != nil {
			id = res.Held.ID
		}
		return refuse(http.StatusConflict, "ownership_approval_required",
			"the write is held for an ownership approval ("+id+"); approve it under /api/governance/approvals, then approve this fix again")
	case errors.Is(err, governance.ErrLoopDetected):
		return refuse(http.StatusConflict, "loop_detected", "the write would echo a write the host ERP just made; it was blocked as a loop")
	case errors.Is(err, governance.ErrDLPBlocked):
		return refuse(http.StatusUnprocessableEntity, "dlp_blocked", "the fix carries a secret or card data and may not be written")
	case errors.Is(err, governance.ErrNotConfigured):
		return fmt.Errorf("%w: %w", syncerror.ErrWriterNotConfigured, err)
	}
	return err
}
