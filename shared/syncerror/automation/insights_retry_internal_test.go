package automation

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

func TestRetryFactsCountFoldsScheduleAttemptsAndRetryResolutions(t *testing.T) {
	c := syncerror.Claim{Status: syncerror.StatusResolved, Retry: syncerror.RetryState{Occurrences: 3, Resolution: syncerror.ResolutionRetried},
		History: []syncerror.HistoryEntry{{Actor: "webhook:msg_1", Action: "claimed"}, {Actor: "schedule:retry", Action: "retry"}}}
	var n Counts
	n.add(c)
	if n.FoldedOccurrences != 2 || n.AutoRetried != 1 || n.ResolvedByRetry != 1 || n.ResolvedByPeople != 0 {
		t.Fatalf("%+v", n)
	}
	// Resolved by a person (fixed at the source), retried on request only: no automatic retry.
	p := syncerror.Claim{Status: syncerror.StatusResolved, Retry: syncerror.RetryState{Resolution: syncerror.ResolutionFixedAtSource},
		History: []syncerror.HistoryEntry{{Actor: "alice", Action: "retry"}}}
	var m Counts
	m.add(p)
	if m.FoldedOccurrences != 0 || m.AutoRetried != 0 || m.ResolvedByRetry != 0 || m.ResolvedByPeople != 1 {
		t.Fatalf("%+v", m)
	}
}
