package aitest

import "testing"

func TestMemoryRecordsContract(t *testing.T) {
	RunRecordsContract(t, func(t *testing.T) Records {
		traces, costs := NewTraceStore(), NewCostStore()
		return Records{TraceStore: traces, CostStore: costs, ReadTraces: traces.ReadTraces, ReadCosts: costs.ReadCosts}
	})
}
