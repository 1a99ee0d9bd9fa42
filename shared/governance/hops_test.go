package governance_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func hop(s connector.System, entity, field string) governance.Hop {
	return governance.Hop{System: s, Entity: entity, Record: "R-1", Field: field}
}

func traced(r governance.WriteRequest, traces map[string]governance.Trace) governance.WriteRequest {
	r.Link = &governance.Link{Traces: traces}
	return r
}

func withFlaps(f governance.FlapCounter, limit int) envOption {
	return func(d *governance.Deps, _ *configs) { d.Flaps, d.FlapLimit = f, limit }
}

// A system may spell its entity with another case in its events than the flow does: the
// trail is the same.
func TestTrailIgnoresTheEntitysCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tr := governance.Trace{Hops: []governance.Hop{hop(hosterp, "ticket", "phone")}}
	if _, err := e.write(operator("t1"), traced(req(hosterp, crm, "Lead", "R-1", map[string]any{"Phone": "+1"}),
		map[string]governance.Trace{"Phone": tr})); err != nil {
		t.Fatal(err)
	}
	got := e.trail(crm, "lead")["Phone"]
	if len(got.Hops) != 2 || !got.Hops[1].Same(hop(crm, "LEAD", "Phone")) || got.Hops[1].Same(hop(crm, "Lead", "phone")) {
		t.Fatalf("trail of crm/lead %+v", got)
	}
}

func (e *env) trail(s connector.System, entity string) map[string]governance.FieldTrail {
	e.t.Helper()
	tr, err := governance.Trails{Ledger: e.ledger}.Trail(context.Background(), "t1", s, entity, "R-1", t0.Add(-time.Hour))
	if err != nil {
		e.t.Fatal(err)
	}
	return tr
}

// A value that went hosterp → crm → marketing comes back to the host ERP in another
// field: no direct return leg exists, the hop chain shows the loop.
func TestHopChainBreaksAThreeSystemLoopWithASwappedField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	chain := []governance.Hop{hop(hosterp, "ticket", "phone"), hop(crm, "ticket", "Phone"), hop(marketing, "ticket", "PHONE")}
	r := traced(req(marketing, hosterp, "ticket", "R-1", map[string]any{"email": "+49 40 7"}),
		map[string]governance.Trace{"email": {Hops: chain}})
	_, err := e.write(id, r)
	if !errors.Is(err, governance.ErrLoopDetected) || e.totalWrites() != 0 {
		t.Fatalf("err %v, %d writes; want the loop broken before the write", err, e.totalWrites())
	}
	loops := e.records.Loops()
	want := "returns to hosterp/ticket: hosterp/ticket/R-1.phone → crm/ticket/R-1.Phone → marketing/ticket/R-1.PHONE → hosterp/ticket/R-1.email"
	if len(loops) != 1 || loops[0].BreakingCondition != want || loops[0].Caller != marketing || loops[0].Target != hosterp {
		t.Fatalf("loop detections %+v\nwant condition %q", loops, want)
	}
	if a := e.audits(governance.ActionLoopDetected); len(a) != 1 {
		t.Fatalf("%d loop audits", len(a))
	}
	e.mustNotContain("+49 40 7")
}

// Only the returning field is broken; the write goes through with the others, and
// each written field's trace lands on the target's trail, extended by the target.
func TestHopChainDropsOnlyReturningFieldsAndLeavesTheTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	back := governance.Trace{Hops: []governance.Hop{hop(crm, "ticket", "Phone"), hop(marketing, "ticket", "PHONE")}}
	fresh := governance.Trace{Hops: []governance.Hop{hop(marketing, "ticket", "STATUS")}}
	r := traced(req(marketing, crm, "ticket", "R-1", map[string]any{"Phone": "+1", "Status": "open"}),
		map[string]governance.Trace{"Phone": back, "Status": fresh})
	res, err := e.write(operator("t1"), r)
	if err != nil || !slices.Equal(res.Looped, []string{"Phone"}) {
		t.Fatalf("res %+v err %v, want Phone looped and the rest written", res, err)
	}
	w := e.fakes[crm].Writes()
	if len(w) != 1 || w[0].Fields["Status"] != "open" || w[0].Fields["Phone"] != nil {
		t.Fatalf("CRM writes %+v, want Status only", w)
	}
	tr := e.trail(crm, "ticket")
	h, _ := governance.ValueHash("open")
	if got := tr["Status"]; got.Hash != h || len(got.Hops) != 2 || got.Hops[1] != hop(crm, "ticket", "Status") {
		t.Fatalf("trail %+v, want Status with its hops and the target's", tr)
	}
	if _, ok := tr["Phone"]; ok {
		t.Fatal("a broken field left a trail")
	}
	if len(e.records.Loops()) != 1 {
		t.Fatalf("%d loop detections, want 1", len(e.records.Loops()))
	}
	wa := e.audits(governance.ActionConnectorWrite)
	if d := string(wa[len(wa)-1].Details); !strings.Contains(d, `"looped":["Phone"]`) {
		t.Fatalf("connector.write audit %s names no looped fields", d)
	}
}

