package aieval

import (
	"context"
	"sync"

	"github.com/syncassist/syncassist/shared/ai"
)

// Records keeps what an evaluation's inferences leave behind only as far as the report
// needs it: the number of traces, the cost and the tokens. Audit events are dropped: an
// evaluation changes nothing.
type Records struct {
	mu                        sync.Mutex
	Traces                    int
	CostUSD                   float64
	Unpriced                  int
	InputTokens, OutputTokens int
}

// Governed governs p for an evaluation: scanner anonymizes what p reads (as in the
// worker), and the records go to r.
func (r *Records) Governed(p ai.Provider, scanner ai.PromptScanner) *ai.Governed {
	return ai.NewGoverned(p, scanner, r, r, r)
}

// PutTrace implements ai.TraceStore.
func (r *Records) PutTrace(context.Context, ai.Trace) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Traces++
	return nil
}

// PutCosts implements ai.CostStore.
func (r *Records) PutCosts(_ context.Context, cs []ai.CostRecord) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		r.CostUSD += c.CostUSD
		r.InputTokens += c.InputTokens
		r.OutputTokens += c.OutputTokens
		if !c.Priced && c.Provider != ai.ProviderRules {
			r.Unpriced++
		}
	}
	return nil
}

// Audit implements ai.Auditor.
func (r *Records) Audit(context.Context, ai.AuditEvent) error { return nil }
