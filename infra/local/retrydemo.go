package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// localRetrySchedule is the automatic retry's schedule on the local stack (RETRY_SCHEDULE
// overrides it): seconds instead of the deployed minutes and hours, so make demo-retry
// sees a retry land.
const localRetrySchedule = "5s,10s,20s"

// outage makes the fake host ERP refuse every write with status while it is set (local
// only): POST /fake/hosterp/_outage {"status": 503|403|0}. 403 answers as NetSuite does to
// a role without the permission to write (reads pass); any other status refuses reads too.
type outage struct{ status atomic.Int32 }

func (o *outage) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_outage" && r.Method == http.MethodPost {
			var body struct{ Status int32 }
			if json.NewDecoder(r.Body).Decode(&body) != nil {
				http.Error(w, `want {"status": 503|403|0}`, http.StatusBadRequest)
				return
			}
			o.status.Store(body.Status)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		st := int(o.status.Load())
		// An outage refuses everything; a missing permission only writes.
		if st == 0 || st == http.StatusForbidden && r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.oracle.resource+json; type=error")
		code := map[int]string{403: "INSUFFICIENT_PERMISSION"}[st]
		if code == "" {
			code = "SERVICE_UNAVAILABLE"
		}
		w.WriteHeader(st)
		_, _ = w.Write([]byte(`{"title":"` + http.StatusText(st) + `","status":` + strconv.Itoa(st) +
			`,"o:errorDetails":[{"detail":"The request was refused.","o:errorCode":"` + code + `"}]}`))
	})
}

// demoRetryWait bounds the wait for one scheduled attempt in make demo: the local
// schedule's attempts are seconds apart; a longer RETRY_SCHEDULE is make demo-retry's.
const demoRetryWait = 30 * time.Second

// errLongSchedule is a scheduled attempt due later than the caller will wait.
var errLongSchedule = errors.New("the next scheduled attempt is due later than make demo waits")

// retryDemo is make demo-retry: the retry story, waiting as long as the schedule says.
func retryDemo(ctx context.Context) error { return retryStory(ctx, 0) }

// retryStory shows how a retry re-runs the integration that failed, from its source of
// truth, never re-sending the stored payload: (a) a host-reported connection error, retried
// by the schedule through the host ERP's own re-sync (the service ticks the request on the
// host's sync-error record; the host's scheduled script re-runs the sync and answers on the
// same record), and (b) a failed flow run, retried by re-running the flow from a fresh read
// of its source record. Both rows end resolved with the error as received still on them.
// maxWait > 0 bounds each wait for a scheduled attempt (errLongSchedule beyond it).
func retryStory(ctx context.Context, maxWait time.Duration) error {
	api, err := newLocalAPI(ctx, "operator")
	if err != nil {
		return err
	}
	defer func() { _ = setOutage(api, 0) }()
	tag := strings.TrimPrefix(webhook.NewMessageID(), "msg_")[:8]
	if err := hostRetryStory(api, tag, maxWait); err != nil {
		return err
	}
	if err := flowRetryStory(api, tag, maxWait); err != nil {
		return err
	}
	fmt.Printf("\nThe audit trail: curl -s '%s/api/audit?actionType=syncerror' -H 'Authorization: %s'\n", api.base, api.auth)
	return nil
}

func step(n int, what string) { fmt.Printf("\n%d. %s\n", n, what) }

// setOutage switches the fake host ERP's outage (0 ends it).
func setOutage(api *localAPI, status int) error {
	code, out, err := api.do("POST", "/fake/hosterp/_outage", []byte(`{"status":`+strconv.Itoa(status)+`}`), http.Header{})
	if err != nil || code != http.StatusNoContent {
		return fmt.Errorf("the fake host ERP's outage switch answered %d %s (%v)", code, firstLine(out), err)
	}
	return nil
}

// hostRetryStory is (a): the host ERP's connection error, re-run by the host ERP.
func hostRetryStory(api *localAPI, tag string, maxWait time.Duration) error {
	errorID, code, message := "ERR-CONN-"+tag, "ECONNRESET", "Connection reset by peer while saving salesOrder SO-10042"
	step(1, "An integration fails to save sales order SO-10042 and records it on the host ERP's own sync-error record:")
	hostRec, err := createHostSyncError(api, errorID, code, message)
	if err != nil {
		return err
	}
	fmt.Printf("   %s %s (the record the host's user-event script posts from)\n", syncErrorRecord, hostRec)

	step(2, "The host ERP goes down (the fake answers 503); the error is posted, naming that record (context.hostRecord):")
	if err := setOutage(api, http.StatusServiceUnavailable); err != nil {
		return err
	}
	id, err := postError(api, errorID, code, message, hostRec)
	if err != nil {
		return err
	}
	d, err := waitRow(api, id, func(d queue.Detail) bool { return d.Status == syncerror.StatusRetrying })
	if err != nil {
		return err
	}
	fmt.Printf("   diagnosed %s: status %s (not in the pending queue), next attempt at %s\n", d.Class, d.Status, d.NextRetryAt.Format(time.TimeOnly))

	step(3, "The first scheduled attempt cannot reach the host ERP and is rescheduled:")
	if d, err = runDueRetry(api, id, d, maxWait); err != nil {
		return err
	}
	fmt.Printf("   status %s after %d attempt(s): %s\n", d.Status, d.RetryAttempts, d.RetryError)

	step(4, "The host ERP is back; the next attempt asks it to re-run the sync (the service never re-sends the payload):")
	if err := setOutage(api, 0); err != nil {
		return err
	}
	if d, err = runDueRetry(api, id, d, maxWait); err != nil {
		return err
	}
	marker, err := api.fakeRecord(hostRecordPath(hostRec))
	if err != nil {
		return err
	}
	if marker[hostRequested] != true {
		return fmt.Errorf("attempt %d did not tick %s on %s %s (status %s: %s)", d.RetryAttempts, hostRequested, syncErrorRecord, hostRec, d.Status, d.RetryError)
	}
	fmt.Printf("   status %s; %s %s now has %s=true, %s=%v\n", d.Status, syncErrorRecord, hostRec, hostRequested, hostStatus, marker[hostStatus])

	step(5, "The host's scheduled script (sea_sync_error_retry_ss.js, played here) re-runs the sync and answers on the record:")
	if err := playRetryScript(api, hostRec, marker); err != nil {
		return err
	}

	step(6, "The next scheduled attempt reads the answer and resolves the row, nobody involved:")
	if d, err = runDueRetry(api, id, d, maxWait); err != nil {
		return err
	}
	return endedResolved(d, "the host-reported connection error", code, message)
}

