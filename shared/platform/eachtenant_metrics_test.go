package platform_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/emf/emftest"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// runJob runs a scheduled job over three tenants, each emitting a run's metric, and
// returns the job's EMF datapoints and lines.
func runJob(t *testing.T) ([]string, int) {
	var out bytes.Buffer
	prev := emf.Out
	emf.Out = &out
	defer func() { emf.Out = prev }()
	store := tenanttest.NewStore()
	for _, id := range []string{"a", "b", "c"} {
		if err := store.Create(context.Background(), tenant.Config{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	b := &platform.Base{Tenants: store, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return at }}
	if _, err := b.EachTenant(context.Background(), "flow poll", blueprint.Flows, func(_ context.Context, id string) error {
		emf.Emit(emf.Metric{Time: at, Counts: map[string]float64{"FlowRuns": 1}, Dimensions: []string{"outcome"},
			Fields: map[string]any{"outcome": "written", "tenant": id}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	points, docs, err := emftest.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return points, docs
}

// A scheduled job's metrics are written in as few lines as they fit: each tenant's run
// repeats FlowRuns, and the job's TenantsRun joins the last, three lines for four
// metrics with the datapoints of one line each (what comes out where the job's Batch
// cannot collect: an invocation overlapping it in the process).
func TestEachTenantPacksTheJobsMetrics(t *testing.T) {
	packed, docs := runJob(t)
	overlap := emf.Collect(context.Background())
	alone, lines := runJob(t)
	overlap.Flush()
	if lines != 4 || !slices.Equal(packed, alone) {
		t.Fatalf("packed %q\nalone (%d lines) %q", packed, lines, alone)
	}
	if docs != 3 {
		t.Fatalf("%d lines, want 3", docs)
	}
}
