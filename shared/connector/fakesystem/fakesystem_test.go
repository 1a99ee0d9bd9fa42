package fakesystem_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// These cases speak raw HTTP to the fake, for the behaviour the connector's own tests
// cannot reach because the client refuses to send such requests.
func TestFakeProtocol(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemCRM)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1})
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)

	type call struct {
		method, path, body string
		header             map[string]string
	}
	patch := func(key, body string) call {
		return call{http.MethodPatch, "/crm/v1/objects/customer/C-1", body, map[string]string{"Idempotency-Key": key}}
	}
	cases := []struct {
		name       string
		calls      []call
		wantStatus int
		wantCode   string
		wantHeader [2]string
	}{
		{"another system's path", []call{{http.MethodGet, "/api/records/customer/C-1", "", nil}}, 404, "route_not_found", [2]string{}},
		{"extra segment", []call{{http.MethodGet, "/crm/v1/objects/customer/C-1/x", "", nil}}, 404, "route_not_found", [2]string{}},
		{"unknown record", []call{{http.MethodGet, "/crm/v1/objects/customer/nope", "", nil}}, 404, "record_not_found", [2]string{}},
		{"patch of an unknown record", []call{{http.MethodPatch, "/crm/v1/objects/customer/nope", `{"fields":{"a":1}}`,
			map[string]string{"Idempotency-Key": "u"}}}, 404, "record_not_found", [2]string{}},
		{"method", []call{{http.MethodDelete, "/crm/v1/objects/customer/C-1", "", nil}}, 405, "method_not_allowed", [2]string{"Allow", "GET, PATCH"}},
		{"no idempotency key", []call{{http.MethodPatch, "/crm/v1/objects/customer/C-1", `{"fields":{"a":1}}`, nil}}, 400, "idempotency_key_required", [2]string{}},
		{"empty fields", []call{patch("e", `{"fields":{}}`)}, 400, "invalid_body", [2]string{}},
		{"not JSON", []call{patch("j", `fields=1`)}, 400, "invalid_body", [2]string{}},
		{"replay ignores JSON spacing and key order", []call{patch("r", `{"fields":{"a":1,"b":2}}`), patch("r", `{ "fields": {"b": 2, "a": 1} }`)},
			200, "", [2]string{"Idempotent-Replayed", "true"}},
		{"key reused on another record", []call{patch("x", `{"fields":{"a":1}}`),
			{http.MethodPatch, "/crm/v1/objects/customer/C-2", `{"fields":{"a":1}}`, map[string]string{"Idempotency-Key": "x"}}},
			422, "idempotency_key_reused", [2]string{}},
		{"stale If-Match", []call{{http.MethodPatch, "/crm/v1/objects/customer/C-1", `{"fields":{"a":1}}`,
			map[string]string{"Idempotency-Key": "m", "If-Match": `"999"`}}}, 412, "version_mismatch", [2]string{}},
		{"sync errors are the host ERP's", []call{{http.MethodGet, "/api/sync-errors", "", nil}}, 404, "route_not_found", [2]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			var raw []byte
			for _, c := range tc.calls {
				req, _ := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				var err error
				if resp, err = http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				}
				raw, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if tc.wantHeader[0] != "" && resp.Header.Get(tc.wantHeader[0]) != tc.wantHeader[1] {
				t.Fatalf("%s = %q, want %q", tc.wantHeader[0], resp.Header.Get(tc.wantHeader[0]), tc.wantHeader[1])
			}
			var body struct{ Code string }
			if json.Unmarshal(raw, &body); body.Code != tc.wantCode {
				t.Fatalf("body = %s, want code %q", raw, tc.wantCode)
			}
		})
	}
}

func TestFakeAuth(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemHostERP)
	fake.RequireToken("tok")
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	for header, want := range map[string]int{"": 401, "Bearer nope": 401, "Basic tok": 401, "Bearer tok": 200} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/sync-errors", nil)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: status %d, want %d", header, resp.StatusCode, want)
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
	for _, raw := range []string{`[]`, `{"errorId":"e1"}`, `{"occurredAt":"2026-01-01T00:00:00Z"}`, `{"errorId":"e1","occurredAt":"yesterday"}`} {
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
