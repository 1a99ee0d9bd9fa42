package fault

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/infra/oncall"
)

// Row is one scenario's figures. Rates and latencies are printed, never checked; the
// counts are the checks.
type Row struct {
	Scenario string
	// Ops counts what the scenario drove: posts, deliveries or approves.
	Ops int
	// Rate is Ops per second held over the scenario's load phase (0: not a load).
	Rate     float64
	P50, P99 time.Duration
	// Retried counts 5xx answers and failed connections that the sender (or the approver)
	// retried.
	Retried               int
	Lost, Doubled, Leaked int
	Note                  string
	// Err is the first failed check; nil means every check passed.
	Err error
	// Drill is what the scenario's EMF lines burned and would alarm (package oncall).
	Drill string
}

// Pass says every check of the row held.
func (r Row) Pass() bool { return r.Err == nil && r.Lost == 0 && r.Doubled == 0 && r.Leaked == 0 }

// latencies fills the row's rate and percentiles from a measurement, with every request's
// latency (retries included) for the percentiles.
func (r *Row) latencies(res loadgen.Result, requests []time.Duration) {
	r.Ops, r.Rate = res.N, res.Rate()
	q := loadgen.Result{Lat: requests}
	r.P50, r.P99 = q.Quantile(0.5), q.Quantile(0.99)
}

// fakeRun is a measurement of n operations over elapsed, for rows whose latencies are
// kept elsewhere.
func fakeRun(n int, elapsed time.Duration) loadgen.Result {
	return loadgen.Result{N: n, Elapsed: elapsed}
}

// failf records a failed check; the first one stands.
func (r *Row) failf(format string, args ...any) {
	if r.Err == nil {
		r.Err = fmt.Errorf(format, args...)
	}
}

// Print writes the table and, under it, each row's note and failure.
func Print(w io.Writer, rows []Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tops\tops/s\tp50 ms\tp99 ms\tretried\tlost\tdoubled\tleaked\tresult\t")
	for _, r := range rows {
		rate, p50, p99 := "-", "-", "-"
		if r.Rate > 0 {
			rate = fmt.Sprintf("%.0f", r.Rate)
		}
		if r.P50 > 0 {
			p50, p99 = fmt.Sprintf("%.2f", loadgen.MS(r.P50)), fmt.Sprintf("%.2f", loadgen.MS(r.P99))
		}
		result := "PASS"
		if !r.Pass() {
			result = "FAIL"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t\n", r.Scenario, r.Ops, rate, p50, p99, r.Retried,
			r.Lost, r.Doubled, r.Leaked, result)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%s: %s\n", r.Scenario, r.Note)
		if r.Drill != "" {
			fmt.Fprintf(w, "%s: on call: %s\n", r.Scenario, r.Drill)
		}
		if r.Err != nil {
			fmt.Fprintf(w, "%s: FAILED: %v\n", r.Scenario, r.Err)
		}
	}
}

// Config sizes the scenarios.
type Config struct {
	Posts, Conc int
	// Outage is how long an emulator stays dead.
	Outage time.Duration
	// RedeliveryClaims are the claims whose message is delivered Redeliveries times.
	RedeliveryClaims, Redeliveries int
	// CrashItems are the approves of each feature stopped after their ERP write.
	CrashItems int
	// ThrottleWindow is how long the fake ERP answers 429 and 5xx; ThrottleApprovals
	// are the finance approvals approved meanwhile.
	ThrottleWindow    time.Duration
	ThrottleApprovals int
	// PartitionWCU and PartitionRCU are the hot tenant's per-partition limits in
	// partition-throttle; ColdPosts are the other tenant's posts beside its burst.
	PartitionWCU, PartitionRCU float64
	ColdPosts                  int
	// PartitionApproves are the hot tenant's claims approved at once after its burst.
	PartitionApproves int
}

// Full is what issue 17 asks for: 2,000 posts at c=32, a minute of 429/5xx.
func Full() Config {
	return Config{Posts: 2000, Conc: 32, Outage: 2 * time.Second, RedeliveryClaims: 50, Redeliveries: 5,
		CrashItems: 4, ThrottleWindow: time.Minute, ThrottleApprovals: 20,
		// DynamoDB's partition limits scaled to the emulator, which serves this burst at
		// 70–600 posts/s here against DynamoDB's thousands: at the documented limits the
		// burst never reached them (measured: 0 throttled in 31,597 requests).
		PartitionWCU: PartitionWCU / 10, PartitionRCU: PartitionRCU / 10, ColdPosts: 100, PartitionApproves: 20}
}

// Short is the version `make test` runs: the same scenarios and checks, small sizes.
func Short() Config {
	return Config{Posts: 200, Conc: 16, Outage: 500 * time.Millisecond, RedeliveryClaims: 5, Redeliveries: 5,
		CrashItems: 2, ThrottleWindow: 3 * time.Second, ThrottleApprovals: 4,
		// The partition limits scaled down with the burst (10 times smaller, at half the
		// concurrency), so that it still overruns them.
		PartitionWCU: PartitionWCU / 25, PartitionRCU: PartitionRCU / 25, ColdPosts: 10, PartitionApproves: 4}
}

// Scenario is one fault scenario: it builds its own stage on h and stops what it starts.
type Scenario struct {
	Name string
	Run  func(ctx context.Context, h *Harness, cfg Config) Row
	// Trips are the objectives (fast burn) and the alarm kinds the scenario's fault must
	// set off, judged from its EMF lines: the drill of each (drill.go).
	Trips []string
}

// Scenarios are every scenario of the suite, in the order.
func Scenarios() []Scenario {
	return []Scenario{
		{Name: "burst", Run: runBurst},
		// The kill lasts until the posts saw enough 5xx to burn (drill_outage.go).
		{Name: "dynamodb-restart", Run: runDynamoRestart, Trips: []string{oncall.IngestAccepted.Name}},
		{Name: "sqs-kill", Run: runSQSKill},
		{Name: "diagnosis-backlog", Run: runDiagnosisBacklog, Trips: []string{oncall.DiagnosisOnTime.Name}},
		{Name: "sqs-redelivery", Run: runRedelivery},
		{Name: "crash-after-erp-write", Run: runCrash},
		{Name: "erp-429-5xx", Run: runThrottle, Trips: []string{oncall.ApproveWriteBack.Name, oncall.ApproveFailures.Name}},
		{Name: "partition-throttle", Run: runPartitionThrottle, Trips: []string{oncall.IngestAccepted.Name}},
		{Name: "rate-budget", Run: runRateBudget},
	}
}

// RunAll runs the scenarios whose name contains only (all when empty) and returns
// their rows; progress, when not nil, is told when each starts and how it ended.
func RunAll(ctx context.Context, h *Harness, cfg Config, only string, progress io.Writer) []Row {
	if progress == nil {
		progress = io.Discard
	}
	var rows []Row
	for _, s := range Scenarios() {
		if only != "" && !strings.Contains(s.Name, only) {
			continue
		}
		fmt.Fprintf(progress, "fault: %s ...\n", s.Name)
		start, logStart := time.Now(), h.Logs.Len()
		row := s.Run(ctx, h, cfg)
		row.Scenario = s.Name
		row.Note += fmt.Sprintf(" Leak scan: %d KB of logs and EMF lines.", (h.Logs.Len()-logStart)/1024)
		drill(&row, s, h.Logs.From(logStart))
		fmt.Fprintf(progress, "fault: %s %s in %s\n", s.Name, map[bool]string{true: "passed", false: "FAILED"}[row.Pass()],
			time.Since(start).Round(100*time.Millisecond))
		rows = append(rows, row)
	}
	return rows
}
