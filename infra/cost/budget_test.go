package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// The call budgets of the hot paths (issue 37 §6), counted by the meter make cost uses, so
// a change that adds a call on them fails here, not in a benchmark weeks later. The tenant's
// settings read (cached per warm function) is not counted against them.
const (
	// ingestWrites are the DynamoDB calls of one signed ingest under the webhook-id the
	// host ERP's script sends (syncerror.HostMessageID): two single-item conditional
	// writes on the processed table (the errorId's record, then the fold of the
	// signature's row) and no read. Not one: the duplicate rule and the fold live on two
	// items (shared/syncerror/fold.go says why) and dynalite has no TransactWriteItems to
	// write them in one call.
	ingestWrites = 2
	// ingestWritesOtherID adds, for any other sender's webhook-id, its record (side by side
	// with the errorId's, in the same round trip).
	ingestWritesOtherID = 3
	// ingestSends is the diagnosis message of a new row; an occurrence sends none.
	ingestSends = 1
	// approveCalls are the DynamoDB calls of one approve with its write-back: 15 measured
	// on 2026-11-29, 13 since the applied marker and the approval are one write (37 for
	// three approves here; 40 before), issue 37 §1; 34 for three since the approve answers
	// with the row that write returns instead of reading it again (11 each warm, and the
	// first approve's reads of the tenant and the manifest, cached after it); 10 each warm
	// since a row no auto rule matched reads no automation record (thirteenth session,
	// Proposal.Automation), so 11 holds it with the first approve's reads.
	approveCalls = 11
	// diagnoseCalls are the DynamoDB calls of one diagnosis on the rules provider: taking
	// and completing the row, the learned-fix lookups, the trace, cost and audit records.
	// 9 until 2026-11-30 (thirteenth session), 8 since a warm worker reads the approval
	// policy once per TTL (policy.CachedPolicies).
	diagnoseCalls = 8
)

func TestHotPathCallBudgets(t *testing.T) {
	r := startRun(t)
	// First, on an empty queue, so the diagnosis stage diagnoses these rows only. The
	// worker diagnoses up to DefaultWorkerParallel messages at once, each of which may find
	// the tenant's approval policy not yet cached: that many reads on top, once.
	const rows = 10
	se, err := r.syncErrors(rows)
	if err != nil {
		t.Fatal(err)
	}
	budgets := map[string]int{"approve": approveCalls, "diagnose": diagnoseCalls}
	once := map[string]int{"diagnose": diagnosis.DefaultWorkerParallel}
	for _, st := range se.Stages {
		budget, ok := budgets[st.Name]
		if !ok {
			continue
		}
		delete(budgets, st.Name)
		w, rd, other := dynamoCalls(st.Usage)
		if got := w + rd + other; got > budget*rows+once[st.Name] {
			t.Errorf("%s: %d DynamoDB calls for %d sync errors (%v), budget %d each and %d once", st.Name, got, rows, st.Usage.TableCalls, budget, once[st.Name])
		}
	}
	if len(budgets) > 0 {
		t.Errorf("no stage measured for %v", budgets)
	}
	ingest, err := r.deps.HTTPLambda(blueprint.FuncIngest)
	if err != nil {
		t.Fatal(err)
	}
	post := func(errorID, recordID string, webhookID func(errorID string) string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"tenantId": costTenant, "errorId": errorID, "recordType": "salesOrder",
			"recordId": recordID, "errorCode": "INVALID_FIELD_VALUE", "message": costMessage,
			"occurredAt": time.Now().UTC().Add(-time.Minute).Format(time.RFC3339), "payload": map[string]any{"shipcountry": "Deutschland"}})
		h := http.Header{}
		webhook.Sign(r.keys[tenant.PurposeIngest], webhookID(errorID), time.Now(), body).Set(h)
		h.Set(intake.HeaderTenantID, costTenant)
		if err := r.invoke(newTimer(r.meter, blueprint.FuncIngest), ingest,
			apiEvent(http.MethodPost, blueprint.IngestRoute.Path, h, string(body)), http.StatusAccepted); err != nil {
			t.Fatal(err)
		}
	}
	hostID := func(errorID string) string { return syncerror.HostMessageID(costTenant, errorID) }
	otherID := func(string) string { return webhook.NewMessageID() }
	post("BUDGET-WARM", "SO-BUDGET-WARM", hostID) // the tenant's settings, read once per warm function
	r.meter.Take()
	const n = 5
	for i := range n {
		post(fmt.Sprintf("BUDGET-%d", i), fmt.Sprintf("SO-BUDGET-%d", i), hostID)
	}
	checkIngest(t, "new rows", r.meter.Take(), n, n, ingestWrites)
	for i := range n { // the same record and message: an occurrence of each row
		post(fmt.Sprintf("BUDGET-%d-again", i), fmt.Sprintf("SO-BUDGET-%d", i), hostID)
	}
	checkIngest(t, "occurrences", r.meter.Take(), n, 0, ingestWrites)
	for i := range n { // occurrences again, so no message waits for the diagnosis below
		post(fmt.Sprintf("BUDGET-%d-other", i), fmt.Sprintf("SO-BUDGET-%d", i), otherID)
	}
	checkIngest(t, "occurrences under another sender's ids", r.meter.Take(), n, 0, ingestWritesOtherID)
}

