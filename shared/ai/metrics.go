package ai

import (
	"io"

	"github.com/syncassist/syncassist/shared/emf"
)

// MetricAICost is what one governed inference cost, in US dollars (CloudWatch has no
// currency unit: the unit is None and the name says USD), as an EMF line with the
// dimension "tenant" beside the service-wide total: the dashboard sums it per tenant per
// day. One metric per tenant is the price of that view; model, provider and tokens are
// fields of the line, searchable in Logs Insights, not dimensions.
const MetricAICost = "AICostUSD"

// WithMetrics returns a copy of g that writes its metric lines to w instead of emf.Out.
func (g *Governed) WithMetrics(w io.Writer) *Governed {
	c := *g
	c.metrics = w
	return &c
}

// countCost writes the inference's cost line: what its provider calls were billed, counted
// before its records are stored, since the provider bills them whatever becomes of the
// records (a retry after a recording failure calls, and is billed, again). An inference
// that made no billed call (refused by DLP, failed before the model answered) writes no
// line.
func (r *inference) countCost(cost float64, in, out int, priced bool) {
	if len(r.costs) == 0 {
		return
	}
	m := emf.Metric{
		Time: r.g.now(), Counts: map[string]float64{MetricAICost: cost}, Units: map[string]string{MetricAICost: "None"},
		Dimensions: []string{"tenant"},
		Fields: map[string]any{"tenant": r.trace.TenantID, "provider": r.trace.Provider, "model": r.trace.Model,
			"operation": r.trace.Operation, "inferenceId": r.trace.InferenceID, "inputTokens": in, "outputTokens": out,
			"priced": priced},
	}
	if r.g.metrics == nil {
		emf.Emit(m)
		return
	}
	_ = emf.Write(r.g.metrics, m)
}
