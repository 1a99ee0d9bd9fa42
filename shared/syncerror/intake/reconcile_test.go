package intake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

func reconcileFixture(t *testing.T) (*tenanttest.Store, *syncerrortest.ClaimStore, *syncerrortest.Queue) {
	t.Helper()
	tenants := tenanttest.NewStore()
	for id, flags := range map[string][2]string{"on": {"true", "true"}, "half": {"true", "false"}} {
		err := tenants.Create(context.Background(), tenant.Config{ID: id, Settings: map[string]string{
			tenant.KeyEnabled: flags[0], tenant.KeyWebhookEnabled: flags[1]}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return tenants, syncerrortest.NewClaimStore(), &syncerrortest.Queue{}
}

func TestReconcileRequeuesOnlyStuckClaimsOfEnabledTenants(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	old := claimed(t, claims, "on", "E-old", clock)
	claimed(t, claims, "on", "E-fresh", clock.Add(9*time.Minute))
	claimed(t, claims, "half", "E-old", clock)
	diag := claimed(t, claims, "on", "E-diag", clock)
	if _, err := claims.BeginDiagnosis(context.Background(), "on", diag.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	now := clock.Add(intake.DefaultStuckAfter + time.Minute)
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
	rep, err := rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The old queued claim and the claim whose worker died while diagnosing.
	if rep.Tenants != 1 || rep.Requeued != 2 {
		t.Fatalf("report %+v", rep)
	}
	sent := map[string]bool{}
	for _, m := range queue.Sent() {
		sent[m.ID] = m.TenantID == "on"
	}
	if len(sent) != 2 || !sent[old.ID] || !sent[diag.ID] {
		t.Fatalf("sent %+v", queue.Sent())
	}
	row, _ := claims.Get(context.Background(), "on", diag.ID)
	if row.Diagnosis != syncerror.DiagnosisQueued {
		t.Fatalf("requeued diagnosing row is %s, want queued so the next delivery can take it", row.Diagnosis)
	}
	// A second run right after finds nothing: the rows were re-stamped.
	rep, _ = rc.Run(context.Background())
	if rep.Requeued != 0 || len(queue.Sent()) != 2 {
		t.Fatalf("second run %+v, sent %d", rep, len(queue.Sent()))
	}
}

func TestReconcileOverlappingRunsEnqueueOnce(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	for i := 0; i < 250; i++ {
		claimed(t, claims, "on", fmt.Sprintf("E-%d", i), clock.Add(time.Duration(i)*time.Millisecond))
	}
	now := clock.Add(time.Hour)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
			if _, err := rc.Run(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, m := range queue.Sent() {
		seen[m.ID]++
	}
	if len(seen) != 250 {
		t.Fatalf("%d distinct claims enqueued, want 250", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("claim %s enqueued %d times", id, n)
		}
	}
}

func TestReconcileSendFailureLeavesClaimForNextRun(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	c := claimed(t, claims, "on", "E-1", clock)
	queue.SetFail(errors.New("sqs down"))
	now := clock.Add(time.Hour)
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now }}
	rep, err := rc.Run(context.Background())
	if err != nil || rep.SendFailed != 1 || rep.Requeued != 0 {
		t.Fatalf("report %+v err=%v", rep, err)
	}
	queue.SetFail(nil)
	now = now.Add(intake.DefaultStuckAfter + time.Second)
	rep, _ = rc.Run(context.Background())
	if rep.Requeued != 1 || len(queue.Sent()) != 1 || queue.Sent()[0].ID != c.ID {
		t.Fatalf("report %+v sent %+v", rep, queue.Sent())
	}
}

// fakeHost lists sync errors the way the host ERP connector does: since is inclusive and
// pages hold two items.
type fakeHost struct {
	mu    sync.Mutex
	items []json.RawMessage
	calls int
}

func (h *fakeHost) add(t *testing.T, tenantID, errorID string, at time.Time) {
	b, _ := json.Marshal(map[string]any{"tenantId": tenantID, "errorId": errorID, "recordType": "salesOrder", "recordId": "SO-" + errorID,
		"errorCode": "INVALID_FIELD_VALUE", "message": "bad shipcountry", "occurredAt": at.Format(time.RFC3339)})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items = append(h.items, b)
}

// hostRowID is the row fakeHost.add's record opens.
func hostRowID(tenantID, errorID string) string {
	h := &fakeHost{}
	h.add(nil, tenantID, errorID, time.Time{})
	r, err := syncerror.ParseRecord(h.items[0], tenantID)
	if err != nil {
		panic(err)
	}
	return syncerror.RowID(r)
}

func (h *fakeHost) ListSyncErrors(_ context.Context, tenantID string, since time.Time, cursor string, limit int) ([]json.RawMessage, string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	var match []json.RawMessage
	for _, raw := range h.items {
		var r struct {
			TenantID   string    `json:"tenantId"`
			OccurredAt time.Time `json:"occurredAt"`
		}
		_ = json.Unmarshal(raw, &r)
		if r.TenantID == tenantID && !r.OccurredAt.Before(since) {
			match = append(match, raw)
		}
	}
	start := 0
	if cursor != "" {
		start, _ = strconv.Atoi(cursor)
	}
	end := min(start+2, len(match))
	next := ""
	if end < len(match) {
		next = strconv.Itoa(end)
	}
	return match[start:end], next, nil
}

func TestReconcilePollsTheHostERP(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	host := &fakeHost{}
	for i := 0; i < 5; i++ {
		host.add(t, "on", fmt.Sprintf("H-%d", i), clock.Add(time.Duration(i)*time.Minute))
	}
	host.add(t, "on", "H-webhook", clock)
	host.add(t, "half", "H-x", clock)
	// One of them did arrive by webhook (through the same claim path).
	whRec, err := syncerror.ParseRecord(host.items[5], "on")
	if err != nil {
		t.Fatal(err)
	}
	whID, err := (&intake.Reporter{Claims: claims, Queue: &syncerrortest.Queue{}, Now: func() time.Time { return clock }}).
		Report(context.Background(), whRec, syncerror.SourceWebhook, "wh-1")
	if err != nil {
		t.Fatal(err)
	}
	webhookClaim := syncerror.Claim{ID: whID}
	now := clock.Add(time.Hour)
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Host: host, Watermarks: claims,
		Log: discardLogger(), Now: func() time.Time { return now }, StuckAfter: 2 * time.Hour}
	rep, err := rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Polled != 6 || rep.Claimed != 5 || rep.Errors != 0 {
		t.Fatalf("report %+v", rep)
	}
	if len(queue.Sent()) != 5 || claims.Len() != 6 {
		t.Fatalf("%d sent, %d rows", len(queue.Sent()), claims.Len())
	}
	row, _ := claims.Get(context.Background(), "on", hostRowID("on", "H-3"))
	if row.Source != syncerror.SourceReconcile || row.Diagnosis != syncerror.DiagnosisQueued {
		t.Fatalf("polled row %+v", row)
	}
	if w, _ := claims.Watermark(context.Background(), "on"); !w.Equal(clock.Add(4 * time.Minute)) {
		t.Fatalf("watermark %v", w)
	}
	if got, _ := claims.Get(context.Background(), "on", webhookClaim.ID); got.Source != syncerror.SourceWebhook {
		t.Fatalf("the webhook's claim was replaced: %+v", got)
	}
	// An immediate second run changes nothing.
	rep, _ = rc.Run(context.Background())
	if rep.Claimed != 0 || rep.Requeued != 0 || len(queue.Sent()) != 5 {
		t.Fatalf("second run %+v, %d sent", rep, len(queue.Sent()))
	}
	// A new error after the watermark is picked up.
	host.add(t, "on", "H-new", clock.Add(10*time.Minute))
	rep, _ = rc.Run(context.Background())
	if rep.Claimed != 1 {
		t.Fatalf("third run %+v", rep)
	}
}

func TestReconcileOverlappingPollsClaimOnce(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	host := &fakeHost{}
	for i := 0; i < 40; i++ {
		host.add(t, "on", fmt.Sprintf("H-%d", i), clock.Add(time.Duration(i)*time.Second))
	}
	now := clock.Add(time.Hour)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Host: host, Watermarks: claims,
				Log: discardLogger(), Now: func() time.Time { return now }, StuckAfter: 2 * time.Hour}
			if _, err := rc.Run(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, m := range queue.Sent() {
		seen[m.ID]++
	}
	if claims.Len() != 40 || len(seen) != 40 {
		t.Fatalf("%d rows, %d distinct messages; want 40 and 40", claims.Len(), len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s enqueued %d times", id, n)
		}
	}
}

func TestReconcileSweepsExpiredLeases(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	audits := &audittest.Store{}
	c := readyClaim(t, claims, "on", "E-1", clock)
	held := readyClaim(t, claims, "on", "E-2", clock)
	if _, err := claims.BeginApply(context.Background(), "on", c.ID, syncerror.StatusPending, syncerror.Lease{Token: "dead", ExpiresAt: clock.Add(time.Minute)}, nil,
		syncerror.HistoryEntry{Action: "approve"}, clock); err != nil {
		t.Fatal(err)
	}
	if _, err := claims.BeginApply(context.Background(), "on", held.ID, syncerror.StatusPending, syncerror.Lease{Token: "live", ExpiresAt: clock.Add(time.Hour)}, nil,
		syncerror.HistoryEntry{Action: "approve"}, clock); err != nil {
		t.Fatal(err)
	}
	now := clock.Add(10 * time.Minute)
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: discardLogger(), Now: func() time.Time { return now },
		StuckAfter: 2 * time.Hour, Audit: &audit.Log{Store: audits, Redactor: noRedact{}}}
	rep, err := rc.Run(context.Background())
	if err != nil || rep.LeasesExpired != 1 {
		t.Fatalf("report %+v err=%v", rep, err)
	}
	row, _ := claims.Get(context.Background(), "on", c.ID)
	if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError == "" {
		t.Fatalf("swept row %+v", row)
	}
	if row, _ := claims.Get(context.Background(), "on", held.ID); row.Status != syncerror.StatusApplying {
		t.Fatalf("live lease swept: %+v", row)
	}
	recs := audits.All()
	if len(recs) != 1 || recs[0].ActionKey != "syncerror.lease_expired" || recs[0].TenantID != "on" {
		t.Fatalf("audit %+v", recs)
	}
	if rep, _ := rc.Run(context.Background()); rep.LeasesExpired != 0 || len(audits.All()) != 1 {
		t.Fatalf("second run %+v", rep)
	}
}

// The run's metrics are written whatever the log level: an alarm watches that the
// reconcile runs, and a warn level must not blind it.
func TestReconcileMetricsIgnoreTheLogLevel(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	var metrics bytes.Buffer
	quiet := slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Log: quiet, Metrics: &metrics,
		Now: func() time.Time { return clock }, StuckAfter: 2 * time.Hour}
	if _, err := rc.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(metrics.String(), `"ReconcileRuns":1`) || !strings.Contains(metrics.String(), `"CloudWatchMetrics"`) {
		t.Fatalf("metrics %q", metrics.String())
	}
}

