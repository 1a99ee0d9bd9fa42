package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// demo walks the whole sync-error flow against the running local stack, printing each
// step: the host ERP record before, a signed sync error, its diagnosis, the approve, and
// the record after the write-back; then the retries (retryStory): a host-reported
// connection error re-run by the host ERP's own re-sync once the fake ERP is back, and a
// failed flow run re-run by the flow from a fresh read, both resolved with their error kept.
func demo(ctx context.Context) error {
	api, err := newLocalAPI(ctx, "approver")
	if err != nil {
		return err
	}
	noAuth := http.Header{} // an inspection: the stack logs it in as the demo integration (netsuite_m2m.go)
	record := "/fake/hosterp/services/rest/record/v1/salesOrder/SO-10042"
	step := func(n int, what string) { fmt.Printf("\n%d. %s\n", n, what) }

	step(1, "The host ERP's sales order before (GET "+record+"):")
	_, before, err := api.do("GET", record, nil, noAuth)
	if err != nil {
		return err
	}
	fmt.Printf("   %s\n", before)

	errorID := "ERR-DEMO-" + strings.TrimPrefix(webhook.NewMessageID(), "msg_")[:8]
	step(2, "The host ERP posts a signed sync error ("+errorID+"):")
	code, out, err := api.signed(tenant.PurposeIngest, blueprint.IngestRoute.Path, sampleBody(api.tenant, errorID))
	if err != nil {
		return err
	}
	fmt.Printf("   %d %s", code, out)
	var claimed intake.IngestResponse
	if code != http.StatusAccepted || json.Unmarshal(out, &claimed) != nil {
		return fmt.Errorf("ingest answered %d", code)
	}

	step(3, "The worker diagnoses it in the background; the operator queue shows the proposal:")
	detailPath := "/api/sync-error-assist/proposals/" + claimed.ID
	var d queue.Detail
	for deadline := time.Now().Add(30 * time.Second); ; {
		code, out, err = api.do("GET", detailPath, nil, nil)
		if err != nil {
			return err
		}
		if code == http.StatusOK && json.Unmarshal(out, &d) == nil && d.Diagnosis == syncerror.DiagnosisReady {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no diagnosis after 30 s (last answer %d %s)", code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Printf("   class %s, confidence %.2f, trace %s\n   %s\n", d.Proposal.Class, d.Proposal.Confidence, d.Proposal.TraceID, d.Proposal.Summary)
	for _, f := range d.Proposal.Fix {
		fmt.Printf("   fix: %s  %v -> %v\n", f.Path, f.Before, f.After)
	}

	step(4, "An approver approves it (POST "+detailPath+"/approve):")
	code, out, err = api.do("POST", detailPath+"/approve", []byte(`{"note":"approved by make demo"}`), nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("approve answered %d %s", code, out)
	}
	_ = json.Unmarshal(out, &d)
	fmt.Printf("   %d, status %s\n", code, d.Status)

	step(5, "The fix was written back through the governed path; the record after:")
	_, after, err := api.do("GET", record, nil, noAuth)
	if err != nil {
		return err
	}
	fmt.Printf("   %s\n", after)
	fmt.Printf("\nThe audit trail: curl -s '%s/api/audit?actionType=syncerror' -H 'Authorization: %s'\n", api.base, api.auth)

	// Issue 24's "make demo shows both": the retries, bounded so that a stack run with a
	// deployed-length RETRY_SCHEDULE does not keep make demo waiting for minutes.
	fmt.Println("\nRetries re-run the integration that failed, from its source of truth (make demo-retry runs this part alone).")
	err = retryStory(ctx, demoRetryWait)
	if errors.Is(err, errLongSchedule) {
		fmt.Printf("   skipped the rest: %v; make demo-retry waits for it\n", err)
		return nil
	}
	return err
}
