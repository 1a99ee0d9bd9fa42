package connector_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// A write whose answer is lost (the system applied it, then answered after the client's
// timeout) is not sent again: the next try reads the record first, finds the values in
// place and reports the write done — once applied, not Replayed (this call's own request
// put the values there), and not a conflict with the version that request changed. The
// client used to resend the PATCH itself, so a slow system applied every such write twice
// (seen as a second ERP write under 20 concurrent approves on a loaded machine).
func TestWriteWhoseAnswerWasLostIsAppliedOnce(t *testing.T) {
	t.Parallel()
	for _, sys := range []connector.System{connector.SystemHostERP, connector.SystemERP2} {
		t.Run(string(sys), func(t *testing.T) {
			t.Parallel()
			fake, c := startFake(t, sys, func(cfg *connector.Config) { cfg.Timeout = 200 * time.Millisecond })
			fake.Seed("customer", "C-1", map[string]any{"credit": 1})
			fake.DelayNext(1, 0)                    // the write's read answers at once
			fake.DelayNext(1, 600*time.Millisecond) // the PATCH is applied, its answer comes too late
			res, err := c.Write(context.Background(), write("k-lost", map[string]any{"credit": 2}))
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			if got := fake.WriteCount(); got != 1 {
				t.Fatalf("%d writes applied, want 1: %+v", got, fake.Writes())
			}
			if res.Replayed || fmt.Sprint(res.Record.Fields["credit"]) != "2" {
				t.Fatalf("result %+v, want the record with credit 2, not Replayed", res)
			}
		})
	}
}
