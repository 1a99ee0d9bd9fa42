package main

import (
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The claim row's write units per sync error, stage by stage, on the sample (issue 37 §1),
// so a change that makes the row or its by_status entry cross a kilobyte again fails here
// rather than in the next make cost. Each figure is the one measured after the cut that
// set it (README, Cost).
var claimRowUnits = map[string]map[string]float64{
	"diagnose": {
		// BeginDiagnosis and CompleteDiagnosis, each 2 KB of row; the diagnosed entry of
		// by_status is under 1 KB since the proposal's rationale and ids left it (store.go).
		blueprint.TableProcessed:                                 4,
		blueprint.TableProcessed + "/" + blueprint.IndexByStatus: 2,
	},
	"approve": {
		// BeginApply, then CompleteApply (the applied marker and the approval in one
		// write, decisions/approve.go), each of a 3 KB row, and the learned fix's item.
		blueprint.TableProcessed:                                 7,
		blueprint.TableProcessed + "/" + blueprint.IndexByStatus: 7,
	},
}

func TestClaimRowWriteUnits(t *testing.T) {
	r := startRun(t)
	const n = 3
	se, err := r.syncErrors(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range se.Stages {
		for item, want := range claimRowUnits[st.Name] {
			if got := st.Usage.Units["WRU "+item] / n; got > want {
				t.Errorf("%s: %.2f WRU on %s per sync error, budget %v (%v)", st.Name, got, item, want, st.Usage.Units)
			}
		}
	}
}
