package wire

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// withAssist adds the approval policy's, the knowledge's and the automation's routes.
func withAssist(r platform.Routes, op *decisions.Service) platform.Routes {
	r[blueprint.FuncApprovalPolicyGet] = platform.Route{Handler: op.PolicyGetHandler()}
	r[blueprint.FuncApprovalPolicyPut] = platform.Route{Handler: op.PolicyPutHandler()}
	r[blueprint.FuncKnowledgeList] = platform.Route{Handler: op.KnowledgeListHandler()}
	r[blueprint.FuncKnowledgePut] = platform.Route{Handler: op.KnowledgePutHandler()}
	r[blueprint.FuncKnowledgeDelete] = platform.Route{Handler: op.KnowledgeDeleteHandler()}
	r[blueprint.FuncProposalRevert] = platform.Route{Handler: op.RevertHandler()}
	r[blueprint.FuncAutomationList] = platform.Route{Handler: op.AutomationListHandler()}
	ins := &automation.InsightsReader{Claims: op.Claims, Tenants: op.Tenants, Assist: op.Assist, Now: op.Now}
	r[blueprint.FuncInsights] = platform.Route{Handler: ins.Handler()}
	return r
}

// assist is the policy, learning and automation on the processed table; revert reads
// records through the tenant's connectors.
func (f *Feature) assist() *policy.Assist {
	store, ok := f.Claims.(syncerror.AssistStore)
	if !ok {
		return nil
	}
	return &policy.Assist{Store: store, Reader: recordReader{guarded.Connectors(f.Base)}, AutoApplyPerMinute: f.AutoApplyPerMinute,
		Flags: f.Base.Tenants}
}

// docs is the processed table's documents, for the reconcile's upkeep of them.
func (f *Feature) docs() syncerror.DocStore {
	if s, ok := f.Claims.(syncerror.DocStore); ok {
		return s
	}
	return nil
}

// automate gives the worker the tenant's knowledge and its auto rules, which apply through
// the approve route's own path (the guard). Without the guard the worker still learns and
// shadows; an enforced rule then records that it could not apply.
func (f *Feature) automate(w *diagnosis.Worker) {
	w.Assist = f.assist()
	w.Policies = policy.NewCachedPolicies(w.Assist.Policies(), f.Base.Config.TenantCacheTTL, f.Base.Clock())
	op, err := f.Operator()
	if err != nil {
		f.Base.Log.Error("auto-apply unavailable: the guard could not be built", "error", err)
		return
	}
	w.Apply = op
}

// recordReader reads the record a row's fix was written to, from the system it was
// written to.
type recordReader struct{ registry clients }

func (r recordReader) ReadFields(ctx context.Context, c syncerror.Claim) (map[string]any, string, error) {
	if syncerror.FlowTargetUnknown(c) {
		// Its record id is a stand-in: reading it would read a guess (flowtarget.go).
		return nil, "", &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeTargetRecordUnknown,
			Reason: syncerror.TargetRecordUnknownReason}
	}
	target, _ := writeBack(c)
	client, err := r.registry.Client(ctx, c.TenantID, target)
	if errors.Is(err, connector.ErrNotConfigured) {
		return nil, "", fmt.Errorf("%w: %w", syncerror.ErrWriterNotConfigured, err)
	}
	if err != nil {
		return nil, "", err
	}
	rec, err := client.Get(ctx, c.Record.RecordType, c.Record.RecordID)
	if err != nil {
		return nil, "", err
	}
	return rec.Fields, rec.Version, nil
}

// autoApplyCap reads AUTO_APPLY_PER_MINUTE, a positive integer (default 60).
func autoApplyCap(getenv func(string) string) (int, error) {
	v := getenv("AUTO_APPLY_PER_MINUTE")
	if v == "" {
		return policy.DefaultAutoApplyPerMinute, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("AUTO_APPLY_PER_MINUTE=%q: want a positive integer such as 60", v)
	}
	return n, nil
}
