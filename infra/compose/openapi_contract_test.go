package compose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// contract validates every request and response passing through the real mux against
// the OpenAPI document, and records which operations a tour exercised.
type contract struct {
	t      *testing.T
	router routers.Router
	api    http.Handler
	seen   map[string]bool
}

// text decodes the console's text bodies for validation; kin-openapi decodes only JSON
// and forms by itself.
func text(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

func newContract(t *testing.T, api http.Handler) *contract {
	t.Helper()
	for _, ct := range []string{"text/html", "text/css", "text/javascript", "text/csv"} {
		openapi3filter.RegisterBodyDecoder(ct, text)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(apidoc.Document())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &contract{t: t, router: router, api: api, seen: map[string]bool{}}
}

func (c *contract) do(r *http.Request) *httptest.ResponseRecorder {
	c.t.Helper()
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	w := httptest.NewRecorder()
	c.api.ServeHTTP(w, r)

	check := r.Clone(context.Background())
	check.Body = io.NopCloser(bytes.NewReader(body))
	route, params, err := c.router.FindRoute(check)
	if err != nil {
		c.t.Errorf("%s %s: not in the document: %v", r.Method, r.URL.Path, err)
		return w
	}
	c.seen[route.Method+" "+route.Path] = true
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route, Options: opts}
	// A request the document calls invalid must not succeed; error cases send such
	// requests on purpose and must be answered 4xx.
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && w.Code < 400 {
		c.t.Errorf("%s %s: answered %d to a request the document calls invalid: %v", r.Method, r.URL.Path, w.Code, err)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: w.Code, Header: w.Header(),
		Body: io.NopCloser(bytes.NewReader(w.Body.Bytes())), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s %s -> %d: response does not match the document: %v\n%s", r.Method, r.URL.Path, w.Code, err, w.Body)
	}
	return w
}

func (c *contract) call(token, method, path, body string, header ...string) *httptest.ResponseRecorder {
	c.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return c.do(r)
}

func (c *contract) signed(path string, body []byte) *httptest.ResponseRecorder {
	c.t.Helper()
	key, _ := webhook.ParseSecret(fixtureSecret)
	r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(intake.HeaderTenantID, "demo")
	webhook.Sign(key, webhook.NewMessageID(), fixtureTime, body).Set(r.Header)
	return c.do(r)
}

func want(t *testing.T, w *httptest.ResponseRecorder, status int, what string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("%s: %d, want %d: %s", what, w.Code, status, w.Body)
	}
}