// Two flows inside one system: customer → contact is a write like any other (the same
// system is not a loop by itself), contact → customer of the same value is one.
func TestHopChainCatchesTwoFlowsInsideOneSystem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	first := governance.Trace{Hops: []governance.Hop{hop(hosterp, "ticket", "phone")}}
	if _, err := e.write(id, traced(req(hosterp, hosterp, "lead", "R-1", map[string]any{"phone": "+1"}),
		map[string]governance.Trace{"phone": first})); err != nil {
		t.Fatalf("ticket → lead: %v", err)
	}
	echo := governance.Trace{Hops: e.trail(hosterp, "lead")["phone"].Hops}
	if len(echo.Hops) != 2 {
		t.Fatalf("lead's trail %+v", e.trail(hosterp, "lead"))
	}
	_, err := e.write(id, traced(req(hosterp, hosterp, "ticket", "R-1", map[string]any{"phone": "+1"}),
		map[string]governance.Trace{"phone": echo}))
	if !errors.Is(err, governance.ErrLoopDetected) || !strings.Contains(err.Error(), "returns to hosterp/ticket") {
		t.Fatalf("lead → ticket: %v, want the loop broken", err)
	}
}

// A local change that replaced a flow's value is recorded on its record's trail, so an
// edit back to the flow's value later is not taken for the flow's echo.
func TestReplacedValueIsRecordedAsLocal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	local := governance.Trace{Hops: []governance.Hop{hop(crm, "ticket", "Phone")}, Replaced: true}
	if _, err := e.write(operator("t1"), traced(req(crm, hosterp, "ticket", "R-1", map[string]any{"phone": "+3"}),
		map[string]governance.Trace{"phone": local})); err != nil {
		t.Fatal(err)
	}
	h, _ := governance.ValueHash("+3")
	if got := e.trail(crm, "ticket")["Phone"]; got.Hash != h || len(got.Hops) != 0 {
		t.Fatalf("CRM trail %+v, want the local value without hops", got)
	}
}

func TestTracesMustNameFieldsOfTheWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tr := range []map[string]governance.Trace{
		{"other": {Hops: []governance.Hop{hop(crm, "ticket", "x")}}},
		{"phone": {}},
		{"phone": {Hops: []governance.Hop{{System: "nope", Entity: "x", Record: "1", Field: "f"}}}},
	} {
		if _, err := e.write(operator("t1"), traced(req(crm, hosterp, "ticket", "R-1", map[string]any{"phone": "+1"}), tr)); !errors.Is(err, governance.ErrInvalidRequest) {
			t.Fatalf("traces %+v: %v, want ErrInvalidRequest", tr, err)
		}
	}
}

// The flapping cap: a field of a record written by flows more than the limit in a window
// is broken with condition "flapping"; the next window starts afresh, other fields and
// writes without traces are not held back.
func TestFlappingCapBreaksTheFieldOverTheLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withFlaps(&governancetest.Flaps{}, 3))
	id := operator("t1")
	flowWrite := func(fields map[string]any) (governance.Result, error) {
		traces := map[string]governance.Trace{}
		for f := range fields {
			traces[f] = governance.Trace{Hops: []governance.Hop{hop(crm, "ticket", f)}}
		}
		return e.write(id, traced(req(crm, hosterp, "ticket", "R-1", fields), traces))
	}
	for i := range 3 {
		if _, err := flowWrite(map[string]any{"phone": i}); err != nil {
			t.Fatalf("write %d: %v", i+1, err)
		}
	}
	if _, err := e.write(id, req(crm, hosterp, "ticket", "R-1", map[string]any{"phone": 99})); err != nil {
		t.Fatalf("a write without traces is not counted: %v", err)
	}
	_, err := flowWrite(map[string]any{"phone": 4})
	if !errors.Is(err, governance.ErrLoopDetected) || !strings.Contains(err.Error(), ": flapping: phone") {
		t.Fatalf("4th write: %v, want flapping", err)
	}
	loops := e.records.Loops()
	if len(loops) != 1 || !strings.HasPrefix(loops[0].BreakingCondition, governance.FlapCondition+": phone") {
		t.Fatalf("loop detections %+v", loops)
	}
	res, err := flowWrite(map[string]any{"phone": 5, "status": "open"})
	if err != nil || !slices.Equal(res.Looped, []string{"phone"}) {
		t.Fatalf("phone and status: %+v %v, want status written and phone broken", res, err)
	}
	e.clock.Advance(governance.DefaultFlapWindow)
	if _, err := flowWrite(map[string]any{"phone": 6}); err != nil {
		t.Fatalf("next window: %v", err)
	}
}
