package diagnosis_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestWorkerReportsOnlyFailedMessages(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	ok := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
	done := syncerrortest.Claimed(t, store, "acme", "E-2", clock)
	w := &diagnosis.Worker{Claims: store, Diagnoser: &fakeDiagnoser{}, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock.Add(time.Second) }}
	// E-2 is already being diagnosed by another delivery: its copy is redundant, not a failure.
	if _, err := store.BeginDiagnosis(context.Background(), "acme", done.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	ev := events.SQSEvent{Records: []events.SQSMessage{
		syncerrortest.SQSMessage("m-ok", `{"tenantId":"acme","id":"`+ok.ID+`"}`),
		syncerrortest.SQSMessage("m-garbage", `not json`),
		syncerrortest.SQSMessage("m-no-id", `{"tenantId":"acme"}`),
		syncerrortest.SQSMessage("m-missing-row", `{"tenantId":"acme","id":"se_nothere"}`),
		syncerrortest.SQSMessage("m-redundant", `{"tenantId":"acme","id":"`+done.ID+`"}`),
	}}
	resp, err := w.HandleBatch(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	want := []string{"m-garbage", "m-no-id", "m-missing-row"}
	if len(failed) != len(want) {
		t.Fatalf("failed %v, want %v", failed, want)
	}
	for i := range want {
		if failed[i] != want[i] {
			t.Fatalf("failed %v, want %v", failed, want)
		}
	}
	row, _ := store.Get(context.Background(), "acme", ok.ID)
	if row.Diagnosis != syncerror.DiagnosisReady || row.DiagnosisAttempts != 1 || row.Proposal == nil {
		t.Fatalf("row %+v, want ready after attempt 1", row)
	}
}

func TestWorkerStoreErrorFailsTheMessage(t *testing.T) {
	w := &diagnosis.Worker{Claims: brokenClaims{}, Diagnoser: &fakeDiagnoser{}, Log: slog.New(slog.DiscardHandler)}
	resp, err := w.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{syncerrortest.SQSMessage("m1", `{"tenantId":"acme","id":"se_x"}`)}})
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("resp %+v err=%v", resp, err)
	}
}

func TestWorkerTakesOverStaleDiagnosis(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	c := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
	if _, err := store.BeginDiagnosis(context.Background(), "acme", c.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	w := &diagnosis.Worker{Claims: store, Diagnoser: &fakeDiagnoser{}, Log: slog.New(slog.DiscardHandler), StaleAfter: time.Minute,
		Now: func() time.Time { return clock.Add(2 * time.Minute) }}
	resp, _ := w.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{syncerrortest.SQSMessage("m1", `{"tenantId":"acme","id":"`+c.ID+`"}`)}})
	row, _ := store.Get(context.Background(), "acme", c.ID)
	if len(resp.BatchItemFailures) != 0 || row.DiagnosisAttempts != 2 {
		t.Fatalf("resp %+v row %+v, want takeover as attempt 2", resp, row)
	}
}

type brokenClaims struct{ syncerror.ClaimStore }

func (brokenClaims) BeginDiagnosis(context.Context, string, string, time.Time, time.Time) (syncerror.Claim, error) {
	return syncerror.Claim{}, errors.New("throttled")
}

// fakeDiagnoser answers a proposal, or the next error of errs, and counts its calls.
type fakeDiagnoser struct {
	mu    sync.Mutex
	errs  []error
	calls []string
}

func (f *fakeDiagnoser) Diagnose(_ context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, inferenceID)
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		if err != nil {
			return syncerror.Proposal{}, err
		}
	}
	return syncerrortest.SampleProposal(inferenceID, clock), nil
}

func TestWorkerDiagnosisOutcomes(t *testing.T) {
	transient := errors.New("provider timed out")
	permanent := &syncerror.PermanentError{Reason: "the model answered something unparseable"}
	cases := []struct {
		name      string
		errs      []error
		runs      int
		diagnosis syncerror.Diagnosis
		failures  int // messages reported failed over all runs
		reason    string
	}{
		{"success", nil, 1, syncerror.DiagnosisReady, 0, ""},
		{"permanent failure ends it", []error{permanent}, 1, syncerror.DiagnosisFailed, 0, permanent.Reason},
		{"transient failure is retried, then succeeds", []error{transient}, 2, syncerror.DiagnosisReady, 1, ""},
		{"transient failures give up after the cap", []error{transient, transient, transient, transient, transient}, diagnosis.MaxDiagnosisAttempts,
			syncerror.DiagnosisFailed, diagnosis.MaxDiagnosisAttempts - 1, "gave up after 5 attempts; last: temporary failure"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := syncerrortest.NewClaimStore()
			c := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
			d := &fakeDiagnoser{errs: tc.errs}
			w := &diagnosis.Worker{Claims: store, Diagnoser: d, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }}
			failures := 0
			for i := 0; i < tc.runs; i++ {
				failures += len(syncerrortest.RunOne(t, w, c).BatchItemFailures)
			}
			row, _ := store.Get(context.Background(), "acme", c.ID)
			if row.Diagnosis != tc.diagnosis || failures != tc.failures || row.DiagnosisError != tc.reason {
				t.Fatalf("diagnosis %s, %d failed messages, reason %q; want %s, %d, %q", row.Diagnosis, failures, row.DiagnosisError,
					tc.diagnosis, tc.failures, tc.reason)
			}
			if tc.diagnosis == syncerror.DiagnosisReady && (row.Proposal == nil || row.Proposal.InferenceID != syncerror.InferenceID(c.ID, tc.runs)) {
				t.Fatalf("proposal %+v", row.Proposal)
			}
			if len(d.calls) != tc.runs {
				t.Fatalf("%d diagnoses for %d deliveries", len(d.calls), tc.runs)
			}
		})
	}
}

