package queue_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo/dynamotest"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// listAs lists query as role through op's listing, following cursors, and returns the
// error ids in order and the pages' rows.
func listAs(t *testing.T, op *decisions.Service, role, query string) ([]string, []queue.Summary) {
	t.Helper()
	var ids []string
	var rows []queue.Summary
	cursor := ""
	for range 40 {
		q := query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := httptest.NewRequest(http.MethodGet, "/p?"+q, nil)
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{role}}))
		w := httptest.NewRecorder()
		op.ListHandler().ServeHTTP(w, r)
		var p listPage
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &p) != nil {
			t.Fatalf("%s: %d %s", q, w.Code, w.Body)
		}
		for _, s := range p.Items {
			ids = append(ids, s.ErrorID)
			rows = append(rows, s)
		}
		if p.NextCursor == nil {
			return ids, rows
		}
		cursor = *p.NextCursor
	}
	t.Fatal("listing did not end")
	return nil, nil
}

// seedStatuses claims E-0…E-5 a minute apart, diagnosed, and moves some on: E-1 and E-4
// escalated (E-1 last), E-2 rejected; the others stay pending.
func seedStatuses(t *testing.T, s syncerror.ClaimStore) {
	t.Helper()
	ctx := context.Background()
	for i := range 6 {
		at := clock.Add(time.Duration(i) * time.Minute)
		c := roomtest.ReadyClaim(t, s, "acme", fmt.Sprintf("E-%d", i), at)
		to := map[int]syncerror.Status{1: syncerror.StatusEscalated, 4: syncerror.StatusEscalated, 2: syncerror.StatusRejected}[i]
		if to == "" {
			continue
		}
		when := at.Add(time.Hour)
		if i == 1 {
			when = at.Add(2 * time.Hour) // escalated after E-4, though claimed before it
		}
		if err := s.Decide(ctx, "acme", c.ID, syncerror.StatusPending, to, syncerror.HistoryEntry{At: when, Actor: "olga", Action: string(to), Note: "why " + c.Record.ErrorID}, when); err != nil {
			t.Fatal(err)
		}
	}
}

// Status open lists pending, retrying and escalated rows as one listing, newest first
// (or oldest), and any every status; paged one row at a time, each row comes once and in
// order, in the memory store and in DynamoDB (issue 35 §2).
func TestListOpenAndAnyMergeStatuses(t *testing.T) {
	t.Run("memory", func(t *testing.T) { testMergedListing(t, syncerrortest.NewClaimStore()) })
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) { testMergedListing(t, dynamotest.Claims(t, e)) })
}

func testMergedListing(t *testing.T, s syncerror.ClaimStore) {
	seedStatuses(t, s)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: s, Now: clockFunc}}}}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"status=open", []string{"E-5", "E-4", "E-3", "E-1", "E-0"}},
		{"status=open&limit=1", []string{"E-5", "E-4", "E-3", "E-1", "E-0"}},
		{"status=open&limit=2&sort=oldest", []string{"E-0", "E-1", "E-3", "E-4", "E-5"}},
		{"status=any&limit=1", []string{"E-5", "E-4", "E-3", "E-2", "E-1", "E-0"}},
		{"status=any&limit=4&q=e-2", []string{"E-2"}},
		{"status=pending", []string{"E-5", "E-3", "E-0"}},
	} {
		if got, _ := listAs(t, op, "operator", tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/p?status=open&cursor=mbad", nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{"operator"}}))
	w := httptest.NewRecorder()
	op.ListHandler().ServeHTTP(w, r)
	if w.Code != http.StatusBadRequest {
		t.Fatalf("a cursor the merge did not issue: %d %s", w.Code, w.Body)
	}
}

// Each pending or escalated row says who can approve it for the viewer, and the decider
// filter keeps those; an escalated row carries its escalation, and the Escalated inbox's
// sort puts the newest escalation first (issue 35 §1).
func TestRowsSayWhoCanApprove(t *testing.T) {
	s := syncerrortest.NewClaimStore()
	seedStatuses(t, s)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: s, Now: clockFunc}}}} // no policy: approvers approve
	deciders := func(role, query string) map[string]string {
		_, rows := listAs(t, op, role, query)
		out := map[string]string{}
		for _, r := range rows {
			out[r.ErrorID] = r.Decider
		}
		return out
	}
	if got := deciders("operator", "status=any"); !reflect.DeepEqual(got, map[string]string{"E-5": "approver", "E-4": "approver", "E-3": "approver", "E-2": "", "E-1": "approver", "E-0": "approver"}) {
		t.Errorf("operator: %v", got)
	}
	if got := deciders("approver", "status=open"); !reflect.DeepEqual(got, map[string]string{"E-5": "you", "E-4": "you", "E-3": "you", "E-1": "you", "E-0": "you"}) {
		t.Errorf("approver: %v", got)
	}
	if got, _ := listAs(t, op, "operator", "status=open&decider=you"); len(got) != 0 {
		t.Errorf("an operator can approve none of these: %v", got)
	}
	if got, _ := listAs(t, op, "approver", "status=open&decider=you&limit=2"); !reflect.DeepEqual(got, []string{"E-5", "E-4", "E-3", "E-1", "E-0"}) {
		t.Errorf("an approver can approve all of these: %v", got)
	}
	got, rows := listAs(t, op, "approver", "status=escalated&sort=escalated")
	if !reflect.DeepEqual(got, []string{"E-1", "E-4"}) {
		t.Errorf("newest escalation first: %v", got)
	}
	if e := rows[0].Escalation; e == nil || e.Note != "why E-1" || e.Actor != "olga" {
		t.Errorf("the escalation is not on the row: %+v", rows[0].Escalation)
	}
	if _, rows := listAs(t, op, "approver", "status=pending"); slices.ContainsFunc(rows, func(r queue.Summary) bool { return r.Escalation != nil }) {
		t.Error("a pending row carries an escalation")
	}
	r := httptest.NewRequest(http.MethodGet, "/p?decider=someone", nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{"operator"}}))
	w := httptest.NewRecorder()
	op.ListHandler().ServeHTTP(w, r)
	if w.Code != http.StatusBadRequest {
		t.Fatalf("an unknown decider: %d %s", w.Code, w.Body)
	}
}

