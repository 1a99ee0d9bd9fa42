package fakesystem_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// The NetSuite fake serves sublists as Oracle documents: links only unless
// expandSubResources=true, and a PATCH adds lines unless replace= names the sublist.
func TestNetSuiteFakeSublists(t *testing.T) {
	t.Parallel()
	fake := fakesystem.New(connector.SystemHostERP)
	fake.Seed("salesOrder", "1", map[string]any{"item": map[string]any{"items": []any{map[string]any{"quantity": 1}}}})
	srv := httptest.NewServer(fake.Handler())
	t.Cleanup(srv.Close)
	rec := srv.URL + "/services/rest/record/v1/salesOrder/1"
	// Not http.DefaultClient: a parallel test's server closing drops its idle connections
	// under a request in flight (ownClient).
	client := ownClient()
	lines := func(query string) (map[string]any, []any) {
		resp, err := client.Get(rec + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		item, _ := body["item"].(map[string]any)
		items, _ := item["items"].([]any)
		return item, items
	}
	patch := func(query, body string) {
		req, _ := http.NewRequest(http.MethodPatch, rec+query, strings.NewReader(body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("PATCH%s: %v", query, err)
		}
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("PATCH%s: %d", query, resp.StatusCode)
		}
		resp.Body.Close()
	}
	if item, items := lines(""); items != nil || item["links"] == nil {
		t.Fatalf("GET without expandSubResources: item = %v, want links only", item)
	}
	if _, items := lines("?expandSubResources=true"); len(items) != 1 {
		t.Fatalf("GET with expandSubResources: %d lines, want 1", len(items))
	}
	patch("", `{"item":{"items":[{"quantity":2}]}}`)
	if _, items := lines("?expandSubResources=true"); len(items) != 2 {
		t.Fatalf("after PATCH without replace: %d lines, want 2 (added)", len(items))
	}
	patch("?replace=item", `{"item":{"items":[{"quantity":3}]}}`)
	if _, items := lines("?expandSubResources=true"); len(items) != 1 {
		t.Fatalf("after PATCH with replace=item: %d lines, want 1 (replaced)", len(items))
	}
}