// endedResolved prints the row's error and attempts, and checks it ended resolved by the
// retry with its error as received.
func endedResolved(d queue.Detail, what, code, message string) error {
	fmt.Printf("   status %s (%s); the error as received: %s %q\n", d.Status, d.Resolution, d.Error.ErrorCode, d.Error.Message)
	for i, a := range d.Attempts {
		fmt.Printf("   attempt %d  %s  %-9s %-8s %s %s\n", i+1, a.At.Format(time.TimeOnly), a.Result, a.System, a.Code, a.Reason)
	}
	printHistory(d)
	switch {
	case d.Status != syncerror.StatusResolved || d.Resolution != syncerror.ResolutionRetried:
		return fmt.Errorf("%s ended %s/%s, want resolved/retried", what, d.Status, d.Resolution)
	case d.Error.ErrorCode != code || d.Error.Message != message:
		return fmt.Errorf("%s: the row's error is %s %q, want the error as received, %s %q", what, d.Error.ErrorCode, d.Error.Message, code, message)
	case len(d.Attempts) == 0 || d.Attempts[len(d.Attempts)-1].Result != syncerror.Delivered:
		return fmt.Errorf("%s: the row lists attempts %+v, want the last delivered", what, d.Attempts)
	}
	return nil
}

// postError posts a signed sync error about the demo's sales order, naming the host ERP's
// sync-error record it came from, and returns its row id.
func postError(api *localAPI, errorID, code, message, hostRec string) (string, error) {
	body, _ := json.Marshal(map[string]any{"tenantId": api.tenant, "errorId": errorID, "recordType": "salesOrder",
		"recordId": "SO-10042", "errorCode": code, "message": message, "occurredAt": time.Now().UTC().Format(time.RFC3339),
		"externalSystem": "webshop", "direction": "inbound", "payload": demoPayload(errorID),
		"context": map[string]any{"source": "netsuite", "hostRecord": map[string]any{"type": syncErrorRecord, "id": hostRec}}})
	status, out, err := api.signed(tenant.PurposeIngest, blueprint.IngestRoute.Path, body)
	var res intake.IngestResponse
	if err != nil || status != http.StatusAccepted || json.Unmarshal(out, &res) != nil {
		return "", fmt.Errorf("ingest answered %d %s (%v)", status, firstLine(out), err)
	}
	fmt.Printf("   posted %s: %d %s", errorID, status, out)
	return res.ID, nil
}

// waitRow polls the row until done holds (the diagnosis runs in the background).
func waitRow(api *localAPI, id string, done func(queue.Detail) bool) (queue.Detail, error) {
	var d queue.Detail
	for deadline := time.Now().Add(30 * time.Second); ; {
		code, out, err := api.do("GET", "/api/sync-error-assist/proposals/"+id, nil, nil)
		if err != nil {
			return d, err
		}
		if code == http.StatusOK && json.Unmarshal(out, &d) == nil && done(d) {
			return d, nil
		}
		if time.Now().After(deadline) {
			return d, fmt.Errorf("row %s: not there after 30 s (status %s, diagnosis %s)", id, d.Status, d.Diagnosis)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// runDueRetry waits until the row's next attempt is due, runs the backstops (the flow
// redrive runs the due retries) and returns the row after the attempt.
func runDueRetry(api *localAPI, id string, d queue.Detail, maxWait time.Duration) (queue.Detail, error) {
	if d.NextRetryAt != nil && maxWait > 0 && time.Until(*d.NextRetryAt) > maxWait {
		return d, fmt.Errorf("%w (%s)", errLongSchedule, d.NextRetryAt.Format(time.TimeOnly))
	}
	if d.NextRetryAt != nil {
		time.Sleep(time.Until(*d.NextRetryAt) + 100*time.Millisecond)
	}
	if code, out, err := api.do("POST", "/local/reconcile", nil, nil); err != nil || code != http.StatusOK {
		return d, fmt.Errorf("the backstops answered %d %s (%v)", code, firstLine(out), err)
	}
	attempts := d.RetryAttempts
	return waitRow(api, id, func(n queue.Detail) bool { return n.RetryAttempts > attempts })
}

func printHistory(d queue.Detail) {
	for _, h := range d.History {
		fmt.Printf("   %s  %-22s %-16s %s\n", h.At.Format(time.TimeOnly), h.Action, h.Actor, h.Note)
	}
}