// Under the policy, an operator's fix says "you" to an operator, and a two-approver rule's
// fix says two_approvers to anyone.
func TestDeciderFollowsThePolicy(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	row := f.Arrive(t, "E-TWO", "SO-1", `{"subsidiary":"7"}`)
	rows := func(role, query string) []queue.Summary { _, r := listAs(t, f.Op, role, query); return r }
	first := rows("operator", "status=pending")
	if len(first) != 1 || first[0].Approval == nil {
		t.Fatalf("%+v", first)
	}
	want := policy.Decision{Apply: first[0].Approval.Apply}.Decider(syncerror.StatusPending, false)
	if first[0].Decider != want {
		t.Fatalf("operator sees %q for a %s rule", first[0].Decider, first[0].Approval.Apply)
	}
	policy := `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`
	if w := f.As(t, "ada", "admin", "PUT", "/policy", policy); w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, role := range []string{"operator", "approver"} {
		got := rows(role, "status=pending&decider=two_approvers")
		if len(got) != 1 || got[0].ID != row.ID || got[0].Decider != "two_approvers" {
			t.Fatalf("%s: %+v", role, got)
		}
	}
	if got := rows("approver", "status=pending&decider=you"); len(got) != 0 {
		t.Fatalf("a two-approver fix is not one approver's alone: %+v", got)
	}
}

func TestDeciderOfEachRule(t *testing.T) {
	for _, tc := range []struct {
		apply    string
		status   syncerror.Status
		approver bool
		want     string
	}{
		{policy.ApplyOperator, syncerror.StatusPending, false, "you"},
		{policy.ApplyAuto, syncerror.StatusPending, false, "you"},
		{policy.ApplyApprover, syncerror.StatusPending, false, "approver"},
		{policy.ApplyApprover, syncerror.StatusPending, true, "you"},
		{policy.ApplyOperator, syncerror.StatusEscalated, false, "approver"},
		{policy.ApplyOperator, syncerror.StatusEscalated, true, "you"},
		{policy.ApplyTwoApprovers, syncerror.StatusPending, true, "two_approvers"},
		{policy.ApplyOperator, syncerror.StatusRejected, true, ""},
	} {
		if got := (policy.Decision{Apply: tc.apply}).Decider(tc.status, tc.approver); got != tc.want {
			t.Errorf("%s %s approver=%v: %q, want %q", tc.apply, tc.status, tc.approver, got, tc.want)
		}
	}
}

