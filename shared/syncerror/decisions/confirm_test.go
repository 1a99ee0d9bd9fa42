package decisions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// groupsOf lists the pending groups as an operator of acme.
func groupsOf(t *testing.T, f *roomtest.AssistFixture) decisions.GroupList {
	t.Helper()
	r := httptest.NewRequest("GET", "/groups?status=pending", nil).WithContext(identity.WithAuth(context.Background(),
		identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{identity.RoleOperator}}))
	w := httptest.NewRecorder()
	f.Op.GroupsHandler().ServeHTTP(w, r)
	var g decisions.GroupList
	if err := json.Unmarshal(w.Body.Bytes(), &g); err != nil || w.Code != http.StatusOK {
		t.Fatalf("groups: %d %s", w.Code, w.Body)
	}
	return g
}

// holdEdit approves c with an edit that the host ERP holds for an ownership approval: the
// row keeps the edit, and its next approve writes it (FixOf).
func holdEdit(t *testing.T, f *roomtest.AssistFixture, c syncerror.Claim) []syncerror.FieldChange {
	t.Helper()
	f.Writer.Err = &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeApprovalRequired, Reason: "held for ap-1"}
	defer func() { f.Writer.Err = nil }()
	edit := `{"fix":[{"path":"shipcountry","after":"AT"},{"path":"creditlimit","after":"99999"}]}`
	if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusConflict {
		t.Fatalf("set-up: the edited approve should be held: %d %s", w.Code, w.Body)
	}
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if syncerror.EditKept(row) == "" {
		t.Fatalf("set-up: the row keeps no edit: %+v", row.EditedFix)
	}
	return row.EditedFix
}

// written is the ids of the rows the host ERP was written for.
func written(f *roomtest.AssistFixture) []string {
	var ids []string
	for _, w := range f.Writer.Writes {
		ids = append(ids, w.ClaimID)
	}
	slices.Sort(ids)
	return ids
}

// A group approve writes only the fix the approver confirmed (the group's key): a member
// whose fix changed after the listing (an edit now kept on the row) answers changed and
// nothing is written for it; the others are written. (Before, the kept edit, other
// values in other fields, was written under a confirmation showing shipcountry → DE.)
func TestGroupApproveSkipsAMemberWhoseFixChangedSinceTheListing(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "G-1", clock)
	b := roomtest.ReadyClaim(t, f.Claims, "acme", "G-2", clock)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "G-3", clock)
	g := groupsOf(t, f)
	if len(g.Items) != 1 || g.Items[0].Count != 3 {
		t.Fatalf("set-up: groups %+v", g.Items)
	}
	group := g.Items[0]
	kept := holdEdit(t, f, c)

	body, _ := json.Marshal(map[string]any{"action": "approve", "ids": group.IDs, "fixKeys": []string{group.Key}})
	code, res, raw := bulkAs(t, f, "approver", string(body))
	if code != http.StatusOK || res.Succeeded != 2 || res.Failed != 0 || len(res.Causes) != 0 {
		t.Fatalf("group approve: %d %s", code, raw)
	}
	for _, it := range res.Results {
		if it.ID == c.ID && (it.Outcome != "changed" || it.Status != http.StatusConflict || it.Problem == nil || it.Problem.Code != syncerror.CodeFixChanged) {
			t.Fatalf("the changed member: %+v", it)
		}
	}
	want := []string{a.ID, b.ID}
	slices.Sort(want)
	if got := written(f); !reflect.DeepEqual(got, want) {
		t.Fatalf("written %v, want only the unchanged members %v", got, want)
	}
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if row.Status != syncerror.StatusPending || !reflect.DeepEqual(row.EditedFix, kept) || syncerror.EditKept(row) == "" {
		t.Fatalf("the skipped member is %s with edit %+v, want pending and keeping its edit", row.Status, row.EditedFix)
	}
	// Not a failure: listed as changed, with its problem, counted in neither total.
	var item decisions.BulkItem
	for _, it := range res.Results {
		if it.ID == c.ID {
			item = it
		}
	}
	if item.Outcome != "changed" || item.Problem == nil || item.Problem.Code != syncerror.CodeFixChanged {
		t.Fatalf("the changed member's item %+v", item)
	}
}

// A re-diagnosis with another proposal after the listing: the member is skipped too.
func TestGroupApproveSkipsAMemberDiagnosedAgain(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "R-1", clock)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "R-2", clock)
	group := groupsOf(t, f).Items[0]
	ctx := context.Background()
	row, _ := f.Claims.Get(ctx, "acme", c.ID)
	if err := f.Claims.Requeue(ctx, "acme", c.ID, row.Diagnosis, row.DiagnosisSince, clock); err != nil {
		t.Fatalf("set-up: requeue: %v", err)
	}
	got, err := f.Claims.BeginDiagnosis(ctx, "acme", c.ID, clock, clock)
	if err != nil {
		t.Fatalf("set-up: re-diagnosis: %v", err)
	}
	p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 2), clock)
	p.Fix = []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "AT"}}
	if err := f.Claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, p, clock); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"action": "approve", "ids": group.IDs, "fixKeys": []string{group.Key}})
	code, res, raw := bulkAs(t, f, "approver", string(body))
	if code != http.StatusOK || res.Succeeded != 1 || !reflect.DeepEqual(written(f), []string{a.ID}) {
		t.Fatalf("group approve: %d %s, written %v", code, raw, written(f))
	}
}

