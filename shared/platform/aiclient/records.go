package aiclient

import (
	"context"
	"encoding/json"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
)

// Records is ai.TraceStore and ai.CostStore on the AI records table.
type Records struct{ Store *audit.AIRecords }

var (
	_ ai.TraceStore = Records{}
	_ ai.CostStore  = Records{}
)

// PutTrace stores t; a replayed inference overwrites its own trace.
func (r Records) PutTrace(ctx context.Context, t ai.Trace) error {
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return r.Store.PutTraceDoc(ctx, audit.AIDoc{TenantID: t.TenantID, InferenceID: t.InferenceID, Operation: t.Operation}, data)
}

// PutCost stores c; the first record of an (inference, operation) stands.
func (r Records) PutCost(ctx context.Context, c ai.CostRecord) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return r.Store.PutCostDoc(ctx, audit.AIDoc{TenantID: c.TenantID, InferenceID: c.InferenceID,
		Operation: c.Operation, At: c.At}, c.CostUSD, data)
}

// Traces returns the tenant's traces whose inference id starts with prefix.
func (r Records) Traces(ctx context.Context, tenantID, prefix string) ([]ai.Trace, error) {
	return decode[ai.Trace](r.Store.Docs(ctx, tenantID, "trace", prefix))
}

// Costs returns the tenant's cost records whose inference id starts with prefix.
func (r Records) Costs(ctx context.Context, tenantID, prefix string) ([]ai.CostRecord, error) {
	return decode[ai.CostRecord](r.Store.Docs(ctx, tenantID, "cost", prefix))
}

func decode[T any](docs [][]byte, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(docs))
	for _, d := range docs {
		var v T
		if err := json.Unmarshal(d, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
