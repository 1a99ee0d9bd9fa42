package decisions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

func TestTriageAssignTagAndNote(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/triage"

	d := roomtest.DetailOf(t, f.Call(t, "acme", "POST", path, `{"assign":{"to":"me","from":""}}`))
	if d.Assignee != "alice" || d.History[len(d.History)-1].Action != "assigned" {
		t.Fatalf("assigned: %+v", d.Summary)
	}
	// Bob saw the row unassigned and takes it: alice keeps it, and bob learns why.
	if w := f.Call(t, "acme", "POST", path, `{"assign":{"to":"bob","from":""}}`); w.Code != 409 || roomtest.ProblemCode(t, w) != "assignee_changed" {
		t.Fatalf("stale assign: %d %s", w.Code, w.Body)
	}
	d = roomtest.DetailOf(t, f.Call(t, "acme", "POST", path, `{"tag":{"add":"vip"}}`))
	if len(d.Tags) != 1 || d.Tags[0] != "vip" {
		t.Fatalf("tags %v", d.Tags)
	}
	d = roomtest.DetailOf(t, f.Call(t, "acme", "POST", path, `{"note":"Called jane.doe@example.com, card 4111 1111 1111 1111; token AKIAIOSFODNN7EXAMPLE"}`))
	note := d.Notes[0].Text
	for _, secret := range []string{"jane.doe@example.com", "4111 1111 1111 1111", "AKIAIOSFODNN7EXAMPLE"} {
		if strings.Contains(note, secret) {
			t.Fatalf("note kept %q: %q", secret, note)
		}
	}
	stored, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if stored.Triage.Notes[0].Text != note || stored.Triage.Notes[0].Actor != "alice" || !strings.HasPrefix(note, "Called ") {
		t.Fatalf("stored note %+v", stored.Triage.Notes)
	}
	keys := map[string]bool{}
	for _, r := range f.Audits.All() {
		keys[r.ActionKey] = true
		if b, _ := json.Marshal(r.Details); strings.Contains(string(b), "Called") {
			t.Fatalf("the audit record holds the note's text: %s", b)
		}
	}
	for _, k := range []string{"syncerror.assign", "syncerror.tag", "syncerror.note"} {
		if !keys[k] {
			t.Fatalf("no %s audit record in %v", k, keys)
		}
	}
	if w := f.Call(t, "other", "POST", path, `{"tag":{"add":"vip"}}`); w.Code != 404 {
		t.Fatalf("another tenant's row: %d", w.Code)
	}
}

func TestTriageValidation(t *testing.T) {
	f := roomtest.MaskedFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	for body, field := range map[string]string{
		`{}`:                                                "body",
		`{"note":"x","tag":{"add":"a"}}`:                    "body",
		`{"tag":{"add":"Has Space"}}`:                       "tag.add",
		`{"tag":{"remove":"x\u0000"}}`:                      "tag.remove",
		`{"tag":{"add":"a","remove":"b"}}`:                  "tag",
		`{"tag":{"add":"` + strings.Repeat("a", 33) + `"}}`: "tag.add",
		`{"note":"   "}`:                                    "note",
		`{"note":"` + strings.Repeat("n", 2001) + `"}`:      "note",
		`{"assign":{"to":"alice"}}`:                         "assign",
		`{"assign":{"to":"a b","from":""}}`:                 "assign.to",
	} {
		w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", body)
		var p struct {
			Code   string
			Errors []struct{ Field string }
		}
		_ = json.Unmarshal(w.Body.Bytes(), &p)
		if w.Code != 400 || p.Code != "validation_failed" || len(p.Errors) == 0 || p.Errors[0].Field != field {
			t.Errorf("%.60s: %d %s, want a field error on %s", body, w.Code, w.Body, field)
		}
	}
	for i := 0; i < syncerror.MaxTags; i++ {
		f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", fmt.Sprintf(`{"tag":{"add":"t%d"}}`, i))
	}
	if w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/triage", `{"tag":{"add":"more"}}`); w.Code != 409 || roomtest.ProblemCode(t, w) != "triage_full" {
		t.Fatalf("eleventh tag: %d %s", w.Code, w.Body)
	}
}
