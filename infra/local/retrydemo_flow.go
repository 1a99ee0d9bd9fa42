package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
)

// The flow half of make demo-retry: a CRM account's change fails to reach the host ERP,
// the CRM user corrects the account, and the row's retry re-runs the flow from a fresh
// read of the account. It uses its own account and customer (retryAccount, seeded by
// seedFakeFlowTargets and newFakeSystems) so that the fresh read carries no field another
// system owns: C-2001's CreditLimit is the host ERP's, and a re-run of it is refused.

const retryAccount = "C-2002"

// crmAccountPath is the fake CRM's Account row, as Salesforce's REST API addresses it.
func crmAccountPath(id string) string {
	return "/fake/crm/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/Account/" + id
}

// flowRetryStory is (b): a failed flow run, retried by re-running the flow.
func flowRetryStory(api *localAPI, tag string, maxWait time.Duration) error {
	// The corrected address is new on each run, so the host ERP cannot hold it before the re-run.
	bad, good := "einkauf(at)suedwind-"+tag, "einkauf-"+strings.ToLower(tag)+"@suedwind.example"
	step(7, "A CRM user enters an e-mail the host ERP refuses on account "+retryAccount+"; the flow's write fails:")
	if err := patchFake(api, crmAccountPath(retryAccount), map[string]any{"Email": bad}); err != nil {
		return err
	}
	run, err := postAccountChange(api, tag, bad)
	if err != nil {
		return err
	}
	d, err := waitRow(api, run.SyncErrorID, func(d queue.Detail) bool { return d.Diagnosis == syncerror.DiagnosisReady })
	if err != nil {
		return err
	}
	code, message := d.Error.ErrorCode, d.Error.Message
	fmt.Printf("   sync error %s: %s %q, diagnosed %s, status %s\n", d.ID, code, message, d.Class, d.Status)

	step(8, "The CRM user corrects the address in the CRM; an operator retries the row:")
	if err := patchFake(api, crmAccountPath(retryAccount), map[string]any{"Email": good}); err != nil {
		return err
	}
	status, out, err := api.do("POST", "/api/sync-error-assist/proposals/"+d.ID+"/retry", nil, nil)
	if err != nil || status != http.StatusOK || json.Unmarshal(out, &d) != nil {
		return fmt.Errorf("retry answered %d %s (%v)", status, firstLine(out), err)
	}
	fmt.Printf("   %d: status %s, %d attempt(s): %s\n", status, d.Status, d.RetryAttempts, lastReason(d))
	if d.Status == syncerror.StatusRetrying {
		// The flow redrive makes the re-run the operator asked for.
		step(9, "The flow redrive re-runs the flow from a fresh read of the account, through the mapping and the guard:")
		if d, err = runDueRetry(api, d.ID, d, maxWait); err != nil {
			return err
		}
	}
	if err := endedResolved(d, "the failed flow run", code, message); err != nil {
		return err
	}
	customer, err := api.fakeRecord("/fake/hosterp" + netsuiteRecordPath + "customer/" + retryAccount)
	if err != nil {
		return err
	}
	if customer["email"] != good {
		return fmt.Errorf("the host ERP's customer %s has email %v after the re-run, want %s", retryAccount, customer["email"], good)
	}
	fmt.Printf("   the host ERP's customer %s now has email %s, read fresh from the CRM\n", retryAccount, good)
	return nil
}

// postAccountChange posts the CRM's change of the account's e-mail and returns its one
// run, which must have failed.
func postAccountChange(api *localAPI, tag, email string) (flow.Run, error) {
	id := "EV-RETRY-" + tag + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	body, _ := json.Marshal(map[string]any{"eventId": id,
		"entity": "Account", "recordId": retryAccount, "changedAt": time.Now().UTC().Format(time.RFC3339),
		"fields": map[string]any{"Type": "Customer", "Email": email}})
	code, out, err := api.flowEvent(connector.SystemCRM, id, body)
	var acc flow.EventResponse
	if err != nil || code != http.StatusAccepted || json.Unmarshal(out, &acc) != nil || len(acc.RunIDs) != 1 {
		return flow.Run{}, fmt.Errorf("change event answered %d %s (%v)", code, firstLine(out), err)
	}
	var run flow.Run
	code, out, err = api.do("GET", "/api/flows/runs/"+acc.RunIDs[0], nil, nil)
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &run) != nil {
		return run, fmt.Errorf("the run answered %d %s (%v)", code, firstLine(out), err)
	}
	fmt.Printf("   run %s of %s: %s — %s\n", run.ID, run.FlowID, run.Outcome, run.Decision)
	if run.Outcome != flow.OutcomeFailed || run.SyncErrorID == "" {
		return run, fmt.Errorf("run %s ended %s (sync error %q), want failed with a sync error", run.ID, run.Outcome, run.SyncErrorID)
	}
	return run, nil
}

// lastReason is what the row's last attempt said.
func lastReason(d queue.Detail) string {
	if n := len(d.Attempts); n > 0 {
		return d.Attempts[n-1].Reason
	}
	return d.RetryError
}
