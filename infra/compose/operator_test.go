package compose_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
)

type flow struct {
	*env
	erp *fakesystem.Server
	api http.Handler
	// erpURL is the fake host ERP's address, the demo tenant's hosterp connector.
	erpURL string
}

// newFlow is the whole service on the emulators with a fake host ERP over real HTTP,
// holding the sales order the fixture sync error is about.
func newFlow(t testing.TB) *flow {
	t.Helper()
	t.Setenv("CONNECTOR_TIMEOUT", "300ms")
	e := newEnv(t, sqsqueue.CreateOptions{})
	erp := fakesystem.New(connector.SystemHostERP)
	srv := httptest.NewServer(erp.Handler())
	t.Cleanup(srv.Close)
	erp.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"})
	// Fields the tests' fixes write: an approve refuses a path its record type does not have.
	erp.DefineEntity("salesOrder", "contactPhone", "trackingNumber", "notes")
	if err := (tenant.Admin{Store: e.deps.Tenants}).SetConnector(context.Background(), "demo", "hosterp", srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	// A second tenant, for the tests that prove one tenant never sees another's rows.
	if err := e.deps.Tenants.Create(context.Background(), tenant.Config{ID: "other"}); err != nil {
		t.Fatal(err)
	}
	e.deps.Tokens = identitytest.RoleTokens{}
	api, err := e.deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		t.Fatal(err)
	}
	return &flow{env: e, erp: erp, api: api, erpURL: srv.URL}
}

// diagnosed ingests the fixture event and runs the worker on it.
func (f *flow) diagnosed(t *testing.T) string {
	t.Helper()
	var in events.APIGatewayV2HTTPRequest
	loadEvent(t, "ingest.json", &in)
	if resp, _ := ingestLambda(t, f.env)(context.Background(), in); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("ingest: %d %s", resp.StatusCode, resp.Body)
	}
	id := fixtureRowID(t)
	if resp, err := f.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m", Body: `{"tenantId":"demo","id":"` + id + `"}`}}}); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker: %+v %v", resp, err)
	}
	return id
}

func (f *flow) call(t *testing.T, token, method, path, body string) *httptest.ResponseRecorder {
	return serve(f.api, token, method, path, body)
}

// serve makes one JSON request of api with a bearer token (none when token is empty).
func serve(api http.Handler, token, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	api.ServeHTTP(w, r)
	return w
}

