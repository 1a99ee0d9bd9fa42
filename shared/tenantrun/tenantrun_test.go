package tenantrun_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/tenantrun"
)

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// Each tenant gets an equal part of what is left; one that ran out goes last next run; a
// run without enough time left skips the rest and counts it. Nothing sleeps: the tenants
// move the clock.
func TestSharesOrderAndDeadline(t *testing.T) {
	now := t0
	clock := func() time.Time { return now }
	mem := &tenantrun.InProcess{}
	ids := []string{"a", "b", "c", "d"}
	var order []string
	var shares []time.Duration
	fn := func(ctx context.Context, id string) error {
		order = append(order, id)
		d, _ := ctx.Deadline()
		shares = append(shares, time.Until(d).Round(time.Minute))
		if id == "a" {
			now = now.Add(time.Until(d)) // uses all of its share
			return context.DeadlineExceeded
		}
		return nil
	}
	res := tenantrun.Run(context.Background(), ids, tenantrun.Plan{Now: clock, Deadline: now.Add(41 * time.Minute),
		Reserve: time.Minute, Memory: mem}, fn)
	if res.Ran != 4 || res.TimedOut != 1 || res.Failed != 1 || res.Skipped != 0 {
		t.Fatalf("result %+v", res)
	}
	if !slices.Equal(order, ids) || shares[0] != 10*time.Minute || shares[1] != 10*time.Minute {
		t.Fatalf("order %v shares %v: want a, b, c, d with 10 minutes each", order, shares)
	}
	order = nil
	tenantrun.Run(context.Background(), ids, tenantrun.Plan{Now: clock, Memory: mem}, func(_ context.Context, id string) error {
		order = append(order, id)
		return nil
	})
	if order[len(order)-1] != "a" {
		t.Fatalf("order %v: want a, which timed out, last", order)
	}
	res = tenantrun.Run(context.Background(), ids, tenantrun.Plan{Now: clock, Deadline: now.Add(90 * time.Second),
		Reserve: time.Minute}, fn)
	if res.Ran != 0 || res.Skipped != 4 {
		t.Fatalf("near the deadline: %+v, want every tenant skipped", res)
	}
}

// The start turns by the minute, so consecutive runs begin at different tenants.
func TestStartTurns(t *testing.T) {
	first := map[string]bool{}
	for m := range 3 {
		now := t0.Add(time.Duration(m) * time.Minute)
		var got []string
		tenantrun.Run(context.Background(), []string{"a", "b", "c"}, tenantrun.Plan{Now: func() time.Time { return now }},
			func(_ context.Context, id string) error { got = append(got, id); return nil })
		first[got[0]] = true
	}
	if len(first) != 3 {
		t.Fatalf("runs started at %v, want three different tenants", first)
	}
}
