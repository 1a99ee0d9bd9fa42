package audit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
)

var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

type fakeRedactor struct{ fail bool }

func (f fakeRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	if f.fail {
		return nil, errors.New("scanner down")
	}
	return []byte(strings.ReplaceAll(string(doc), "4111111111111111", "[REDACTED:CARD_NUMBER]")), nil
}

func alice(tenant string, roles ...string) identity.Identity {
	return identity.Identity{TenantID: tenant, Actor: "alice", Roles: roles, Source: identity.SourceAuth}
}

func TestLogWriteRedactsAndAttributes(t *testing.T) {
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: fakeRedactor{}, Now: func() time.Time { return now }}
	err := l.Write(context.Background(), audit.Entry{Actor: alice("acme"), ActionType: audit.TypeAI, ActionKey: "ai.inference",
		Result: audit.ResultSuccess, Resource: "syncerror/se_1", Details: map[string]any{"card": "4111111111111111"}})
	if err != nil {
		t.Fatal(err)
	}
	recs := store.All()
	if len(recs) != 1 || recs[0].TenantID != "acme" || recs[0].Actor.Actor != "alice" || !recs[0].At.Equal(now) || recs[0].ID == "" {
		t.Fatalf("records %+v", recs)
	}
	if strings.Contains(string(recs[0].Details), "4111") {
		t.Fatalf("details not redacted: %s", recs[0].Details)
	}
}

func TestLogWriteRefusesWithoutTenant(t *testing.T) {
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: fakeRedactor{}}
	if err := l.Write(context.Background(), audit.Entry{ActionKey: "ai.inference"}); !errors.Is(err, audit.ErrNoTenant) {
		t.Fatalf("err=%v", err)
	}
	if len(store.All()) != 0 {
		t.Fatal("stored a record without a tenant")
	}
}

func TestLogWriteKeepsTheFactWhenRedactionFails(t *testing.T) {
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: fakeRedactor{fail: true}}
	err := l.Write(context.Background(), audit.Entry{Actor: alice("acme"), ActionType: audit.TypeDLP, ActionKey: "dlp.scan",
		Result: audit.ResultSuccess, Details: map[string]any{"card": "4111111111111111"}})
	if err != nil {
		t.Fatal(err)
	}
	d := string(store.All()[0].Details)
	if strings.Contains(d, "4111") || !strings.Contains(d, "detailsDropped") {
		t.Fatalf("details %s", d)
	}
}

