package decisions_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

func bulkAs(t *testing.T, f *roomtest.AssistFixture, role, body string) (int, decisions.BulkResult, string) {
	t.Helper()
	w := f.As(t, "alice", role, "POST", "/p/bulk", body)
	var res decisions.BulkResult
	_ = json.Unmarshal(w.Body.Bytes(), &res)
	return w.Code, res, w.Body.String()
}

func tagsOf(t *testing.T, f *roomtest.AssistFixture, id string) []string {
	t.Helper()
	w := f.As(t, "alice", "operator", "GET", "/p/"+id, "")
	var d struct{ Tags []string }
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	return d.Tags
}

// A filter acts on every matching row, never more than MaxBulkItems per request: the
// answer's cursor resumes it, each item goes through the triage route, a row of another
// tenant or one that arrived after the first request is left alone.
func TestBulkByFilterIsBoundedAndResumable(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	n := decisions.MaxBulkItems + 20
	ids := make([]string, n)
	for i := range n {
		ids[i] = roomtest.ReadyClaim(t, f.Claims, "acme", fmt.Sprintf("bf-%03d", i), clock.Add(-time.Duration(i)*time.Minute)).ID
	}
	other := roomtest.ReadyClaim(t, f.Claims, "globex", "bf-other", clock)
	body := `{"action":"tag","tag":{"add":"urgent"},"filter":"status=pending&class=value"}`
	code, first, raw := bulkAs(t, f, "operator", body)
	if code != 200 || len(first.Results) != decisions.MaxBulkItems || first.Succeeded != decisions.MaxBulkItems || first.NextCursor == nil {
		t.Fatalf("first batch: %d %s", code, raw)
	}
	if first.Results[0].ErrorID != "bf-000" || first.Results[0].Outcome != "tagged" {
		t.Fatalf("rows by filter are named and newest first: %+v", first.Results[0])
	}
	late := roomtest.ReadyClaim(t, f.Claims, "acme", "bf-late", clock.Add(time.Hour))
	cur, _ := json.Marshal(*first.NextCursor)
	code, second, raw := bulkAs(t, f, "operator", `{"action":"tag","tag":{"add":"urgent"},"filter":"status=pending&class=value","cursor":`+string(cur)+`}`)
	if code != 200 || len(second.Results) != 20 || second.NextCursor != nil {
		t.Fatalf("second batch: %d %s", code, raw)
	}
	for _, id := range []string{ids[0], ids[n-1]} {
		if got := tagsOf(t, f, id); len(got) != 1 || got[0] != "urgent" {
			t.Fatalf("%s tags %v", id, got)
		}
	}
	for _, c := range []syncerror.Claim{other, late} {
		if got, _ := f.Claims.Get(t.Context(), c.TenantID, c.ID); len(got.Triage.Tags) != 0 {
			t.Fatalf("%s was tagged: %v", c.Record.ErrorID, got.Triage.Tags)
		}
	}
	// The cursor belongs to its filter and action.
	code, _, raw = bulkAs(t, f, "operator", `{"action":"tag","tag":{"add":"urgent"},"filter":"status=pending&class=missing","cursor":`+string(cur)+`}`)
	if code != 400 || !strings.Contains(raw, "invalid_cursor") {
		t.Fatalf("a cursor of another filter: %d %s", code, raw)
	}
}

// A dry run acts on nothing and says what would be written, how many the approval
// policy lets the caller approve, and the cursor that pins the rows it counted.
func TestBulkDryRunPreviewsTheFixes(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	for i := range 3 {
		roomtest.ReadyClaim(t, f.Claims, "acme", fmt.Sprintf("dr-%d", i), clock.Add(-time.Duration(i)*time.Minute))
	}
	code, res, raw := bulkAs(t, f, "operator", `{"action":"approve","filter":"status=pending","dryRun":true}`)
	p := res.Preview
	if code != 200 || p == nil || p.Total != 3 || p.Truncated || len(p.Fixes) != 1 || p.Fixes[0].Count != 3 || p.Cursor == "" {
		t.Fatalf("preview: %d %s", code, raw)
	}
	if c := p.Fixes[0].Changes; len(c) != 1 || c[0].Path != "shipcountry" || c[0].After != "DE" {
		t.Fatalf("fix: %+v", c)
	}
	// The default policy gives value fixes on the proposal's fields to operators.
	if p.Allowed == nil || *p.Allowed != 3 {
		t.Fatalf("allowed: %v", p.Allowed)
	}
	if f.Writer.Count() != 0 || len(res.Results) != 0 {
		t.Fatalf("a dry run wrote %d", f.Writer.Count())
	}
	// The acting request with the preview's cursor approves what was counted.
	cur, _ := json.Marshal(p.Cursor)
	code, done, raw := bulkAs(t, f, "operator", `{"action":"approve","filter":"status=pending","cursor":`+string(cur)+`,"fixKeys":["`+p.Fixes[0].Key+`"]}`)
	if code != 200 || done.Succeeded != 3 || f.Writer.Count() != 3 {
		t.Fatalf("approve by filter: %d %s (writes %d)", code, raw, f.Writer.Count())
	}
}

