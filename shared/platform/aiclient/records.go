package aiclient

import (
	"context"
	"encoding/json"
	"fmt"

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

// PutCosts stores records of one inference in one write (its cost item); the first record
// of an (inference, operation) stands.
func (r Records) PutCosts(ctx context.Context, cs []ai.CostRecord) error {
	docs := make([]audit.CostDoc, 0, len(cs))
	for _, c := range cs {
		if c.TenantID != cs[0].TenantID || c.InferenceID != cs[0].InferenceID {
			return fmt.Errorf("cost records of inferences %s and %s in one write", cs[0].InferenceID, c.InferenceID)
		}
		data, err := json.Marshal(c)
		if err != nil {
			return err
		}
		docs = append(docs, audit.CostDoc{Operation: c.Operation, Data: data})
	}
	if len(docs) == 0 {
		return nil
	}
	return r.Store.PutCostDocs(ctx, cs[0].TenantID, cs[0].InferenceID, docs)
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
