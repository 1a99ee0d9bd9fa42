package governance_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// step is one write of a loop scenario on the unowned entity "ticket", so that only the
// loop check decides.
type step struct {
	source, target connector.System
	record         string // default T-1
	fields         map[string]any
	after          time.Duration // advance the clock first
	loop           bool          // want ErrLoopDetected
	condition      string        // prefix of the breaking condition, when loop
}

func TestLoopDetection(t *testing.T) {
	t.Parallel()
	open := map[string]any{"status": "open", "priority": "high"}
	cases := []struct {
		name   string
		window time.Duration
		steps  []step
	}{
		{name: "same payload written back within the window", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, fields: open, after: 4 * time.Minute, loop: true,
				condition: "same payload hash as crm→hosterp write at 2026-11-22T10:00:00Z"},
		}},
		{name: "same fields with other values ping-pong", steps: []step{
			{source: crm, target: hosterp, fields: map[string]any{"status": "open", "priority": "high"}},
			{source: hosterp, target: crm, fields: map[string]any{"priority": "HIGH", "status": "Open"}, loop: true,
				condition: "ping-pong of fields [priority status]"},
		}},
		{name: "other values of other fields are a two-way sync, not a loop", steps: []step{
			{source: crm, target: hosterp, fields: map[string]any{"email": "a@example.com"}},
			{source: hosterp, target: crm, fields: map[string]any{"creditLimit": 5000}},
		}},
		{name: "a partial overlap of fields is not a ping-pong", steps: []step{
			{source: crm, target: hosterp, fields: map[string]any{"email": "a@example.com", "phone": "+1 415 555 0100"}},
			{source: hosterp, target: crm, fields: map[string]any{"email": "b@example.com"}},
		}},
		{name: "same payload after the window", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, fields: open, after: 5*time.Minute + time.Second},
		}},
		{name: "the window is configurable", window: time.Minute, steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, fields: open, after: 2 * time.Minute},
		}},
		{name: "a longer window catches a slower loop", window: 30 * time.Minute, steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, fields: open, after: 20 * time.Minute, loop: true, condition: "same payload hash"},
		}},
		{name: "the same direction repeated is not a loop", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: crm, target: hosterp, fields: open},
		}},
		{name: "another record is not a loop", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, record: "T-2", fields: open},
		}},
		{name: "a third system is not the return leg", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: marketing, fields: open},
		}},
		{name: "a system writing itself never loops", steps: []step{
			{source: hosterp, target: hosterp, fields: open},
			{source: hosterp, target: hosterp, fields: open},
		}},
		{name: "A→B→A→B→A is cut at every return leg", steps: []step{
			{source: crm, target: hosterp, fields: open},
			{source: hosterp, target: crm, fields: open, after: time.Second, loop: true},
			// The blocked return leg left no ledger entry: the next A→B is judged afresh.
			{source: crm, target: hosterp, fields: open, after: time.Second},
			{source: hosterp, target: crm, fields: open, after: time.Second, loop: true},
			{source: hosterp, target: crm, fields: map[string]any{"status": "closed", "priority": "low"}, loop: true,
				condition: "ping-pong"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var opts []envOption
			if c.window != 0 {
				opts = append(opts, withLoopWindow(c.window))
			}
			e := newEnv(t, opts...)
			wantWrites := map[connector.System]int{}
			// The connectors read before they write: fields that already hold their values
			// are not written again, so only a step that changes its record is a write.
			last := map[string]map[string]any{}
			loops := 0
			for i, s := range c.steps {
				e.clock.Advance(s.after)
				record := s.record
				if record == "" {
					record = "T-1"
				}
				_, err := e.write(operator("t1"), req(s.source, s.target, "ticket", record, s.fields))
				if s.loop != errors.Is(err, governance.ErrLoopDetected) || !s.loop && err != nil {
					t.Fatalf("step %d (%s→%s): err = %v, want loop %v", i, s.source, s.target, err, s.loop)
				}
				if !s.loop {
					if key := string(s.target) + "/" + record; !reflect.DeepEqual(last[key], s.fields) {
						wantWrites[s.target]++
						last[key] = s.fields
					}
					continue
				}
				loops++
				got := e.records.Loops()
				if len(got) != loops {
					t.Fatalf("step %d: %d loop detections recorded, want %d", i, len(got), loops)
				}
				l := got[len(got)-1]
				if l.Caller != s.source || l.Target != s.target || l.Entity != "ticket" || l.Tenant != "t1" ||
					l.Resource != string(s.target)+"/ticket/"+record || l.CorrelationID == "" ||
					!strings.HasPrefix(l.BreakingCondition, s.condition) || !l.Time.Equal(e.clock.Now()) {
					t.Fatalf("step %d: loop detection %+v, want condition %q", i, l, s.condition)
				}
			}
			for _, sys := range connector.Systems {
				if got := e.fakes[sys].WriteCount(); got != wantWrites[sys] {
					t.Fatalf("%s received %d writes, want %d", sys, got, wantWrites[sys])
				}
			}
			if e.ledger.Len() != len(c.steps)-loops {
				t.Fatalf("ledger holds %d entries, want one per write made (%d)", e.ledger.Len(), len(c.steps)-loops)
			}
			audits := e.audits(governance.ActionLoopDetected)
			if len(audits) != loops {
				t.Fatalf("%d governance.loop_detected audit records, want %d", len(audits), loops)
			}
			for _, a := range audits {
				if a.Result != audit.ResultDenied || a.ActionType != audit.TypeGovernance || a.CorrelationID == "" {
					t.Fatalf("audit %+v", a)
				}
			}
		})
	}
}

