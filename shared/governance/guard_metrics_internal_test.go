package governance

import (
	"errors"
	"fmt"
	"testing"
)

// The decisions the guard tests cannot reach cheaply end to end, classified from the
// errors the guard returns (wrapped, as it wraps them).
func TestDecisionOf(t *testing.T) {
	fields := map[string]any{"a": 1, "b": 2}
	cases := []struct {
		res  Result
		err  error
		want Decision
	}{
		{Result{}, fmt.Errorf("%w: approval ap_1, denied by bob", ErrApprovalDenied), DecisionApprovalDenied},
		{Result{}, fmt.Errorf("%w: reading the write ledger: %w", ErrUnavailable, errors.New("timeout")), DecisionUnavailable},
		{Result{}, fmt.Errorf("%w: ledger: boom", ErrNotRecorded), DecisionNotRecorded},
		{Result{}, errors.New("governance: write hosterp/x/1: 409"), DecisionFailed},
		{Result{}, nil, DecisionWritten},
		{Result{Dropped: []string{"a"}}, nil, DecisionPartial},
		{Result{Dropped: []string{"a", "b"}}, nil, DecisionDropped},
	}
	for _, c := range cases {
		if got := decisionOf(WriteRequest{Fields: fields}, c.res, c.err); got != c.want {
			t.Errorf("decisionOf(%+v, %v) = %s, want %s", c.res, c.err, got, c.want)
		}
	}
}
