package fault

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// TestShortSuite is the short version `make test` runs: every scenario at small sizes on
// real emulators. It checks counts only (lost, doubled, leaked, exactly-one claims, DLQ),
// never a rate or a latency, so a slow machine does not fail it.
func TestShortSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the emulators; -short skips it")
	}
	h, err := StartHarness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// Each scenario's time goes into the log with the table: what a failing or slow CI
	// run shows of the suite.
	var out strings.Builder
	rows := RunAll(context.Background(), h, Short(), "", &out)
	Print(&out, rows)
	t.Log("\n" + out.String())
	if len(rows) != len(Scenarios()) {
		t.Fatalf("%d rows for %d scenarios", len(rows), len(Scenarios()))
	}
	for _, r := range rows {
		if r.Scenario == "rate-budget" {
			suiteRateBudget = &r
		}
		if !r.Pass() {
			t.Errorf("%s: lost %d, doubled %d, leaked %d, error %v", r.Scenario, r.Lost, r.Doubled, r.Leaked, r.Err)
		}
	}
}

// suiteRateBudget is the short suite's rate-budget row, nil until TestShortSuite ran in
// this process: TestRateBudgetScenario judges it rather than run the same scenario at the
// same sizes again (8.5 CPU-s and a harness of its own under -race).
var suiteRateBudget *Row

// The checks themselves must be able to fail: a canary in a log line is found, a second
// "created" answer for one errorId is counted, and a duplicate post is not one.
func TestChecksCanFail(t *testing.T) {
	st := &Stage{Secret: "whsec_c2VjcmV0LWtleS1mb3ItdGhlLWZhdWx0LXN1aXRl"}
	line := `{"level":"INFO","msg":"x","card":"4111111111111111","key":"c2VjcmV0LWtleS1mb3ItdGhlLWZhdWx0LXN1aXRl"}`
	if n := countLeaks(line, st.canaries()); n != 2 {
		t.Errorf("countLeaks = %d, want 2", n)
	}
	if n := countLeaks(`{"msg":"clean"}`, st.canaries()); n != 0 {
		t.Errorf("clean line: %d leaks", n)
	}
	posts, unique := makePosts("T", 20)
	if len(unique) != 18 || posts[9].ErrorID != posts[4].ErrorID {
		t.Fatalf("makePosts: %d unique, post 9 repeats %s", len(unique), posts[9].ErrorID)
	}
	b := &Burst{Deliveries: make([]Delivery, len(posts))}
	for i := range b.Deliveries {
		b.Deliveries[i] = Delivery{Status: http.StatusAccepted, Duplicate: i%dupEvery == dupEvery-1}
	}
	if d, r := createdTwice(posts, b); len(d) != 0 || r != 0 {
		t.Errorf("honest burst: doubled %v, rejected %d", d, r)
	}
	// The stored rows: each written once, by the post answered as created.
	stored := map[string]syncerror.Claim{}
	for i, p := range posts {
		if !b.Deliveries[i].Duplicate {
			stored[p.ErrorID] = syncerror.Claim{WebhookID: p.MsgID, History: []syncerror.HistoryEntry{{Action: "claimed"}}}
		}
	}
	if d := storedTwice(posts, b, stored); len(d) != 0 {
		t.Errorf("honest rows: doubled %v", d)
	}
	// A put that overwrote: the row of post 4's errorId was written by post 9, and post 9
	// was answered created too; a row claimed twice in its history.
	stored[posts[4].ErrorID] = syncerror.Claim{WebhookID: posts[9].MsgID, History: stored[posts[4].ErrorID].History}
	stored[posts[0].ErrorID] = syncerror.Claim{WebhookID: posts[0].MsgID,
		History: []syncerror.HistoryEntry{{Action: "claimed"}, {Action: "claimed"}}}
	if d := storedTwice(posts, b, stored); len(d) != 2 {
		t.Errorf("an overwritten row and a twice-claimed one: doubled %v", d)
	}
	b.Deliveries[9].Duplicate = false
	b.Deliveries[19] = Delivery{Status: http.StatusServiceUnavailable}
	if d, r := createdTwice(posts, b); len(d) != 1 || r != 1 {
		t.Errorf("two creations of one errorId and a 503: doubled %v, rejected %d", d, r)
	}
	// The queue: a claim handed two distinct messages was enqueued twice; a redelivery of
	// one message is not.
	enq := &enqueued{msgs: map[string]map[string]bool{}}
	handle := enq.wrap(func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, nil
	})
	body := func(errorID string) string {
		return `{"tenantId":"` + tenantID + `","id":"` + rowIDOf(errorID) + `"}`
	}
	for _, m := range []events.SQSMessage{{MessageId: "m1", Body: body("A")}, {MessageId: "m1", Body: body("A")},
		{MessageId: "m2", Body: body("B")}, {MessageId: "m3", Body: body("B")}} {
		_, _ = handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m}})
	}
	if d := enq.multiple([]string{"A", "B"}); len(d) != 1 || d[0] != "B" {
		t.Errorf("enqueued twice: %v, want [B]", d)
	}
}

// A kill that left the emulator listening is caught.
func TestRefuses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String()
	if refuses(endpoint) == nil {
		t.Error("a listening endpoint was taken for dead")
	}
	ln.Close()
	if err := refuses(endpoint); err != nil {
		t.Error(err)
	}
}

func TestThrottleOutageEnds(t *testing.T) {
	now := time.Now()
	out := throttleOutage(now.Add(time.Second))
	seen := map[int]bool{}
	for n := range 3 {
		status, wait := out(now, n)
		seen[status] = true
		if (status == http.StatusTooManyRequests) != (wait > 0) {
			t.Errorf("status %d with Retry-After %s", status, wait)
		}
	}
	if !seen[429] || !seen[503] || !seen[500] || len(seen) != 3 {
		t.Errorf("statuses %v", seen)
	}
	if status, _ := out(now.Add(time.Second), 0); status != 0 {
		t.Errorf("after the window: %d", status)
	}
}

// The ERP checks count by record: a write never applied is lost; a second applied write
// (under any key) or a second 2xx write request (an idempotent replay) is doubled.
func TestCountWrites(t *testing.T) {
	var row Row
	applied := map[string]int{"A": 1, "B": 2, "C": 1}
	answered := map[string]int{"A": 1, "B": 2, "C": 2}
	countWrites(&row, []string{"A", "B", "C", "D"}, applied, answered)
	if row.Lost != 1 || row.Doubled != 2 {
		t.Errorf("lost %d, doubled %d; want 1 and 2", row.Lost, row.Doubled)
	}
}