// The first page names every system the filter can pick, with the tenant's names for
// each; a system that resolves to none is matched without case (issue 35 §2).
func TestListingOffersEverySystemAndMatchesWithoutCase(t *testing.T) {
	s := syncerrortest.NewClaimStore()
	seedStatuses(t, s)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: s, Now: clockFunc}}}}
	r := httptest.NewRequest(http.MethodGet, "/p?limit=1", nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{"operator"}}))
	w := httptest.NewRecorder()
	op.ListHandler().ServeHTTP(w, r)
	var first struct {
		NextCursor string
		Systems    []queue.SystemChoice
	}
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &first) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	i := slices.IndexFunc(first.Systems, func(c queue.SystemChoice) bool { return c.System == "erp2" })
	if len(first.Systems) != 5 || i < 0 || first.Systems[i].Vendor != "Business Central" || !slices.Contains(first.Systems[i].Names, "Business Central") {
		t.Fatalf("systems: %+v", first.Systems)
	}
	r = httptest.NewRequest(http.MethodGet, "/p?limit=1&cursor="+url.QueryEscape(first.NextCursor), nil)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{"operator"}}))
	w = httptest.NewRecorder()
	op.ListHandler().ServeHTTP(w, r)
	var next map[string]any
	if json.Unmarshal(w.Body.Bytes(), &next) != nil || next["systems"] != nil {
		t.Fatalf("a later page repeats the systems: %s", w.Body)
	}
	sent := syncerrortest.SampleRecord("acme", "E-0").ExternalSystem
	if sent == "" {
		t.Fatal("the sample record names no system")
	}
	upper := strings.ToUpper(sent)
	if got, _ := listAs(t, op, "operator", "status=any&system="+url.QueryEscape(upper)); len(got) != 6 {
		t.Fatalf("system=%s: %v", upper, got)
	}
}

// cappedStore lists as a filtered DynamoDB page does: it examines at most two rows a call,
// drops the "junk" ones (the filter's misses), and ends at the last row examined, even with
// no row to answer; with limit rows found it ends after the last one answered.
type cappedStore struct{ *syncerrortest.ClaimStore }

func (s cappedStore) List(ctx context.Context, tenantID string, q syncerror.ListQuery) (syncerror.Page, error) {
	all, err := s.ClaimStore.List(ctx, tenantID, syncerror.ListQuery{Status: q.Status, Oldest: q.Oldest, Limit: 1000})
	if err != nil {
		return syncerror.Page{}, err
	}
	at := 0
	if q.Cursor != "" {
		if at, err = strconv.Atoi(q.Cursor); err != nil {
			return syncerror.Page{}, syncerror.ErrBadCursor
		}
	}
	var p syncerror.Page
	for examined := 0; at < len(all.Claims); at++ {
		c := all.Claims[at]
		if len(p.Claims) == q.Limit || examined == 2 {
			p.NextCursor = strconv.Itoa(at)
			return p, nil
		}
		examined++
		if !strings.Contains(c.Record.ErrorID, "junk") {
			p.Claims = append(p.Claims, c)
		}
	}
	return p, nil
}

// A merged page over statuses whose filtered pages end at their scan bound, some with no
// row, still lists every matching row once and in order.
func TestMergedListingOverCappedPages(t *testing.T) {
	mem := syncerrortest.NewClaimStore()
	ctx := context.Background()
	var want []string
	for i := range 14 {
		at := clock.Add(time.Duration(i) * time.Minute)
		id := fmt.Sprintf("E-%02d", i)
		junk := i >= 4 && i <= 9 // three in a row of each status: a page of two misses and no row
		if junk {
			id = fmt.Sprintf("junk-%02d", i)
		}
		c := roomtest.ReadyClaim(t, mem, "acme", id, at)
		if i%2 == 1 {
			if err := mem.Decide(ctx, "acme", c.ID, syncerror.StatusPending, syncerror.StatusEscalated, syncerror.HistoryEntry{At: at, Actor: "olga", Action: "escalated", Note: "?"}, at); err != nil {
				t.Fatal(err)
			}
		}
		if !junk {
			want = append([]string{id}, want...)
		}
	}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: cappedStore{mem}, Now: clockFunc}}}}
	for _, limit := range []string{"1", "2", "5"} {
		if got, _ := listAs(t, op, "operator", "status=open&limit="+limit); !reflect.DeepEqual(got, want) {
			t.Errorf("limit %s: %v, want %v", limit, got, want)
		}
	}
	slices.Reverse(want)
	if got, _ := listAs(t, op, "operator", "status=open&limit=2&sort=oldest"); !reflect.DeepEqual(got, want) {
		t.Errorf("oldest: %v, want %v", got, want)
	}
}
