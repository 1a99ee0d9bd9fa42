package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
)

var testKey = audit.StaticKey([]byte("key-1 of 32 bytes, for the test!"))

// actorLog writes one record per actor through a Log with the real record policy, and
// returns a handler over the same store and log.
func actorLog(t *testing.T, key func(context.Context) ([]byte, error), actors ...string) (*audit.Handler, *audit.Log) {
	t.Helper()
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: dlpRedactor{dlp.NewScanner()}, PseudonymKey: key, Now: func() time.Time { return now }}
	for _, a := range actors {
		id := identity.Identity{TenantID: "acme", Actor: a, Source: identity.SourceUser}
		if err := l.Write(context.Background(), audit.Entry{Actor: id, ActionType: audit.TypeSyncError, ActionKey: "syncerror.approve",
			Result: audit.ResultSuccess}); err != nil {
			t.Fatal(err)
		}
	}
	return &audit.Handler{Store: store, Log: l, Now: func() time.Time { return now.Add(time.Minute) }}, l
}

func getActor(h http.Handler, actor string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/api/audit?actor="+url.QueryEscape(actor), nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "auditor", TenantID: "acme", Roles: []string{identity.RoleApprover}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// An auditor finds a masked person's records by the actor the log shows them, or by the
// identity it was written for (in any case): the answer names the stored actor, and no
// answer repeats the identity.
func TestActorFilterFindsAMaskedPerson(t *testing.T) {
	h, _ := actorLog(t, testKey, "jane.doe@example.com", "john.roe@example.com", "jane.doe@example.com", "schedule:reconcile")
	var shown string
	for _, r := range h.Store.(*audittest.Store).All() {
		if strings.HasPrefix(r.Actor.Actor, "[REDACTED:EMAIL] ~p:") {
			shown = r.Actor.Actor // the last one written of the two people: Jane
		}
	}
	for _, asked := range []string{"jane.doe@example.com", " Jane.Doe@Example.COM ", shown, "jane.doe@example.com " + shown[len("[REDACTED:EMAIL] "):]} {
		w := getActor(h, asked)
		if w.Code != http.StatusOK {
			t.Fatalf("actor %q: status %d: %s", asked, w.Code, w.Body)
		}
		if strings.Contains(strings.ToLower(w.Body.String()), "example.com") {
			t.Fatalf("actor %q: the answer names the person: %s", asked, w.Body)
		}
		var resp audit.ListResponse
		if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Items) != 2 || resp.Actor != shown {
			t.Fatalf("actor %q: %d records matched as %q, want Jane's 2 as %q", asked, len(resp.Items), resp.Actor, shown)
		}
	}
	// A name the policy keeps is matched as it is.
	if w := getActor(h, "schedule:reconcile"); !strings.Contains(w.Body.String(), `"actor":"schedule:reconcile"`) || strings.Count(w.Body.String(), `"id"`) != 1 {
		t.Fatalf("schedule actor: %s", w.Body)
	}
}

// Without a pseudonym key a masked person's records carry the mask alone: asking for the
// person is refused (the mask would match everyone masked), and the mask itself can
// still be asked for. A key or policy that cannot be had now is a 503. No answer repeats
// the name asked for.
func TestActorFilterRefusals(t *testing.T) {
	h, _ := actorLog(t, nil, "jane.doe@example.com", "john.roe@example.com", "alice")
	w := getActor(h, "jane.doe@example.com")
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"actor"`) {
		t.Fatalf("no key: status %d: %s", w.Code, w.Body)
	}
	if w := getActor(h, "[REDACTED:EMAIL]"); w.Code != http.StatusOK || strings.Count(w.Body.String(), `"id"`) != 2 {
		t.Fatalf("the mask: status %d: %s", w.Code, w.Body)
	}
	down, _ := actorLog(t, func(context.Context) ([]byte, error) { return nil, errors.New("secret s3cr3t-value unreachable") })
	failing := &audit.Handler{Store: h.Store, Log: &audit.Log{Redactor: fakeRedactor{fail: true}}}
	for name, w := range map[string]*httptest.ResponseRecorder{
		"no key":        w,
		"key down":      getActor(down, "jane.doe@example.com"),
		"policy failed": getActor(failing, "jane.doe@example.com"),
	} {
		if name != "no key" && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s: status %d, want 503: %s", name, w.Code, w.Body)
		}
		if b := w.Body.String(); strings.Contains(b, "jane") || strings.Contains(b, "s3cr3t") {
			t.Fatalf("%s: the answer repeats the name or the key's error: %s", name, b)
		}
	}
}