// The reconcile gives automation records from before records carried their time their
// place in the newest-first list, for every tenant, whatever its flags; then it is done.
func TestReconcileOrdersOlderAutomationRecords(t *testing.T) {
	tenants, claims, queue := reconcileFixture(t)
	for _, tenantID := range []string{"on", "half"} {
		body := json.RawMessage(`{"claimId":"se_1","ruleId":"r","mode":"enforce","at":"2026-11-20T09:00:00Z","outcome":"applied"}`)
		if _, err := claims.PutDoc(context.Background(), tenantID, syncerror.Doc{Key: "~auto#se_1", Body: body}, clock); err != nil {
			t.Fatal(err)
		}
	}
	rc := &intake.Reconcile{Tenants: tenants, Claims: claims, Queue: queue, Docs: claims, Log: discardLogger(), Now: func() time.Time { return clock }}
	for i, want := range []int{2, 0} {
		rep, err := rc.Run(context.Background())
		if err != nil || rep.AutomationOrdered != want || rep.Errors != 0 {
			t.Fatalf("run %d: %+v %v", i, rep, err)
		}
	}
	if docs, _, _ := claims.ListDocsNewest(context.Background(), "half", "~auto#", 10, ""); len(docs) != 1 {
		t.Fatalf("listed %d", len(docs))
	}
}
