package connector_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

func salesOrderLines(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(fields["item"])
	return string(b)
}

// A write of a sales order's item lines, delivered twice (a retried message), leaves each
// line on the order exactly once: the "already applied?" read asks NetSuite for the lines
// (expandSubResources=true; without it a sublist is only a link) and the PATCH replaces the
// lines (replace=item; without it NetSuite adds the lines sent to those there).
func TestNetSuiteRetriedLineWriteLeavesEachLineOnce(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemHostERP, nil)
	line := func(item string, qty int) map[string]any {
		return map[string]any{"item": map[string]any{"id": item}, "quantity": qty}
	}
	fake.Seed("salesOrder", "SO-1", map[string]any{"memo": "x", "item": map[string]any{"items": []any{line("7", 1)}}})
	req := connector.WriteRequest{Entity: "salesOrder", RecordID: "SO-1", IdempotencyKey: "k-1", Origin: "syncassist",
		Fields: map[string]any{"item": map[string]any{"items": []any{line("7", 1), line("9", 2)}}}}
	first, err := c.Write(context.Background(), req)
	if err != nil || first.Replayed {
		t.Fatalf("first Write = %+v, %v", first, err)
	}
	again, err := c.Write(context.Background(), req)
	if err != nil || !again.Replayed {
		t.Fatalf("retried Write = %+v, %v; want a replay", again, err)
	}
	rec, _ := fake.Get("salesOrder", "SO-1")
	want := `{"items":[{"item":{"id":"7"},"quantity":1},{"item":{"id":"9"},"quantity":2}]}`
	if got := salesOrderLines(t, rec.Fields); got != want {
		t.Fatalf("lines = %s, want each line once: %s", got, want)
	}
	if fake.WriteCount() != 1 {
		t.Fatalf("writes = %d, want 1", fake.WriteCount())
	}
	// A plain read shows the lines too: Get is what a user compares a proposal against.
	if got, err := c.Get(context.Background(), "salesOrder", "SO-1"); err != nil {
		t.Fatal(err)
	} else if items, _ := got.Fields["item"].(map[string]any)["items"].([]any); len(items) != 2 {
		t.Fatalf("Get item = %v, want the two lines", got.Fields["item"])
	}
}