func TestHandler(t *testing.T) {
	store := &audittest.Store{}
	for i := 0; i < 5; i++ {
		for _, tenant := range []string{"acme", "other"} {
			_ = store.Put(context.Background(), audit.Record{TenantID: tenant, ID: string(rune('a' + i)), At: now.Add(-time.Duration(i) * time.Hour),
				ActionType: []string{audit.TypeAI, audit.TypeDLP}[i%2], ActionKey: "k", Result: audit.ResultSuccess, Actor: alice(tenant)})
		}
	}
	h := &audit.Handler{Store: store, Now: func() time.Time { return now.Add(time.Minute) }}
	get := func(id *identity.Identity, query string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/api/audit"+query, nil)
		if id != nil {
			r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: id.Actor, TenantID: id.TenantID, Roles: id.Roles}))
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	approver := alice("acme", identity.RoleApprover)
	cases := []struct {
		name   string
		id     *identity.Identity
		query  string
		status int
		items  int
	}{
		{"default window is the last 24 hours", &approver, "", 200, 5},
		{"action type", &approver, "?actionType=dlp", 200, 2},
		{"explicit window", &approver, "?from=2026-11-22T07:30:00Z&to=2026-11-22T10:30:00Z", 200, 3},
		{"limit pages", &approver, "?limit=2", 200, 2},
		{"actor", &approver, "?actor=alice", 200, 5},
		{"another actor", &approver, "?actor=bob", 200, 0},
		{"actor and action type", &approver, "?actor=alice&actionType=dlp", 200, 2},
		{"actor too long", &approver, "?actor=" + strings.Repeat("a", 257), 400, 0},
		{"actor with a control character", &approver, "?actor=al%0Aice", 400, 0},
		{"no identity", nil, "", 401, 0},
		{"bad from", &approver, "?from=yesterday", 400, 0},
		{"from after to", &approver, "?from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z", 400, 0},
		{"window too wide", &approver, "?from=2026-01-01T00:00:00Z", 400, 0},
		{"unknown action type", &approver, "?actionType=nope", 400, 0},
		{"limit too big", &approver, "?limit=1000", 400, 0},
		{"bad cursor", &approver, "?cursor=zzz", 400, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := get(tc.id, tc.query)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.status != 200 {
				return
			}
			var resp struct {
				Items      []audit.Record `json:"items"`
				Window     audit.Window   `json:"window"`
				NextCursor *string        `json:"nextCursor"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			if len(resp.Items) != tc.items {
				t.Fatalf("%d items, want %d", len(resp.Items), tc.items)
			}
			for _, r := range resp.Items {
				if r.TenantID != "acme" {
					t.Fatalf("another tenant's record: %+v", r)
				}
			}
			if tc.name == "limit pages" && resp.NextCursor == nil {
				t.Fatal("no next cursor with more records left")
			}
		})
	}
}

type dlpRedactor struct{ s *dlp.Scanner }

func (r dlpRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	return res.Output, err
}

// A resource named after another system's record id is redacted like the details: the id
// can be an e-mail or a token.
func TestResourceIsRedacted(t *testing.T) {
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: dlpRedactor{dlp.NewScanner()}}
	id := identity.Identity{TenantID: "acme", Actor: "alice", Source: identity.SourceAuth}
	if err := l.Write(context.Background(), audit.Entry{Actor: id, ActionType: audit.TypeConnector, ActionKey: "connector.write",
		Result: audit.ResultSuccess, Resource: "crm/contact/jane.doe@example.com"}); err != nil {
		t.Fatal(err)
	}
	if got := store.All()[0].Resource; got != "crm/contact/[REDACTED:EMAIL]" {
		t.Fatalf("resource %q", got)
	}
}

func (d dlpRedactor) RedactText(_ context.Context, text string) (string, error) {
	return d.s.RedactString(dlp.Record, text)
}

// The actor passes the record policy like every other field: an embedded user whose id is
// an e-mail address is stored masked as details are, followed by a stable keyed pseudonym,
// the same for the same person (in any case) and different for another one or another key.
func TestActorIsMaskedWithAStablePseudonym(t *testing.T) {
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: dlpRedactor{dlp.NewScanner()}, PseudonymKey: audit.StaticKey([]byte("key-1 of 32 bytes, for the test!"))}
	write := func(actor string) audit.Record {
		id := identity.Identity{TenantID: "acme", Actor: actor, Source: identity.SourceUser, SessionID: "es_1",
			Aliases: []string{"alias@example.com"}}
		if err := l.Write(context.Background(), audit.Entry{Actor: id, ActionType: audit.TypeSyncError, ActionKey: "syncerror.approve",
			Result: audit.ResultSuccess, Details: map[string]any{"userId": actor, "hostAccountId": "4111111111111111"}}); err != nil {
			t.Fatal(err)
		}
		all := store.All()
		return all[len(all)-1]
	}
	a1, a2, b := write("jane.doe@example.com"), write("Jane.Doe@Example.com "), write("john.roe@example.com")
	for _, r := range []audit.Record{a1, a2, b} {
		raw, _ := json.Marshal(r)
		if strings.Contains(strings.ToLower(string(raw)), "@example.com") {
			t.Fatalf("a record names the person: %s", raw)
		}
		if !strings.HasPrefix(r.Actor.Actor, "[REDACTED:EMAIL] ~p:") {
			t.Fatalf("actor %q: want the mask and a pseudonym", r.Actor.Actor)
		}
	}
	if a1.Actor.Actor != a2.Actor.Actor || a1.Actor.Actor == b.Actor.Actor {
		t.Fatalf("pseudonyms %q %q %q: want one per person", a1.Actor.Actor, a2.Actor.Actor, b.Actor.Actor)
	}
	l.PseudonymKey = audit.StaticKey([]byte("key-2 of 32 bytes, for the test!"))
	if c := write("jane.doe@example.com"); c.Actor.Actor == a1.Actor.Actor {
		t.Fatal("the pseudonym does not depend on the key: it could be recomputed from a guess")
	}
	// An actor without personal data is kept as it is.
	if r := write("schedule:reconcile"); r.Actor.Actor != "schedule:reconcile" {
		t.Fatalf("actor %q", r.Actor.Actor)
	}
}

// The key is asked for only when an actor is masked, and a key that cannot be had costs
// the pseudonym, never the record.
func TestPseudonymKeyIsLazyAndItsFailureKeepsTheRecord(t *testing.T) {
	store := &audittest.Store{}
	asked := 0
	l := &audit.Log{Store: store, Redactor: dlpRedactor{dlp.NewScanner()}, PseudonymKey: func(context.Context) ([]byte, error) {
		asked++
		return nil, errors.New("secret unreachable")
	}}
	write := func(actor string) audit.Record {
		id := identity.Identity{TenantID: "acme", Actor: actor, Source: identity.SourceUser}
		if err := l.Write(context.Background(), audit.Entry{Actor: id, ActionType: audit.TypeSyncError, ActionKey: "syncerror.approve",
			Result: audit.ResultSuccess}); err != nil {
			t.Fatal(err)
		}
		all := store.All()
		return all[len(all)-1]
	}
	if r := write("schedule:reconcile"); r.Actor.Actor != "schedule:reconcile" || asked != 0 {
		t.Fatalf("actor %q, key asked %d times: want the actor kept and no key asked", r.Actor.Actor, asked)
	}
	if r := write("jane.doe@example.com"); r.Actor.Actor != "[REDACTED:EMAIL]" || asked != 1 {
		t.Fatalf("actor %q, key asked %d times: want the mask alone after one ask", r.Actor.Actor, asked)
	}
}
