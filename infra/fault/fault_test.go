package fault

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
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
	rows := RunAll(context.Background(), h, Short(), "", nil)
	var out strings.Builder
	Print(&out, rows)
	t.Log("\n" + out.String())
	if len(rows) != len(Scenarios()) {
		t.Fatalf("%d rows for %d scenarios", len(rows), len(Scenarios()))
	}
	for _, r := range rows {
		if !r.Pass() {
			t.Errorf("%s: lost %d, doubled %d, leaked %d, error %v", r.Scenario, r.Lost, r.Doubled, r.Leaked, r.Err)
		}
	}
}

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
	if d, r := createdTwice(posts, b); d != 0 || r != 0 {
		t.Errorf("honest burst: doubled %d, rejected %d", d, r)
	}
	b.Deliveries[9].Duplicate = false
	b.Deliveries[19] = Delivery{Status: http.StatusServiceUnavailable}
	if d, r := createdTwice(posts, b); d != 1 || r != 1 {
		t.Errorf("two creations of one errorId and a 503: doubled %d, rejected %d", d, r)
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