func TestWorkerRedeliveryIsIdempotent(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	c := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
	d := &fakeDiagnoser{}
	w := &diagnosis.Worker{Claims: store, Diagnoser: d, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }}
	for i := 0; i < 3; i++ {
		if resp := syncerrortest.RunOne(t, w, c); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("delivery %d failed", i)
		}
	}
	row, _ := store.Get(context.Background(), "acme", c.ID)
	if len(d.calls) != 1 || row.DiagnosisAttempts != 1 || row.Diagnosis != syncerror.DiagnosisReady {
		t.Fatalf("%d diagnoses, row %+v; want one", len(d.calls), row)
	}
}

// gatedDiagnoser records how many diagnoses run at once; each waits for release.
type gatedDiagnoser struct {
	mu            sync.Mutex
	running, peak int
	release       chan struct{}
}

func (g *gatedDiagnoser) Diagnose(_ context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	g.mu.Lock()
	g.running++
	g.peak = max(g.peak, g.running)
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	g.running--
	g.mu.Unlock()
	return syncerrortest.SampleProposal(inferenceID, clock), nil
}

func TestWorkerDiagnosesABatchInParallel(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	var records []events.SQSMessage
	for i := 0; i < 8; i++ {
		c := syncerrortest.Claimed(t, store, "acme", "E-"+strconv.Itoa(i), clock)
		records = append(records, syncerrortest.SQSMessage("m"+strconv.Itoa(i), `{"tenantId":"acme","id":"`+c.ID+`"}`))
	}
	g := &gatedDiagnoser{release: make(chan struct{})}
	w := &diagnosis.Worker{Claims: store, Diagnoser: g, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }, Parallel: 3}
	done := make(chan events.SQSEventResponse)
	go func() {
		resp, _ := w.HandleBatch(context.Background(), events.SQSEvent{Records: records})
		done <- resp
	}()
	// Three diagnoses start before any finishes; a fourth never runs beside them.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		running := g.running
		g.mu.Unlock()
		if running == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d diagnoses running at once, want 3", running)
		}
	}
	for i := 0; i < 8; i++ {
		g.release <- struct{}{}
	}
	resp := <-done
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %+v", resp.BatchItemFailures)
	}
	if g.peak != 3 {
		t.Fatalf("peak concurrency %d, want 3", g.peak)
	}
}

func TestWorkerHandsBackWhatItCannotStartBeforeTheDeadline(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	c := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
	d := &fakeDiagnoser{}
	w := &diagnosis.Worker{Claims: store, Diagnoser: d, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return clock }, MinTimeLeft: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := w.HandleBatch(ctx, events.SQSEvent{Records: []events.SQSMessage{syncerrortest.SQSMessage("m1", `{"tenantId":"acme","id":"`+c.ID+`"}`)}})
	if err != nil || len(resp.BatchItemFailures) != 1 || len(d.calls) != 0 {
		t.Fatalf("resp %+v err=%v calls %d: want the message handed back untouched", resp, err, len(d.calls))
	}
	if row, _ := store.Get(context.Background(), "acme", c.ID); row.Diagnosis != syncerror.DiagnosisQueued {
		t.Fatalf("row %s, want still queued", row.Diagnosis)
	}
}

// The worker acknowledges a switched-off tenant's message without diagnosing: the row
// stays queued for when the tenant is back on.
func TestSwitchedOffTenantIsNotDiagnosed(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	c := syncerrortest.Claimed(t, store, "acme", "E-1", clock)
	d := &fakeDiagnoser{}
	w := &diagnosis.Worker{Claims: store, Diagnoser: d, Tenants: syncerrortest.TenantsWith(t, "false"), Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return clock }}
	resp, err := w.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		syncerrortest.SQSMessage("m1", `{"tenantId":"acme","id":"`+c.ID+`"}`)}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if row, _ := store.Get(context.Background(), "acme", c.ID); row.Diagnosis != syncerror.DiagnosisQueued || len(d.calls) != 0 {
		t.Fatalf("diagnosis %s after %d calls", row.Diagnosis, len(d.calls))
	}
}
