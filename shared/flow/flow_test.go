package flow

import (
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

func TestValidateListsEveryProblem(t *testing.T) {
	f := Flow{ID: "-bad", Source: Endpoint{"nope", ""}, Target: Endpoint{connector.SystemCRM, "Account"},
		Mapping: map[string]string{"Name": "", "ok": "fine"}, Filter: map[string]any{"has space": 1}, Trigger: "cron"}
	var fields []string
	for _, e := range f.Validate() {
		fields = append(fields, e.Field)
	}
	want := "filter.has space,id,mapping.Name,source.entity,source.system,trigger"
	if got := strings.Join(fields, ","); got != want {
		t.Fatalf("errors on %s, want %s", got, want)
	}
	same := Flow{ID: "x", Source: Endpoint{connector.SystemCRM, "A"}, Target: Endpoint{connector.SystemCRM, "A"}, Mapping: map[string]string{"a": "b"}}
	if errs := same.Validate(); len(errs) != 1 || errs[0].Field != "target" {
		t.Fatalf("a flow into its own source: %v", errs)
	}
	good := Flow{ID: "erp.customer-to_crm", Source: Endpoint{connector.SystemHostERP, "customer"},
		Target: Endpoint{connector.SystemCRM, "Account"}, Mapping: map[string]string{"Name": "companyName"}}
	if errs := good.Validate(); len(errs) != 0 {
		t.Fatalf("valid flow refused: %v", errs)
	}
}

func TestRunsForAndMapped(t *testing.T) {
	f := Flow{ID: "f", Enabled: true, Source: Endpoint{connector.SystemCRM, "Account"}, Target: Endpoint{connector.SystemHostERP, "customer"},
		Mapping: map[string]string{"phone": "Phone", "email": "Email"}, Filter: map[string]any{"Type": "Customer"}}
	ev, _, _ := ParseEvent([]byte(`{"eventId":"e","entity":"Account","recordId":"1","changedAt":"2026-11-22T10:00:00Z",
		"fields":{"Type":"Customer","Phone":"+1","Other":true}}`))
	if ok, skip := f.runsFor(connector.SystemCRM, ev, TriggerEvent); !ok || skip != "" {
		t.Fatalf("runsFor = %v %q", ok, skip)
	}
	// A change the poll found runs poll flows only, and a posted event event flows only.
	if ok, _ := f.runsFor(connector.SystemCRM, ev, TriggerPoll); ok {
		t.Fatal("an event flow runs for a polled change")
	}
	polled := f
	polled.Trigger = TriggerPoll
	if ok, _ := polled.runsFor(connector.SystemCRM, ev, TriggerEvent); ok {
		t.Fatal("a poll flow runs for a posted event")
	}
	if ok, skip := polled.runsFor(connector.SystemCRM, ev, TriggerPoll); !ok || skip != "" {
		t.Fatalf("poll flow: runsFor = %v %q", ok, skip)
	}
	for _, c := range []struct {
		system connector.System
		entity string
		fields map[string]any
		ok     bool
		skip   bool
	}{
		{connector.SystemHostERP, "Account", ev.Fields, false, false},                             // another source system
		{connector.SystemCRM, "Contact", ev.Fields, false, false},                                 // another entity
		{connector.SystemCRM, "Account", map[string]any{"Type": "Partner"}, true, true},           // filter does not hold
		{connector.SystemCRM, "Account", map[string]any{"Phone": "+1"}, true, true},               // filtered field absent
		{connector.SystemCRM, "Account", map[string]any{"Type": "Customer", "X": 1}, true, false}, // runs
	} {
		e := Event{Entity: c.entity, Fields: c.fields}
		ok, skip := f.runsFor(c.system, e, TriggerEvent)
		if ok != c.ok || (skip != "") != c.skip {
			t.Errorf("%s/%s %v: runsFor = %v %q", c.system, c.entity, c.fields, ok, skip)
		}
	}
	fields, shared := f.mapped(ev)
	if len(fields) != 1 || fields["phone"] != "+1" {
		t.Fatalf("mapped fields %v", fields)
	}
	// The mirrored flow names the same pair the same way, so the loop check can compare.
	back := Flow{Source: f.Target, Target: f.Source, Mapping: map[string]string{"Phone": "phone"}}
	_, backShared := back.mapped(Event{Fields: map[string]any{"phone": "+1"}})
	if len(shared) != 1 || len(backShared) != 1 || !sameJSON(shared, backShared) {
		t.Fatalf("shared names differ by direction: %v vs %v", shared, backShared)
	}
	// Only pairs a flow back maps can echo: without one, nothing is compared.
	if got := f.echoable(map[string]any{"crm/Phone|hosterp/phone": "+1", "crm/Email|hosterp/email": "a"}, []Flow{back}); len(got) != 1 {
		t.Fatalf("echoable %v, want the phone pair only", got)
	}
	if got := f.echoable(shared, []Flow{f}); len(got) != 0 {
		t.Fatalf("echoable without a flow back: %v", got)
	}
	if linkKey(f.Source, f.Target, "1") != linkKey(f.Target, f.Source, "1") {
		t.Fatal("the link key depends on the direction")
	}
	f.Enabled = false
	if ok, _ := f.runsFor(connector.SystemCRM, ev, TriggerEvent); ok {
		t.Fatal("a disabled flow runs")
	}
}

func TestParseEvent(t *testing.T) {
	if _, _, ok := ParseEvent([]byte(`{"eventId":"a"} {}`)); ok {
		t.Fatal("two values accepted")
	}
	_, errs, ok := ParseEvent([]byte(`{"eventId":"has space","recordId":"` + strings.Repeat("x", 257) + `","changedAt":"yesterday","fields":{}}`))
	var fields []string
	for _, e := range errs {
		fields = append(fields, e.Field)
	}
	if !ok || strings.Join(fields, ",") != "eventId,entity,recordId,changedAt,fields" {
		t.Fatalf("errors on %v", fields)
	}
	// A one-digit hour is not RFC 3339, though Go's layout takes it (httpapi.ParseTime).
	if _, errs, _ := ParseEvent([]byte(`{"eventId":"e1","entity":"Account","recordId":"1","changedAt":"2026-11-22T9:00:00Z","fields":{"n":1}}`)); len(errs) != 1 || errs[0].Field != "changedAt" {
		t.Fatalf("a one-digit hour: errors %v, want changedAt's", errs)
	}
	ev, errs, _ := ParseEvent([]byte(`{"eventId":"e1","entity":"Account","recordId":"1","changedAt":"2026-11-22T11:00:00+01:00","fields":{"n":12.50}}`))
	if len(errs) != 0 || ev.ChangedAt.Hour() != 10 || sameJSON(ev.Fields["n"], 12.5) {
		t.Fatalf("event %+v errs %v: the time is UTC and numbers stay as sent", ev, errs)
	}
}

func TestRunIDs(t *testing.T) {
	a := RunID("t", connector.SystemCRM, "e", "f")
	if !ValidRunID(a) || a != RunID("t", connector.SystemCRM, "e", "f") {
		t.Fatalf("run id %q", a)
	}
	for _, other := range []string{RunID("t2", connector.SystemCRM, "e", "f"), RunID("t", connector.SystemHostERP, "e", "f"),
		RunID("t", connector.SystemCRM, "e2", "f"), RunID("t", connector.SystemCRM, "e", "f2"), RunID("te", connector.SystemCRM, "", "f")} {
		if other == a {
			t.Fatal("run ids collide across tenants, systems, events or flows")
		}
	}
	// An event's own key: stored ids rest on it, so it is pinned (SHA-256 of "t\0crm\0e\0").
	ev := EventRunID("t", connector.SystemCRM, "e")
	if ev != "run_PS3PA63LMK3GFGHGVDTUEXWVWG" || !ValidRunID(ev) {
		t.Fatalf("event run id %q", ev)
	}
	for _, other := range []string{RunID("t", connector.SystemCRM, "e", ""), EventRunID("t2", connector.SystemCRM, "e"),
		EventRunID("t", connector.SystemHostERP, "e"), EventRunID("t", connector.SystemCRM, "e2")} {
		if other == ev {
			t.Fatal("an event's key collides with a flow's run or another event's key")
		}
	}
	for _, bad := range []string{"", "run_", "run_abcdefghijklmnopqrstuvwxyz", "se_ABCDEFGHIJKLMNOPQRSTUVWXYZ", a + "A"} {
		if ValidRunID(bad) {
			t.Errorf("ValidRunID(%q)", bad)
		}
	}
}
