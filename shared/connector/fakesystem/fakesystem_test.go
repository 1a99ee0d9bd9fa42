package fakesystem_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// These cases speak raw HTTP to the fake, for vendor behaviour the connector's own tests
// cannot reach because the client never sends such requests.
func TestFakeVendorShapes(t *testing.T) {
	t.Parallel()
	type call struct {
		sys                 connector.System
		method, path, body  string
		header              map[string]string
		wantStatus          int
		wantHeader, wantHas string
	}
	bc := "/api/v2.0/companies(" + fakesystem.FakeCompanyID + ")/customers('C-1')"
	for name, tc := range map[string]call{
		"netsuite patch is 204 with Location": {sys: connector.SystemHostERP, method: "PATCH",
			path: "/services/rest/record/v1/customer/C-1", body: `{"n":2}`, wantStatus: 204, wantHeader: "Location"},
		"netsuite error details": {sys: connector.SystemHostERP, method: "GET",
			path: "/services/rest/record/v1/customer/nope", wantStatus: 404, wantHas: `"o:errorCode":"NONEXISTENT_ID"`},
		"suiteql needs Prefer: transient": {sys: connector.SystemHostERP, method: "POST",
			path: "/services/rest/query/v1/suiteql", body: `{"q":"SELECT 1"}`, wantStatus: 400, wantHas: "INVALID_HEADER"},
		"suiteql offset is a multiple of limit": {sys: connector.SystemHostERP, method: "POST", header: map[string]string{"Prefer": "transient"},
			path: "/services/rest/query/v1/suiteql?limit=10&offset=5", body: `{"q":""}`, wantStatus: 400, wantHas: "INVALID_PARAMETER"},
		"bc patch needs If-Match": {sys: connector.SystemERP2, method: "PATCH", path: bc, body: `{"n":2}`, wantStatus: 400, wantHas: "BadRequest_InvalidToken"},
		"bc stale etag is 409": {sys: connector.SystemERP2, method: "PATCH", path: bc, body: `{"n":2}`,
			header: map[string]string{"If-Match": `W/"old"`}, wantStatus: 409, wantHas: "Request_EntityChanged"},
		"bc get has the etag": {sys: connector.SystemERP2, method: "GET", path: bc, wantStatus: 200, wantHeader: "ETag", wantHas: "@odata.etag"},
		"suiteql answers only the queries it knows": {sys: connector.SystemHostERP, method: "POST", header: map[string]string{"Prefer": "transient"},
			path: "/services/rest/query/v1/suiteql", body: `{"q":"SELECT * FROM customer"}`, wantStatus: 400, wantHas: "INVALID_PARAMETER"},
		"bc entity set wants the changed-since options": {sys: connector.SystemERP2, method: "GET",
			path: "/api/v2.0/companies(" + fakesystem.FakeCompanyID + ")/customers?$top=5", wantStatus: 400, wantHas: "BadRequest"},
		"bc entity set lists by modification": {sys: connector.SystemERP2, method: "GET",
			path:       "/api/v2.0/companies(" + fakesystem.FakeCompanyID + ")/customers?$filter=lastModifiedDateTime%20ge%202020-01-01T00:00:00Z&$orderby=lastModifiedDateTime,id&$top=5",
			wantStatus: 200, wantHas: `"lastModifiedDateTime"`},
		"soql other than the changed-since query is malformed": {sys: connector.SystemCRM, method: "GET",
			path: "/services/data/v" + connector.SalesforceAPIVersion + "/query?q=SELECT+Id+FROM+Account", wantStatus: 400, wantHas: "MALFORMED_QUERY"},
		"mailchimp members count is at most 1000": {sys: connector.SystemMarketing, method: "GET",
			path: "/3.0/lists/l1/members?since_last_changed=2020-01-01T00:00:00%2B00:00&sort_field=last_changed&sort_dir=ASC&count=2000", wantStatus: 400},
		"shipstation list orders page size is at most 500": {sys: connector.SystemShipping, method: "GET",
			path: "/orders?modifyDateStart=2020-01-01+00:00:00&sortBy=ModifyDate&sortDir=ASC&pageSize=501", wantStatus: 400},
		"salesforce error array": {sys: connector.SystemCRM, method: "GET",
			path: "/services/data/v" + connector.SalesforceAPIVersion + "/sobjects/Account/nope", wantStatus: 404, wantHas: `[{"errorCode":"NOT_FOUND"`},
		"mailchimp problem json": {sys: connector.SystemMarketing, method: "GET",
			path: "/3.0/lists/l1/members/0123456789abcdef0123456789abcdef", wantStatus: 404, wantHas: `"title":"Resource Not Found"`},
		"mailchimp new member needs status_if_new": {sys: connector.SystemMarketing, method: "PUT",
			path: "/3.0/lists/l1/members/" + connector.SubscriberHash("a@example.com"), body: `{"email_address":"a@example.com"}`, wantStatus: 400},
		"shipstation createorder creates without a known key": {sys: connector.SystemShipping, method: "POST",
			path: "/orders/createorder", body: `{"orderKey":"new-1","orderNumber":"1"}`, wantStatus: 200, wantHas: `"orderKey":"new-1"`},
	} {
		t.Run(name, func(t *testing.T) {
			fake := fakesystem.New(tc.sys)
			fake.Seed("customer", "C-1", map[string]any{"n": 1})
			fake.Seed("customers", "C-1", map[string]any{"n": 1})
			srv := httptest.NewServer(fake.Handler())
			defer srv.Close()
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := ownClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus || (tc.wantHeader != "" && resp.Header.Get(tc.wantHeader) == "") ||
				!strings.Contains(string(body), tc.wantHas) {
				t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
			}
		})
	}
}