// The filter approve carries the keys its dry run showed: a row whose fix changed after
// the preview is skipped (changed), the rest are written.
func TestFilterApproveSkipsARowWhoseFixChangedSinceThePreview(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	var rows []syncerror.Claim
	for _, id := range []string{"F-1", "F-2", "F-3"} {
		rows = append(rows, roomtest.ReadyClaim(t, f.Claims, "acme", id, clock))
	}
	_, res, raw := bulkAs(t, f, "approver", `{"action":"approve","filter":"status=pending","dryRun":true}`)
	if p := res.Preview; p == nil || len(p.Fixes) != 1 || p.Fixes[0].Key == "" || p.Fixes[0].Count != 3 {
		t.Fatalf("preview: %s", raw)
	}
	holdEdit(t, f, rows[1])
	body, _ := json.Marshal(map[string]any{"action": "approve", "filter": "status=pending", "cursor": res.Preview.Cursor,
		"fixKeys": []string{res.Preview.Fixes[0].Key}})
	code, done, raw := bulkAs(t, f, "approver", string(body))
	if code != http.StatusOK || done.Succeeded != 2 || done.Failed != 0 || len(done.Causes) != 0 {
		t.Fatalf("approve by filter: %d %s", code, raw)
	}
	want := []string{rows[0].ID, rows[2].ID}
	slices.Sort(want)
	if got := written(f); !reflect.DeepEqual(got, want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	for _, it := range done.Results {
		if (it.ID == rows[1].ID) != (it.Outcome == "changed") || it.ErrorID == "" {
			t.Fatalf("item %+v", it)
		}
	}
}

// Under a two_approvers rule, an edit waiting in the co-approval document is what the
// second approval writes; a group approve that confirmed the AI's fix neither records its
// approval of that edit nor writes it.
func TestGroupApproveDoesNotSecondAnEditItWasNotShown(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "C-1", clock)
	group := groupsOf(t, f).Items[0]
	path := "/p/" + c.ID + "/approve"
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"AT"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("set-up: edit %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted {
		t.Fatalf("set-up: first approval %d %s", w.Code, w.Body)
	}
	body, _ := json.Marshal(map[string]any{"action": "approve", "ids": []string{c.ID}, "fixKeys": []string{group.Key}})
	_, res, raw := bulkAs(t, f, "approver", string(body))
	if len(res.Results) != 1 || res.Results[0].Outcome != "changed" || f.Writer.Count() != 0 {
		t.Fatalf("group approve: %s, writes %+v", raw, f.Writer.Writes)
	}
	// Not recorded either: alice's own approve of the edit, later, is still a second approval.
	if w := f.As(t, "alice", "approver", "POST", path, ""); w.Code != http.StatusOK || f.Writer.Count() != 1 {
		t.Fatalf("alice approving the edit herself: %d %s", w.Code, w.Body)
	}
}

// An approve without the confirmation is refused whole (400 naming fixKeys), nothing
// written; a dry run needs none.
func TestBulkApproveWithoutConfirmationIsRefused(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "N-1", clock)
	for _, body := range []string{`{"action":"approve","ids":["` + a.ID + `"]}`, `{"action":"approve","filter":"status=pending"}`,
		`{"action":"approve","ids":["` + a.ID + `"],"fixKeys":[]}`} {
		if code, _, raw := bulkAs(t, f, "approver", body); code != http.StatusBadRequest || !strings.Contains(raw, `"fixKeys"`) {
			t.Errorf("%s: %d %s, want 400 naming fixKeys", body, code, raw)
		}
	}
	if code, _, raw := bulkAs(t, f, "approver", `{"action":"approve","ids":["`+a.ID+`"],"dryRun":true}`); code != http.StatusOK {
		t.Fatalf("dry run: %d %s", code, raw)
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("written %d", f.Writer.Count())
	}
}

// fixKeys sent with another action or a dry run is held to its schema too (1 to 100 keys):
// an empty or malformed list is a 400, not ignored (found by CI's fuzz search, FuzzOpenAPI).
func TestBulkFixKeysOfAnyActionAreChecked(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "N-1", clock)
	id := `"ids":["` + a.ID + `"]`
	for _, body := range []string{`{"action":"tag","tag":{"add":"x"},` + id + `,"fixKeys":[]}`,
		`{"action":"reject",` + id + `,"fixKeys":[""]}`, `{"action":"approve","dryRun":true,` + id + `,"fixKeys":[]}`} {
		if code, _, raw := bulkAs(t, f, "approver", body); code != http.StatusBadRequest || !strings.Contains(raw, `"fixKeys"`) {
			t.Errorf("%s: %d %s, want 400 naming fixKeys", body, code, raw)
		} else if strings.Contains(raw, `"fixKeys","message":"is required`) {
			// They are optional here: the answer says what is wrong with them, not that
			// they are needed.
			t.Errorf("%s: %s, says fixKeys are required where they are optional", body, raw)
		}
	}
	if code, _, raw := bulkAs(t, f, "approver", `{"action":"tag","tag":{"add":"x"},`+id+`}`); code != http.StatusOK {
		t.Fatalf("tag without fixKeys: %d %s", code, raw)
	}
}

// fixKeysOf is the fixKeys confirming the rows' fixes as they stand: what a client sends
// having shown them.
func fixKeysOf(t *testing.T, s syncerror.ClaimStore, tenant string, ids ...string) string {
	t.Helper()
	keys := []string{}
	for _, id := range ids {
		c, err := s.Get(context.Background(), tenant, id)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := syncerror.ConfirmKey(c.Proposal.Class, syncerror.FixOf(c))
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	b, _ := json.Marshal(keys)
	return string(b)
}