// Flows write between entities and field names that differ per system; the link they
// carry is what makes the return leg recognisable.
func TestLoopDetectionAcrossLinkedRecords(t *testing.T) {
	t.Parallel()
	link := func(name string) *governance.Link {
		return &governance.Link{Key: "crm/Account|hosterp/customer|C-9", Fields: map[string]any{"companyname|Name": name}}
	}
	e := newEnv(t)
	out := req(hosterp, crm, "case", "C-9", map[string]any{"Name": "Acme"})
	out.Link = link("Acme")
	if _, err := e.write(operator("t1"), out); err != nil {
		t.Fatalf("ERP→CRM: %v", err)
	}
	back := req(crm, hosterp, "ticket", "C-9", map[string]any{"companyname": "Acme"})
	back.Link = link("Acme")
	e.clock.Advance(time.Second)
	_, err := e.write(operator("t1"), back)
	if !errors.Is(err, governance.ErrLoopDetected) || !strings.Contains(err.Error(), "same payload hash") {
		t.Fatalf("CRM→ERP echo: err = %v, want a loop by payload hash", err)
	}
	if got := e.fakes[hosterp].WriteCount(); got != 0 {
		t.Fatalf("the host ERP received %d writes, want the echo blocked", got)
	}
	// Without the link the same two writes are different records with different fields.
	plain := req(crm, hosterp, "ticket", "C-9", map[string]any{"companyname": "Acme"})
	if _, err := e.write(operator("t1"), plain); err != nil {
		t.Fatalf("unlinked write: %v", err)
	}
	bad := req(crm, hosterp, "ticket", "C-9", map[string]any{"companyname": "Acme"})
	bad.Link = &governance.Link{Key: "k"}
	if _, err := e.write(operator("t1"), bad); !errors.Is(err, governance.ErrInvalidRequest) {
		t.Fatalf("link without fields: err = %v, want ErrInvalidRequest", err)
	}
}

// The return leg of a loop is found whatever case it spells the entity and the record id
// in, as the manifest and the hop check compare them: "Vendor" is the vendor entity, and
// "v-1" the record V-1.
func TestLoopDetectionIgnoresCase(t *testing.T) {
	t.Parallel()
	for _, back := range []struct{ entity, id string }{{"Vendor", "V-1"}, {"vendor", "v-1"}, {"VENDOR", "v-1"}} {
		t.Run(back.entity+"/"+back.id, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			f := map[string]any{"notes": "hello"}
			if _, err := e.write(operator("t1"), req(crm, erp2, "vendor", "V-1", f)); err != nil {
				t.Fatal(err)
			}
			if _, err := e.write(operator("t1"), req(erp2, crm, back.entity, back.id, f)); !errors.Is(err, governance.ErrLoopDetected) {
				t.Fatalf("return leg to %s %s not blocked: %v", back.entity, back.id, err)
			}
		})
	}
}

// A loop through a Mailchimp member is caught whichever leg comes first, and whether the
// member is named by its address (in any case) or by its subscriber hash: a write's own
// entry is keyed for its target, and the return leg reads the key of a write to its
// source (a member under its hash, any other record under its id).
func TestLoopThroughAMailchimpMemberIsCaughtBothWays(t *testing.T) {
	t.Parallel()
	const email = "Jane.Doe@example.com"
	hash := connector.SubscriberHash(email)
	for _, tc := range []struct {
		name          string
		first, second connector.System
		firstID, back string
	}{
		{"to Mailchimp and back", crm, marketing, email, "jane.doe@example.com"},
		{"to Mailchimp by hash and back by address", crm, marketing, hash, email},
		{"to Mailchimp by address and back by hash", crm, marketing, email, hash},
		{"from Mailchimp and back", marketing, crm, email, email},
		{"from Mailchimp to a CRM id and back", marketing, crm, "00Q5g00000AbCdE", "00Q5g00000AbCdE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			f := map[string]any{"note": "vip"}
			if _, err := e.write(operator("t1"), req(tc.first, tc.second, "member", tc.firstID, f)); err != nil {
				t.Fatal(err)
			}
			if _, err := e.write(operator("t1"), req(tc.second, tc.first, "member", tc.back, f)); !errors.Is(err, governance.ErrLoopDetected) {
				t.Fatalf("return leg to %s not blocked: %v", tc.back, err)
			}
		})
	}
}