// A tour of every route, successes and errors, on the emulators; every request and
// response is checked against the document, and every documented operation is visited.
func TestOpenAPIContract(t *testing.T) {
	f := newFlow(t)
	c := newContract(t, f.api)
	const proposals = "/api/sync-error-assist/proposals"

	id := f.diagnosed(t)
	f.readyClaim(t, "ERR-C-2", "SO-10042")
	third := f.readyClaim(t, "ERR-C-3", "SO-10042")
	ing := mustJSON(t, map[string]any{"tenantId": "demo", "errorId": "ERR-C-9", "recordType": "salesOrder", "recordId": "SO-1",
		"errorCode": "X", "message": "m", "occurredAt": fixtureTime.Format(time.RFC3339)})
	want(t, c.signed("/api/sync-error-assist/ingest", ing), 202, "ingest")
	want(t, c.call("", "POST", "/api/sync-error-assist/ingest", `{}`, "X-Tenant-Id", "demo"), 401, "unsigned ingest")

	want(t, c.call(operator, "GET", proposals+"?status=pending&limit=2", ""), 200, "list")
	want(t, c.call(operator, "GET", proposals+"?status=nope", ""), 400, "list bad status")
	want(t, c.call(operator, "GET", proposals+"?class=value&since=2026-01-01T00:00:00Z", ""), 200, "list filtered")
	want(t, c.call(operator, "GET", proposals+"?class=Not-A-Class", ""), 400, "list bad class")
	want(t, c.call(operator, "GET", proposals+"?q=err-c&assignee=none&sort=confidence", ""), 200, "list searched and sorted")
	want(t, c.call(operator, "GET", proposals+"?sort=size", ""), 400, "list bad sort")
	want(t, c.call(operator, "GET", proposals+"?format=csv&sort=oldest", ""), 200, "export")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/triage", `{"assign":{"to":"`+operator+`","from":""}}`), 200, "assign")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/triage", `{"assign":{"to":"someone","from":""}}`), 409, "assign stale")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/triage", `{"tag":{"add":"vip"}}`), 200, "tag")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/triage", `{"note":"asked jane@example.com"}`), 200, "note")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/triage", `{"tag":{"add":"Not A Tag"}}`), 400, "tag invalid")
	want(t, c.call(operator, "POST", proposals+"/se_unknownunknown/triage", `{"tag":{"add":"vip"}}`), 404, "triage unknown")
	want(t, c.call(operator, "GET", proposals+"?assignee=me&tag=vip", ""), 200, "list mine")
	want(t, c.call(approver, "GET", "/api/console/counts", ""), 200, "counts")
	want(t, c.call("", "GET", "/api/console/counts", ""), 401, "counts anonymous")
	want(t, c.call("", "GET", proposals, ""), 401, "list anonymous")
	want(t, c.call(operator, "GET", proposals+"/"+id, ""), 200, "detail")
	want(t, c.call(operator, "GET", proposals+"/se_unknownunknown", ""), 404, "detail unknown")
	// The default approval policy keeps a sensitive field's fix for approvers.
	want(t, c.call(operator, "POST", proposals+"/"+id+"/approve", `{"fix":[{"path":"contactPhone","after":"+49 30 1234567"}]}`), 403, "operator approve")
	want(t, c.call(approver, "POST", proposals+"/"+id+"/approve", `{"fix":[{"path":"shipcountry","after":"DE"}],"note":"ok"}`), 200, "approve")
	want(t, c.call(approver, "POST", proposals+"/"+id+"/approve", `{}`), 409, "approve again")
	want(t, c.call(approver, "POST", proposals+"/"+id+"/revert", `{"reason":"wrong country"}`), 200, "revert")
	want(t, c.call(approver, "POST", proposals+"/"+id+"/revert", ``), 409, "revert again")
	want(t, c.call(operator, "GET", "/api/sync-error-assist/automation?mode=enforce", ""), 200, "automation")
	want(t, c.call(operator, "GET", "/api/sync-error-assist/automation?mode=loud", ""), 400, "automation bad mode")
	want(t, c.call(operator, "GET", "/api/sync-error-assist/insights?window=30d", ""), 200, "insights")
	want(t, c.call(operator, "GET", "/api/sync-error-assist/insights?window=1y", ""), 400, "insights bad window")
	want(t, c.call(operator, "POST", proposals+"/"+id+"/reject", `{"reason":""}`), 400, "reject without reason")
	want(t, c.call(operator, "GET", "/api/sync-error-assist/proposal-groups?status=pending", ""), 200, "groups")
	want(t, c.call(approver, "POST", proposals+"/bulk", `{"action":"reject","reason":"dup","ids":["`+third+`"]}`), 200, "bulk")
	want(t, c.call(approver, "POST", proposals+"/bulk", `{"action":"nope","ids":[]}`), 400, "bulk invalid")
	want(t, c.call(operator, "POST", proposals+"/"+syncerror.ClaimID("demo", "ERR-C-2")+"/escalate", `{"reason":"finance"}`), 200, "escalate")
	want(t, c.call(operator, "POST", proposals+"/"+rowIDOf(t, ing)+"/reject", `{"reason":"noise"}`), 200, "reject")
	// A reverted fix was undone on purpose and a rejected row is closed: neither is retried.
	want(t, c.call(operator, "POST", proposals+"/"+id+"/retry", ""), 409, "retry a reverted row")
	want(t, c.call(operator, "POST", proposals+"/"+rowIDOf(t, ing)+"/retry", ""), 409, "retry a rejected row")
	// The escalated row's delivery, sent again: the route answers with the row as it ended.
	want(t, c.call(operator, "POST", proposals+"/"+syncerror.ClaimID("demo", "ERR-C-2")+"/retry", ""), 200, "retry")
	want(t, c.call(operator, "POST", proposals+"/"+syncerror.ClaimID("demo", "ERR-C-2")+"/resolve", `{"reason":"nope"}`), 400, "resolve bad reason")
	want(t, c.call(operator, "POST", proposals+"/"+syncerror.ClaimID("demo", "ERR-C-2")+"/resolve",
		`{"reason":"fixed_at_source","note":"corrected in the webshop"}`), 200, "resolve")
	want(t, c.call(operator, "POST", proposals+"/bulk", `{"action":"resolve","reason":"duplicate","ids":["`+third+`"]}`), 200, "bulk resolve")

	want(t, c.call(approver, "GET", "/api/ai/traces?claimId="+id, ""), 200, "traces")
	want(t, c.call(approver, "GET", "/api/ai/costs?claimId="+id, ""), 200, "costs")
	want(t, c.call(approver, "GET", "/api/ai/costs", ""), 400, "costs without claim")
	want(t, c.call(approver, "GET", "/api/audit?actionType=syncerror", ""), 200, "audit")
	want(t, c.call(operator, "GET", "/api/audit", ""), 403, "operator audit")

	fa := mustJSON(t, map[string]any{"approvalId": "FA-C-1", "erpId": "SO-10042", "entity": "salesOrder", "amount": "10.00",
		"currency": "EUR", "vendor": "V"})
	want(t, c.signed("/api/finance-ops/approvals", fa), 201, "finance create")
	want(t, c.call(operator, "GET", "/api/finance-ops/approvals?status=pending", ""), 200, "finance list")
	want(t, c.call(operator, "GET", "/api/finance-ops/approvals/FA-C-1", ""), 200, "finance detail")
	want(t, c.call(operator, "GET", "/api/finance-ops/approvals/FA-NOPE", ""), 404, "finance unknown")
	c.call(approver, "POST", "/api/finance-ops/approvals/FA-C-1/approve", "") // 200, or a guard refusal: both documented
	want(t, c.signed("/api/finance-ops/approvals", mustJSON(t, map[string]any{"approvalId": "FA-C-2", "entity": "vendorBill",
		"amount": "1", "currency": "EUR", "vendor": "V"})), 201, "finance create 2")
	want(t, c.call(approver, "POST", "/api/finance-ops/approvals/FA-C-2/reject", `{"reason":"no"}`), 200, "finance reject")

	want(t, c.call(approver, "GET", "/api/governance/approvals?reason=ownership&status=pending", ""), 200, "governance approvals")
	want(t, c.call(approver, "GET", "/api/governance/ownership-rejections", ""), 200, "rejections")
	want(t, c.call(approver, "GET", "/api/governance/loop-detections", ""), 200, "loops")
	want(t, c.call(approver, "POST", "/api/governance/approvals/ga_unknown/approve", ""), 404, "release unknown")
	want(t, c.call(approver, "POST", "/api/governance/approvals/ga_unknown/deny", ""), 404, "deny unknown")

	if err := (tenant.Admin{Store: f.deps.Tenants}).Set(context.Background(), "demo", tenant.KeyEmbeddedAllowedRoles, "operator"); err != nil {
		t.Fatal(err)
	}
	boot := c.signed("/api/embedded/host/bootstrap", mustJSON(t, map[string]any{"userId": "u", "hostAccountId": "h", "roles": []string{"operator"}}))
	want(t, boot, 201, "host bootstrap")
	var s struct{ ServiceToken string }
	_ = json.Unmarshal(boot.Body.Bytes(), &s)
	want(t, c.call(s.ServiceToken, "POST", "/api/embedded/context/bootstrap", `{"module":"sync-errors"}`), 201, "context bootstrap")
	want(t, c.call(s.ServiceToken, "POST", "/api/embedded/context/bootstrap", `{"module":"nope"}`), 400, "unknown module")
	want(t, c.call(s.ServiceToken, "DELETE", "/api/embedded/session", ""), 204, "teardown")

	want(t, c.call(operator, "GET", "/api/mcp/tools", ""), 200, "tools")
	want(t, c.call(operator, "POST", "/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25"), 200, "mcp tools/list")
	want(t, c.call("", "GET", "/api/openapi.json", ""), 200, "openapi")
	want(t, c.call("", "GET", blueprint.VersionPath, ""), 200, "version")
	want(t, c.call("", "GET", "/", ""), 200, "console")
	// OpenAPI path parameters cannot span segments, so the tour visits a one-segment URL;
	// deeper console URLs are the browser tests' business.
	want(t, c.call("", "GET", "/queue", ""), 200, "console URL")
	want(t, c.call("", "GET", "/config.json", ""), 200, "console config")

	const admin, settings = "admin@demo", "/api/settings/flows/"
	fl := `{"enabled":true,"source":{"system":"crm","entity":"Account"},"target":{"system":"hosterp","entity":"salesOrder"},"mapping":{"shipzip":"BillingPostalCode"}}`
	want(t, c.call(admin, "PUT", settings+"crm-to-erp", fl), 201, "flow create")
	want(t, c.call(admin, "PUT", settings+"crm-to-erp", fl), 200, "flow replace")
	want(t, c.call(admin, "PUT", settings+"crm-to-erp", `{"enabled":true,"mapping":{}}`), 400, "flow invalid")
	want(t, c.call(operator, "GET", "/api/settings/flows", ""), 403, "flows as operator")
	want(t, c.call(admin, "GET", "/api/settings/flows", ""), 200, "flows")
	want(t, c.call(admin, "GET", settings+"crm-to-erp", ""), 200, "flow")
	want(t, c.call(admin, "GET", settings+"nope", ""), 404, "flow unknown")
	ev := mustJSON(t, map[string]any{"eventId": "EV-C-1", "entity": "Account", "recordId": "SO-10042",
		"changedAt": fixtureTime.Format(time.RFC3339), "fields": map[string]any{"BillingPostalCode": "10117"}})
	accepted := c.signed("/api/flows/events/crm", ev)
	want(t, accepted, 202, "flow event")
	want(t, c.signed("/api/flows/events/nope", ev), 404, "flow event unknown system")
	var runs struct{ RunIDs []string }
	_ = json.Unmarshal(accepted.Body.Bytes(), &runs)
	want(t, c.call(operator, "GET", "/api/flows/runs?outcome=written&limit=5", ""), 200, "flow runs")
	want(t, c.call(operator, "GET", "/api/flows/runs?cursor=nope", ""), 400, "flow runs bad cursor")
	want(t, c.call(operator, "GET", "/api/flows/runs/"+runs.RunIDs[0], ""), 200, "flow run")
	want(t, c.call(operator, "GET", "/api/flows/runs/run_unknown", ""), 404, "flow run unknown")
	want(t, c.call(operator, "GET", "/api/flows/xrefs?system=hosterp&entity=customer&id=C-1", ""), 200, "flow cross-reference")
	want(t, c.call(operator, "GET", "/api/flows/xrefs?system=sap", ""), 400, "flow cross-reference bad record")
	dry := `{"recordId":"SO-10042","fields":{"BillingPostalCode":"10117"}}`
	want(t, c.call(admin, "POST", settings+"crm-to-erp/dry-run", dry), 200, "flow dry run")
	want(t, c.call(admin, "POST", settings+"crm-to-erp/dry-run", `{"fields":{}}`), 400, "flow dry run without a record")
	want(t, c.call(admin, "POST", settings+"nope/dry-run", dry), 404, "flow dry run unknown")
	want(t, c.call(admin, "POST", "/api/settings/connectors/hosterp/test", ""), 200, "connector test")
	want(t, c.call(admin, "POST", "/api/settings/connectors/sap/test", ""), 404, "connector test unknown system")
	want(t, c.call(admin, "GET", "/api/settings/connectors/sap/metadata", ""), 404, "connector metadata unknown system")
	want(t, c.call(admin, "GET", "/api/settings/connectors/crm/metadata?refresh=maybe", ""), 400, "connector metadata bad refresh")
	link := `{"source":{"system":"crm","entity":"Account","id":"ACC-1"},"target":{"system":"hosterp","entity":"customer","id":"C-77"},"expect":""}`
	want(t, c.call(operator, "PUT", "/api/flows/xrefs", link), 403, "cross-reference fix as operator")
	want(t, c.call(admin, "PUT", "/api/flows/xrefs", link), 200, "cross-reference fix")
	want(t, c.call(admin, "PUT", "/api/flows/xrefs", link), 409, "cross-reference fix stale")
	want(t, c.call(operator, "GET", "/api/flows/status?hours=48", ""), 200, "flow status")
	want(t, c.call(operator, "GET", "/api/flows/status?hours=0", ""), 400, "flow status bad window")
	want(t, c.call(admin, "DELETE", settings+"crm-to-erp", ""), 204, "flow delete")
	want(t, c.call(admin, "DELETE", settings+"crm-to-erp", ""), 404, "flow delete again")

	want(t, c.call(admin, "GET", "/api/settings", ""), 200, "settings")
	want(t, c.call(operator, "GET", "/api/settings", ""), 403, "settings as operator")
	want(t, c.call(admin, "PATCH", "/api/settings", `{"settings":{"finance_ops.enabled":"true"},"connectors":{"erp2":{"baseUrl":"https://93.184.215.14","token":"t"}}}`), 200, "settings patch")
	want(t, c.call(admin, "PATCH", "/api/settings", `{"connectors":{"erp2":{"baseUrl":"ftp://erp.example.com"}}}`), 400, "settings patch refused")
	want(t, c.call(admin, "PUT", "/api/settings/manifest-overrides", `{"entries":[{"entity":"ticket","owner":"crm","policy":"source_wins"}]}`), 200, "overrides")
	want(t, c.call(admin, "PUT", "/api/settings/manifest-overrides", `{"entries":[{"entity":"","owner":"crm","policy":"source_wins"}]}`), 400, "overrides invalid")
	want(t, c.call(admin, "POST", "/api/settings/webhook-secret/rotate", `{"purpose":"embedded"}`), 200, "rotate")
	want(t, c.call(admin, "POST", "/api/settings/webhook-secret/rotate", `{"purpose":"x"}`), 400, "rotate invalid")
	want(t, c.call(admin, "PUT", "/api/settings/system-aliases", `{"aliases":{"BC Prod":"erp2"}}`), 200, "system aliases")
	want(t, c.call(admin, "PUT", "/api/settings/system-aliases", `{"aliases":{"BC Prod":"nowhere"}}`), 400, "system aliases invalid")
	want(t, c.call(admin, "GET", "/api/settings/system-aliases", ""), 200, "system aliases read")
	want(t, c.call(operator, "GET", "/api/settings/system-aliases", ""), 403, "system aliases read by an operator")

	want(t, c.call(operator, "GET", "/api/settings/approval-policy", ""), 403, "policy as operator")
	want(t, c.call(admin, "GET", "/api/settings/approval-policy", ""), 200, "policy")
	want(t, c.call(admin, "PUT", "/api/settings/approval-policy", `{"version":0,"rules":[{"id":"Bad Id","apply":"sometimes"}]}`), 400, "policy invalid")
	want(t, c.call(admin, "PUT", "/api/settings/approval-policy",
		`{"version":0,"rules":[{"id":"countries","match":{"classes":["value"],"fields":["ship*"]},"apply":"auto","mode":"shadow"},{"id":"rest","match":{},"apply":"approver"}]}`), 200, "policy put")
	want(t, c.call(admin, "PUT", "/api/settings/approval-policy", `{"version":0,"rules":[]}`), 409, "policy stale")
	known := c.call(admin, "GET", "/api/settings/knowledge?limit=10", "")
	want(t, known, 200, "knowledge")
	var kn struct{ Items []struct{ ID string } }
	if _ = json.Unmarshal(known.Body.Bytes(), &kn); len(kn.Items) == 0 {
		t.Fatalf("nothing learned from the approve: %s", known.Body)
	}
	want(t, c.call(admin, "PUT", "/api/settings/knowledge/"+kn.Items[0].ID, `{"value":"DE","version":99}`), 409, "knowledge stale")
	want(t, c.call(admin, "PUT", "/api/settings/knowledge/"+kn.Items[0].ID, `{"version":1}`), 400, "knowledge invalid")
	want(t, c.call(admin, "PUT", "/api/settings/knowledge/kn_0000000000000000_0000000000000000", `{"value":"DE","version":1}`), 404, "knowledge unknown")
	corrected := c.call(admin, "PUT", "/api/settings/knowledge/"+kn.Items[0].ID, `{"value":"DE","version":2}`)
	want(t, corrected, 200, "knowledge correct")
	want(t, c.call(admin, "DELETE", "/api/settings/knowledge/"+kn.Items[0].ID+"?version=3", ""), 204, "knowledge delete")

	var missed []string
	for path, item := range mustDoc(t).Paths.Map() {
		for method := range item.Operations() {
			if !c.seen[method+" "+path] {
				missed = append(missed, method+" "+path)
			}
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Errorf("operations the tour never exercised: %v", missed)
	}
}

func mustDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(apidoc.Document())
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