func (f *flow) row(t *testing.T, id string) syncerror.Claim {
	t.Helper()
	c, err := f.deps.Claims.Get(context.Background(), "demo", id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *flow) audits(t *testing.T, typ string) []audit.Record {
	t.Helper()
	p, err := f.deps.AuditStore.Query(context.Background(), audit.Query{TenantID: "demo", ActionType: typ,
		From: fixtureTime.Add(-time.Hour), To: fixtureTime.Add(time.Hour), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return p.Records
}

const (
	approver = "approver@demo"
	operator = "operator@demo"
)

func TestFlowWebhookToERPWriteBack(t *testing.T) {
	f := newFlow(t)
	id := f.diagnosed(t)
	w := f.call(t, operator, "GET", "/api/sync-error-assist/proposals", "")
	if w.Code != 200 || !strings.Contains(w.Body.String(), id) {
		t.Fatalf("queue: %d %s", w.Code, w.Body)
	}
	// Under the default policy a fix to a sensitive field is the approvers'.
	if w := f.call(t, operator, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", `{"fix":[{"path":"contactPhone","after":"+49 30 1"}]}`); w.Code != 403 {
		t.Fatalf("operator approve: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "", "GET", "/api/sync-error-assist/proposals", ""); w.Code != 401 {
		t.Fatalf("anonymous: %d", w.Code)
	}
	if w := f.call(t, approver, "GET", "/api/sync-error-assist/proposals/"+id, ""); w.Code != 200 {
		t.Fatalf("detail: %d", w.Code)
	}
	w = f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", `{"note":"ok"}`)
	if w.Code != 200 {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	rec, ok := f.erp.Get("salesOrder", "SO-10042")
	if !ok || rec.Fields["shipcountry"] != "DE" || f.erp.WriteCount() != 1 {
		t.Fatalf("ERP record %+v, %d writes", rec, f.erp.WriteCount())
	}
	if got := f.row(t, id); got.Status != syncerror.StatusApproved {
		t.Fatalf("row %s", got.Status)
	}
	keys := map[string]string{}
	for _, typ := range []string{audit.TypeSyncError, audit.TypeConnector} {
		for _, r := range f.audits(t, typ) {
			keys[r.ActionKey] = r.Result + "/" + r.Actor.Actor
		}
	}
	if keys["syncerror.approve"] != "success/user-approver" || keys["connector.write"] != "success/user-approver" {
		t.Fatalf("audit %v", keys)
	}
}

func TestFlowConcurrentApprovesWriteOnce(t *testing.T) {
	f := newFlow(t)
	f.erp.Delay(20 * time.Millisecond)
	id := f.diagnosed(t)
	codes := make(chan int, 20)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", "").Code
		}()
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for c := range codes {
		n[c]++
	}
	if n[200] != 1 || n[409] != 19 || f.erp.WriteCount() != 1 {
		t.Fatalf("codes %v, %d ERP writes; want one 200, nineteen 409, one write", n, f.erp.WriteCount())
	}
}

func TestFlowWriteBackFailuresLeaveThePending(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(f *flow)
		body   string
		status int
		code   string
		result string
	}{
		{"ERP answers 503", func(f *flow) { f.erp.FailNext(10, http.StatusServiceUnavailable) }, "", 502, "write_back_failed", audit.ResultFailure},
		{"governance refuses a field owned by shipping", func(*flow) {},
			`{"fix":[{"path":"trackingNumber","after":"1Z999"}]}`, 422, "ownership_rejected", audit.ResultDenied},
		{"DLP blocks a secret", func(*flow) {},
			`{"fix":[{"path":"notes","after":"key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}]}`, 422, "dlp_blocked", audit.ResultDenied},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlow(t)
			id := f.diagnosed(t)
			tc.setup(f)
			w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", tc.body)
			var p struct{ Code string }
			_ = json.Unmarshal(w.Body.Bytes(), &p)
			if w.Code != tc.status || p.Code != tc.code {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			row := f.row(t, id)
			if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError == "" {
				t.Fatalf("row status %s lease %v error %q", row.Status, row.Lease, row.ApplyError)
			}
			rec, _ := f.erp.Get("salesOrder", "SO-10042")
			if rec.Fields["trackingNumber"] != nil || rec.Fields["notes"] != nil {
				t.Fatalf("refused field written: %+v", rec.Fields)
			}
			if rec.Fields["shipcountry"] != "Deutschland" {
				t.Fatalf("ERP record changed by a failed write-back: %+v", rec.Fields)
			}
			var results []string
			for _, r := range f.audits(t, audit.TypeSyncError) {
				results = append(results, r.ActionKey+"/"+r.Result)
			}
			if fmt.Sprint(results) != fmt.Sprint([]string{"syncerror.approve/" + tc.result}) {
				t.Fatalf("audit %v", results)
			}
		})
	}
}

// A write whose answer never came (a timeout) may still land: the row stays applying
// under its lease rather than returning to pending, and once the lease ends the next
// approve reads the record, finds the fix and completes without writing it again.
func TestFlowWriteBackTimeoutSettlesFromTheRecord(t *testing.T) {
	f := newFlow(t)
	id := f.diagnosed(t)
	f.erp.Delay(2 * time.Second)
	w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", "")
	var p struct{ Status string }
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if w.Code != http.StatusAccepted || p.Status != string(syncerror.StatusApplying) {
		t.Fatalf("approve during a timeout: %d %s", w.Code, w.Body)
	}
	if row := f.row(t, id); row.Status != syncerror.StatusApplying || row.Lease == nil {
		t.Fatalf("row after a lost answer: status %s lease %v", row.Status, row.Lease)
	}
	f.erp.Delay(0)
	f.deps.Now = func() time.Time { return fixtureTime.Add(syncerror.DefaultLeaseTTL + time.Minute) }
	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve after the lease ended: %d %s", w.Code, w.Body)
	}
	if rec, _ := f.erp.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "DE" || f.erp.WriteCount() != 1 {
		t.Fatalf("after settling: %+v, %d applied writes", rec.Fields, f.erp.WriteCount())
	}
	if row := f.row(t, id); row.Status != syncerror.StatusApproved {
		t.Fatalf("row after settling: %s", row.Status)
	}
}

func TestFlowReconcileRepairsWhatTheWebhookMissed(t *testing.T) {
	f := newFlow(t)
	missed, _ := json.Marshal(map[string]any{"tenantId": "demo", "errorId": "ERR-MISSED-1", "recordType": "customer", "recordId": "C-1",
		"errorCode": "INVALID_FIELD_VALUE", "message": "Invalid value for field country: Germany", "occurredAt": fixtureTime.Add(-time.Hour).Format(time.RFC3339)})
	if err := f.erp.AddSyncError(missed); err != nil {
		t.Fatal(err)
	}
	// A claim whose lease expired mid-approve.
	id := f.diagnosed(t)
	if _, err := f.deps.Claims.BeginApply(context.Background(), "demo", id, syncerror.StatusPending, syncerror.Lease{Token: "dead", ExpiresAt: fixtureTime.Add(time.Minute)},
		nil, syncerror.HistoryEntry{Action: "approve"}, fixtureTime); err != nil {
		t.Fatal(err)
	}
	f.deps.Now = func() time.Time { return fixtureTime.Add(time.Hour) }
	var sched events.EventBridgeEvent
	loadEvent(t, "reconcile.json", &sched)
	rep, err := f.deps.ReconcileLambda(context.Background(), sched)
	if err != nil || rep.Claimed != 1 || rep.LeasesExpired != 1 || rep.Errors != 0 {
		t.Fatalf("reconcile %+v err=%v", rep, err)
	}
	if row := f.row(t, rowIDOf(t, missed)); row.Source != syncerror.SourceReconcile {
		t.Fatalf("missed error's row %+v", row)
	}
	if row := f.row(t, id); row.Status != syncerror.StatusPending {
		t.Fatalf("swept row %s", row.Status)
	}
	rep, err = f.deps.ReconcileLambda(context.Background(), sched)
	if err != nil || rep.Claimed != 0 || rep.LeasesExpired != 0 || rep.Requeued != 0 {
		t.Fatalf("second run %+v err=%v", rep, err)
	}
}

// The governance reads sit behind validateGuestContext then requireApproverRole.
func TestGovernanceReadsNeedAnApprover(t *testing.T) {
	f := newFlow(t)
	for _, path := range []string{"/api/governance/approvals?reason=ownership&status=pending",
		"/api/governance/ownership-rejections", "/api/governance/loop-detections"} {
		for token, want := range map[string]int{"": 401, "bogus": 401, operator: 403, approver: 200, "admin@demo": 200} {
			if w := f.call(t, token, "GET", path, ""); w.Code != want {
				t.Errorf("%s with %q: %d, want %d (%s)", path, token, w.Code, want, w.Body)
			}
		}
	}
}

// A kilobyte cursor on any listing is a 400, never a DynamoDB key-size error answered 503.
func TestOversizedCursorsAreRefused(t *testing.T) {
	f := newFlow(t)
	claimID := f.diagnosed(t)
	cursor := base64.RawURLEncoding.EncodeToString([]byte("2026-11-22T09:30:00.000000000Z#se_" + strings.Repeat("a", 1500)))
	for _, path := range []string{
		"/api/sync-error-assist/proposals?cursor=",
		"/api/finance-ops/approvals?cursor=",
		"/api/governance/approvals?reason=ownership&status=pending&cursor=",
		"/api/governance/ownership-rejections?cursor=",
		"/api/audit?cursor=",
		"/api/ai/traces?claimId=" + claimID + "&cursor=",
	} {
		if w := f.call(t, approver, "GET", path+cursor, ""); w.Code != http.StatusBadRequest {
			t.Errorf("%s…: %d %.200s", path, w.Code, w.Body)
		}
	}
}

// A token whose tenant_id names no tenant of the service is refused (401), however well
// it is signed.
func TestTokensOfAnUnknownTenantAreRefused(t *testing.T) {
	f := newFlow(t)
	if w := f.call(t, "approver@nosuchtenant", "GET", "/api/sync-error-assist/proposals", ""); w.Code != http.StatusUnauthorized {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := f.call(t, "approver@other", "GET", "/api/sync-error-assist/proposals", ""); w.Code != http.StatusOK {
		t.Fatalf("a known tenant: %d %s", w.Code, w.Body)
	}
}