// checkIngest holds n posts' usage to writes DynamoDB writes each and no read, wantSends
// being the diagnosis messages they should send.
func checkIngest(t *testing.T, what string, u Usage, n, wantSends, writes int) {
	t.Helper()
	w, rd, other := dynamoCalls(u)
	if w != writes*n || rd != 0 || other != 0 {
		t.Errorf("ingest, %s: %d DynamoDB writes, %d reads, %d other calls for %d posts (%v %v); budget %d writes and no read each",
			what, w, rd, other, n, u.TableCalls, u.Calls, writes)
	}
	sends := u.Calls["sqs.SendMessage"] + u.Calls["sqs.SendMessageBatch"]
	if sends != wantSends || wantSends > ingestSends*n {
		t.Errorf("ingest, %s: %d sends for %d posts, want %d", what, sends, n, wantSends)
	}
}

// dynamoCalls splits u's DynamoDB calls into writes, reads and any other call, leaving
// out the reads of the tenants' settings.
func dynamoCalls(u Usage) (writes, reads, other int) {
	for k, v := range u.TableCalls {
		op, table, _ := strings.Cut(strings.TrimPrefix(k, "dynamodb."), " ")
		switch {
		case table == blueprint.TableTenants:
		case op == "PutItem" || op == "UpdateItem" || op == "DeleteItem":
			writes += v
		default:
			reads += v
		}
	}
	for k, v := range u.Calls {
		switch strings.TrimPrefix(k, "dynamodb.") {
		case "BatchWriteItem", "TransactWriteItems":
			writes += v
		case "BatchGetItem", "TransactGetItems":
			reads += v
		}
	}
	total := 0
	for k, v := range u.Calls {
		if strings.HasPrefix(k, "dynamodb.") {
			total += v
		}
	}
	tenantReads := 0
	for k, v := range u.TableCalls {
		if strings.HasSuffix(k, " "+blueprint.TableTenants) {
			tenantReads += v
		}
	}
	return writes, reads, total - writes - reads - tenantReads
}

// startEmulators starts the emulators for one test (stopped when it ends) and points the
// AWS environment at them; -short skips the test.
func startEmulators(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the emulators; -short skips it")
	}
	emu, err := emulators.Start(context.Background(), emulators.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emu.Stop)
	for _, kv := range emu.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// startRun starts the emulators and a costing run on them for one test.
func startRun(t *testing.T) *run {
	t.Helper()
	startEmulators(t)
	ctx := context.Background()
	for _, k := range []string{"STAGE", "LOG_LEVEL", "LOCAL_SEALING_KEY"} {
		t.Setenv(k, os.Getenv(k)) // restored after the test; newRun sets them
	}
	r, stop, err := newRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return r
}
