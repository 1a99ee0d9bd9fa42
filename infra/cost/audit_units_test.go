package main

import (
	"testing"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The audit log's write units per sync error, stage by stage, and per flow event (issue
// 37): each record is 1 WRU, and the machine types written on these paths (the DLP scan,
// the AI inference, the connector write) have no by_action_type entry since 2026-11-30
// (shared/audit/store_dynamo.go, denseType). Their entries were 1 WRU more per record,
// $1.88 per million sync errors and $1.25 per million flow events, so a change that
// indexes them again, or writes more or larger records, fails here. The approve's own
// record, a decision a person looks for, keeps its entry.
var (
	auditTable = "WRU " + blueprint.TableAudit
	auditIndex = "WRU " + blueprint.TableAudit + "/" + blueprint.IndexByActionType
)

var auditUnits = map[string]map[string]float64{
	// The diagnosis's DLP scan and its inference.
	"diagnose": {auditTable: 2, auditIndex: 0},
	// The write-back's connector write, and the approve (syncerror.approve), indexed.
	"approve": {auditTable: 2, auditIndex: 1},
	// The guarded write's DLP scan and its connector write, batched with its ledger.
	"flow event": {auditTable: 2, auditIndex: 0},
}

func TestAuditWriteUnits(t *testing.T) {
	r := startRun(t)
	const n = 3
	se, err := r.syncErrors(n)
	if err != nil {
		t.Fatal(err)
	}
	fe, err := r.flowEvents(n)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string]Usage{"flow event": fe.Usage}
	for _, st := range se.Stages {
		stages[st.Name] = st.Usage
	}
	for name, budget := range auditUnits {
		u, ok := stages[name]
		if !ok {
			t.Errorf("no stage %q measured", name)
			continue
		}
		for item, want := range budget {
			if got := u.Units[item] / n; got > want {
				t.Errorf("%s: %.2f %s per unit, budget %v (%v)", name, got, item, want, u.Units)
			}
		}
	}
	// The ingest writes no audit record.
	for _, st := range se.Stages {
		if _, ok := auditUnits[st.Name]; !ok && st.Usage.Units[auditTable]+st.Usage.Units[auditIndex] > 0 {
			t.Errorf("%s: audit WRU without a budget (%v)", st.Name, st.Usage.Units)
		}
	}
}
