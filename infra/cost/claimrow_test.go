package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// The claim row's write units per sync error, stage by stage, on the sample (issue 37 §1),
// so a change that makes the row or its by_status entry cross a kilobyte again fails here
// rather than in the next make cost. Each figure is the one measured after the cut that
// set it (README, Cost).
var claimRowUnits = map[string]map[string]float64{
	"ingest": {
		// The error-key item, 1 (the host's webhook-id needs none: syncerror.HostMessageID),
		// and the new row, 1 KB since it leaves out what its keys hold (claimed_at,
		// first_seen, no attempts; dynamo/store.go).
		blueprint.TableProcessed: 2,
		// The queued row's by_diagnosis entry (keys only).
		blueprint.TableProcessed + "/" + blueprint.IndexByDiagnosis: 1,
	},
	"diagnose": {
		// BeginDiagnosis, of a row under 1 KB since it left out what its keys and history
		// hold (store.go) and holds it by a number (held_at, dynamo/diagnosis.go), and
		// CompleteDiagnosis, 2 KB of row; the diagnosed entry of by_status is under 1 KB
		// since the proposal's rationale and ids left it.
		blueprint.TableProcessed: 3,
		// Taking the row writes neither index (held_at is in neither), so only the
		// diagnosis's end writes by_status (1, where the taking made it 2) and deletes the
		// by_diagnosis entry (the index is sparse: 1, where moving the entry to a
		// diagnosing key on the taking made it 3).
		blueprint.TableProcessed + "/" + blueprint.IndexByStatus:    1,
		blueprint.TableProcessed + "/" + blueprint.IndexByDiagnosis: 1,
		// The diagnosis's trace, deflated against the trace dictionary (shared/audit/
		// airecords_dict.go): 1 WRU, where deflated alone it was 2 and whole 4; and its two
		// cost records in the inference's one cost item (airecords_costs.go): 1, not 1 each.
		blueprint.TableAIRecords: 2,
	},
	"approve": {
		// BeginApply, of a row under 2 KB since the proposal's rest is deflated (dynamo/
		// proposal.go), then CompleteApply (the applied marker and the approval in one
		// write, decisions/approve.go) of a 2 KB row (its write token 16 characters, not 32:
		// decision.go), and the learned fix's item. On
		// by_status each is a delete and a put: the applying entry is under 1 KB since the
		// row left out claimed_at and first_seen (2), and so is the approved one since
		// history entries are stored as arrays (dynamo/history.go: 2, where it was 1 + 2).
		blueprint.TableProcessed:                                 5,
		blueprint.TableProcessed + "/" + blueprint.IndexByStatus: 4,
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

// The record's payload and context, as large as the host sends them, stay out of the
// by_status entry (issue 37 §1; the status tool reads the customer ids kept beside them):
// an approve's status change of a row with a 3 KB payload is a delete and a put of two
// small entries, 2 WRU, not two 4 KB ones.
func TestLargePayloadStaysOutOfTheStatusIndex(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	row := func(status string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"tenant_id": s("t"), "id": s("se_1"), "status": s(status),
			"status_key": s("t#" + status), "claimed_sort": s("2026-11-29#se_1"),
			"payload": s(strings.Repeat("p", 3000)), "context": s(strings.Repeat("c", 500)),
			"customer_ids": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("C-1")}}}
	}
	got := WriteUnits(blueprint.Processed, row("pending"), row("applying"), false)
	if ix := "WRU " + blueprint.TableProcessed + "/" + blueprint.IndexByStatus; got[ix] != 2 {
		t.Errorf("pending → applying of a row with a 3 KB payload: %v WRU on by_status, want 2 (%v)", got[ix], got)
	}
}
