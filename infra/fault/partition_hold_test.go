package fault

import (
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/platform"
)

// The hot partition's limits are lowered while too few ingest answers were 5xx, and put
// back once enough were; enough already, they are left alone.
func TestHoldUntilSeen(t *testing.T) {
	h := &Harness{Logs: &syncBuffer{}}
	old := emf.Out
	emf.Out = h.Logs
	defer func() { emf.Out = old }()
	pt, err := StartPartitionThrottle("http://127.0.0.1:1", "hot", 8, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Close()
	answer5xx := func(n int) {
		for range n {
			emf.Emit(emf.Metric{Time: time.Now(), Dimensions: []string{"journey", "class"},
				Counts: map[string]float64{platform.MetricRequests: 1},
				Fields: map[string]any{"journey": platform.JourneyIngest, "class": "5xx"}})
		}
	}
	go func() { time.Sleep(1500 * time.Millisecond); answer5xx(3) }()
	note := pt.holdUntilSeen(h, 0, 8, 4, 3)
	if !strings.Contains(note, "lowered to") || pt.RCU != 8 || pt.WCU != 4 {
		t.Errorf("note %q, limits after %v/%v; want lowered, then 8/4 again", note, pt.RCU, pt.WCU)
	}
	if note := pt.holdUntilSeen(h, 0, 8, 4, 3); note != "" || pt.RCU != 8 {
		t.Errorf("enough 5xx already: note %q, RCU %v", note, pt.RCU)
	}
}