func TestFakeAuthSchemes(t *testing.T) {
	t.Parallel()
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("key:secret"))
	for _, tc := range []struct {
		sys    connector.System
		cred   string
		header string
		want   int
	}{
		{connector.SystemHostERP, "tok", "Bearer tok", 404},
		{connector.SystemHostERP, "tok", "Bearer nope", 401},
		{connector.SystemShipping, "key:secret", basic, 404},
		{connector.SystemShipping, "key:secret", "Bearer key:secret", 401},
		{connector.SystemMarketing, "key:secret", basic, 404},
		{connector.SystemMarketing, "key:secret", "Bearer key:secret", 404},
	} {
		fake := fakesystem.New(tc.sys)
		fake.RequireToken(tc.cred)
		srv := httptest.NewServer(fake.Handler())
		req, _ := http.NewRequest("GET", srv.URL+"/no/such/path", nil)
		req.Header.Set("Authorization", tc.header)
		resp, err := ownClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s with %q: status %d, want %d", tc.sys, tc.header, resp.StatusCode, tc.want)
		}
	}
}

func TestFakeReturnsCopies(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemERP2)
	fake.Seed("customer", "C-1", map[string]any{"address": map[string]any{"city": "Oslo"}})
	rec, _ := fake.Get("customer", "C-1")
	rec.Fields["address"].(map[string]any)["city"] = "Bergen"
	again, _ := fake.Get("customer", "C-1")
	if again.Fields["address"].(map[string]any)["city"] != "Oslo" {
		t.Fatal("Get hands out the fake's own map")
	}
	if _, ok := fake.Get("customer", "nope"); ok {
		t.Fatal("Get found a record never seeded")
	}
}

func TestFakeRejectsBadSyncErrors(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemHostERP)
	for _, raw := range []string{`[]`, `{"errorId":"e1"}`, `{"errorId":"e1","occurredAt":"yesterday"}`} {
		if err := fake.AddSyncError(json.RawMessage(raw)); err == nil {
			t.Errorf("AddSyncError(%s) accepted", raw)
		}
	}
}

func TestNewPanicsOnUnknownSystem(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted an unknown system")
		}
	}()
	fakesystem.New("ledger")
}

// ownClient has a transport of its own: closing a parallel test's httptest server closes
// http.DefaultTransport's idle connections, which broke a request of another test in
// flight ("CloseIdleConnections called").
func ownClient() *http.Client { return &http.Client{Transport: &http.Transport{}} }
