package flow_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// startFails is the flows table refusing to start runs (throttled, unreachable).
type startFails struct{ *flow.DynamoStore }

func (startFails) StartRuns(context.Context, string, connector.System, string, []flow.Run) (flow.Started, error) {
	return flow.Started{}, errors.New("ProvisionedThroughputExceededException: rate of requests exceeds the allowed throughput")
}

// A changed record's id can be personal data: Mailchimp's changes name a member by its
// e-mail address. A poll that cannot start the change's runs logs why; the line names the
// source, never the record's id (the poll's own event ids are hashed for the same reason).
func TestPollFailureLogDoesNotNameTheRecordID(t *testing.T) {
	const email = "jane.doe@example.com"
	rig := newPollRig(t, 10, 0)
	rig.poller.Exec.Store = startFails{rig.store}
	rig.src.add(email, t0.Add(time.Second), map[string]any{"Phone": "+1"})
	var logs bytes.Buffer
	ctx := httpapi.WithCorrelation(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)), "corr-1")
	rig.now = rig.now.Add(time.Minute)
	rep, _ := rig.poller.Poll(ctx, "t1")
	if rep.Failed != 1 {
		t.Fatalf("poll %+v, want the source failed", rep)
	}
	if !strings.Contains(logs.String(), "flow poll failed") {
		t.Fatalf("no failure logged:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), email) {
		t.Errorf("the log names the record's id:\n%s", logs.String())
	}
	if w := rig.watermark(t); strings.Contains(w.Error, email) {
		t.Errorf("watermark error %q names the record's id", w.Error)
	}
}