// Failures are grouped by cause: nineteen alike are one line with a count and their ids.
func TestBulkGroupsFailuresByCause(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	ok := roomtest.ReadyClaim(t, f.Claims, "acme", "gc-ok", clock)
	gone := []string{"se_missing1", "se_missing2", "se_missing3"}
	_, res, raw := bulkAs(t, f, "approver", `{"action":"approve","fixKeys":`+fixKeysOf(t, f.Claims, "acme", ok.ID)+`,"ids":["`+ok.ID+`","`+strings.Join(gone, `","`)+`"]}`)
	if res.Succeeded != 1 || res.Failed != 3 || len(res.Causes) != 1 {
		t.Fatalf("causes: %s", raw)
	}
	c := res.Causes[0]
	if c.Code != "not_found" || c.Count != 3 || strings.Join(c.IDs, ",") != strings.Join(gone, ",") {
		t.Fatalf("cause %+v", c)
	}
}

// Bulk assign takes rows from whoever had them when read, through the triage route.
func TestBulkAssign(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "as-1", clock)
	b := roomtest.ReadyClaim(t, f.Claims, "acme", "as-2", clock)
	if _, err := f.Claims.Assign(t.Context(), "acme", b.ID, "", "carol", syncerror.HistoryEntry{At: clock, Actor: "carol", Action: "assigned"}, clock); err != nil {
		t.Fatal(err)
	}
	_, res, raw := bulkAs(t, f, "operator", `{"action":"assign","assign":{"to":"bob"},"ids":["`+a.ID+`","`+b.ID+`"]}`)
	if res.Succeeded != 2 {
		t.Fatalf("assign: %s", raw)
	}
	for _, c := range []syncerror.Claim{a, b} {
		if got, _ := f.Claims.Get(t.Context(), "acme", c.ID); got.Triage.Assignee != "bob" {
			t.Fatalf("%s assignee %q", c.Record.ErrorID, got.Triage.Assignee)
		}
	}
	if code, _, raw := bulkAs(t, f, "operator", `{"action":"assign","ids":["`+a.ID+`"]}`); code != 400 || !strings.Contains(raw, `"assign"`) {
		t.Fatalf("assign without to: %d %s", code, raw)
	}
}

// An assign object without its to is refused with any action: with assign it was taken for
// an unassign (to ""), taking the rows from whoever had them, and with another action it
// was ignored (found by a deep schema probe, as fixKeys was by FuzzOpenAPI).
func TestBulkAssignWithoutToIsRefused(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "at-1", clock)
	if _, err := f.Claims.Assign(t.Context(), "acme", a.ID, "", "carol", syncerror.HistoryEntry{At: clock, Actor: "carol", Action: "assigned"}, clock); err != nil {
		t.Fatal(err)
	}
	id := `"ids":["` + a.ID + `"]`
	for _, body := range []string{`{"action":"assign","assign":{},` + id + `}`,
		`{"action":"retry","assign":{},` + id + `}`, `{"action":"tag","tag":{"add":"x"},"assign":{},` + id + `}`} {
		if code, _, raw := bulkAs(t, f, "operator", body); code != 400 || !strings.Contains(raw, `"assign.to"`) {
			t.Errorf("%s: %d %s, want 400 naming assign.to", body, code, raw)
		}
	}
	if got, _ := f.Claims.Get(t.Context(), "acme", a.ID); got.Triage.Assignee != "carol" {
		t.Fatalf("assignee %q after refused requests, want carol", got.Triage.Assignee)
	}
	if code, _, raw := bulkAs(t, f, "operator", `{"action":"assign","assign":{"to":""},`+id+`}`); code != 200 {
		t.Fatalf("unassign with to \"\": %d %s", code, raw)
	}
}

// ids, when given, hold 1 to 100 ids, beside a filter too: an empty list with a filter
// answered 200 having acted on nothing (found by FuzzOpenAPI, seed 14a4d7322be073b9).
func TestBulkRefusesEmptyIDs(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	for _, body := range []string{`{"action":"approve","filter":"status=pending","ids":[]}`, `{"action":"approve","ids":[]}`} {
		if code, _, raw := bulkAs(t, f, "approver", body); code != 400 || !strings.Contains(raw, `"ids"`) {
			t.Errorf("%s: %d %s, want 400 naming ids", body, code, raw)
		}
	}
}

// A filter takes the listing's merged statuses too: open is pending, retrying and escalated.
func TestBulkByFilterTakesTheOpenStatus(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "op-1", clock)
	code, res, raw := bulkAs(t, f, "operator", `{"action":"tag","tag":{"add":"open"},"filter":"status=open"}`)
	if code != 200 || res.Succeeded != 1 || res.Results[0].ID != a.ID {
		t.Fatalf("open: %d %s", code, raw)
	}
}
