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

// retryStory shows the two ways out the retry gives: a connection error retried by the
// schedule until the host ERP takes the write again, with nobody involved; and a
// permission error retried on request that returns to pending while the ERP still refuses.
// maxWait > 0 bounds each wait for a scheduled attempt (errLongSchedule beyond it).
func retryStory(ctx context.Context, maxWait time.Duration) error {
	api, err := newLocalAPI(ctx, "operator")
	if err != nil {
		return err
	}
	step := func(n int, what string) { fmt.Printf("\n%d. %s\n", n, what) }
	setOutage := func(status int) error {
		code, out, err := api.do("POST", "/fake/hosterp/_outage", []byte(`{"status":`+strconv.Itoa(status)+`}`), http.Header{})
		if err != nil || code != http.StatusNoContent {
			return fmt.Errorf("the fake host ERP's outage switch answered %d %s (%v)", code, firstLine(out), err)
		}
		return nil
	}
	defer func() { _ = setOutage(0) }()
	tag := strings.TrimPrefix(webhook.NewMessageID(), "msg_")[:8]

	step(1, "The host ERP is down (the fake answers 503) and an integration reports a connection error:")
	if err := setOutage(http.StatusServiceUnavailable); err != nil {
		return err
	}
	conn, err := postError(api, "ERR-CONN-"+tag, "ECONNRESET", "Connection reset by peer while saving salesOrder SO-10042")
	if err != nil {
		return err
	}
	d, err := waitRow(api, conn, func(d syncerror.Detail) bool { return d.Status == syncerror.StatusRetrying })
	if err != nil {
		return err
	}
	fmt.Printf("   diagnosed %s: status %s (not in the pending queue), next attempt at %s\n", d.Class, d.Status, d.NextRetryAt.Format(time.TimeOnly))

	step(2, "The first scheduled attempt meets the outage and is rescheduled:")
	if d, err = runDueRetry(api, conn, d, maxWait); err != nil {
		return err
	}
	fmt.Printf("   status %s after %d attempt(s): %s\n", d.Status, d.RetryAttempts, d.RetryError)

	step(3, "The host ERP is back; the next scheduled attempt lands and resolves the row, nobody involved:")
	if err := setOutage(0); err != nil {
		return err
	}
	if d, err = runDueRetry(api, conn, d, maxWait); err != nil {
		return err
	}
	printHistory(d)
	if d.Status != syncerror.StatusResolved || d.Resolution != syncerror.ResolutionRetried {
		return fmt.Errorf("the connection error ended %s/%s, want resolved/retried", d.Status, d.Resolution)
	}

	step(4, "A permission error waits for people (the fake host ERP now answers 403):")
	if err := setOutage(http.StatusForbidden); err != nil {
		return err
	}
	perm, err := postError(api, "ERR-PERM-"+tag, "INSUFFICIENT_PERMISSION",
		"Permission Violation: the integration role lacks the permission to edit salesOrder SO-10042")
	if err != nil {
		return err
	}
	if d, err = waitRow(api, perm, func(d syncerror.Detail) bool { return d.Diagnosis == syncerror.DiagnosisReady }); err != nil {
		return err
	}
	fmt.Printf("   diagnosed %s: status %s\n", d.Class, d.Status)

	step(5, "An operator retries it while the ERP still refuses: back to pending, diagnosed again, attempt shown:")
	code, out, err := api.do("POST", "/api/sync-error-assist/proposals/"+perm+"/retry", nil, nil)
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &d) != nil {
		return fmt.Errorf("retry answered %d %s (%v)", code, firstLine(out), err)
	}
	fmt.Printf("   %d: status %s, %d attempt(s): %s\n", code, d.Status, d.RetryAttempts, d.RetryError)
	printHistory(d)
	if d.Status != syncerror.StatusPending {
		return fmt.Errorf("the permission error's retry ended %s, want pending", d.Status)
	}
	fmt.Printf("\nThe audit trail: curl -s '%s/api/audit?actionType=syncerror' -H 'Authorization: %s'\n", api.base, api.auth)
	return nil
}

// postError posts a signed sync error about the demo's sales order and returns its row id.
func postError(api *localAPI, errorID, code, message string) (string, error) {
	body, _ := json.Marshal(map[string]any{"tenantId": api.tenant, "errorId": errorID, "recordType": "salesOrder",
		"recordId": "SO-10042", "errorCode": code, "message": message, "occurredAt": time.Now().UTC().Format(time.RFC3339),
		"externalSystem": "webshop", "direction": "inbound", "payload": map[string]any{"shipcity": "Berlin", "memo": "webshop order " + errorID}})
	status, out, err := api.signed(tenant.PurposeIngest, blueprint.IngestRoute.Path, body)
	var res syncerror.IngestResponse
	if err != nil || status != http.StatusAccepted || json.Unmarshal(out, &res) != nil {
		return "", fmt.Errorf("ingest answered %d %s (%v)", status, firstLine(out), err)
	}
	fmt.Printf("   posted %s: %d %s", errorID, status, out)
	return res.ID, nil
}

// waitRow polls the row until done holds (the diagnosis runs in the background).
func waitRow(api *localAPI, id string, done func(syncerror.Detail) bool) (syncerror.Detail, error) {
	var d syncerror.Detail
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
func runDueRetry(api *localAPI, id string, d syncerror.Detail, maxWait time.Duration) (syncerror.Detail, error) {
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
	return waitRow(api, id, func(n syncerror.Detail) bool { return n.RetryAttempts > attempts })
}

func printHistory(d syncerror.Detail) {
	for _, h := range d.History {
		fmt.Printf("   %s  %-22s %-16s %s\n", h.At.Format(time.TimeOnly), h.Action, h.Actor, h.Note)
	}
}
