package eventbus_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"

	"github.com/syncassist/syncassist/shared/eventbus"
)

type client struct {
	mu     sync.Mutex
	inputs []*eventbridge.PutEventsInput
	err    error
	failed int32
}

func (c *client) PutEvents(_ context.Context, in *eventbridge.PutEventsInput, _ ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputs = append(c.inputs, in)
	if c.err != nil {
		return nil, c.err
	}
	out := &eventbridge.PutEventsOutput{FailedEntryCount: c.failed}
	if c.failed > 0 {
		out.Entries = []ebtypes.PutEventsResultEntry{{ErrorCode: aws.String("InternalFailure")}}
	}
	return out, nil
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func TestPublishPutsOneEntryOnTheBus(t *testing.T) {
	t.Parallel()
	c := &client{}
	p := &eventbus.Publisher{Client: c, BusName: "ops-bus"}
	err := p.Publish(context.Background(), eventbus.Event{Source: "syncassist.governance",
		DetailType: "OwnershipRejection", Detail: []byte(`{"tenant":"acme"}`), Time: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.inputs) != 1 || len(c.inputs[0].Entries) != 1 {
		t.Fatalf("inputs %+v", c.inputs)
	}
	ev := c.inputs[0].Entries[0]
	if aws.ToString(ev.Source) != "syncassist.governance" || aws.ToString(ev.DetailType) != "OwnershipRejection" ||
		aws.ToString(ev.EventBusName) != "ops-bus" || !aws.ToTime(ev.Time).Equal(t0) {
		t.Fatalf("entry %+v", ev)
	}
	var detail map[string]any
	if err := json.Unmarshal([]byte(aws.ToString(ev.Detail)), &detail); err != nil || detail["tenant"] != "acme" {
		t.Fatalf("detail %q: %v", aws.ToString(ev.Detail), err)
	}
}

func TestPublishDefaultBusAndTime(t *testing.T) {
	t.Parallel()
	c := &client{}
	if err := (&eventbus.Publisher{Client: c}).Publish(context.Background(), eventbus.Event{Detail: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if ev := c.inputs[0].Entries[0]; ev.EventBusName != nil || ev.Time != nil {
		t.Errorf("want the default bus and the bus's time: %+v", ev)
	}
}

// PutEvents answers 200 with per-entry failures: an event the bus refused is an error.
func TestPublishReportsFailures(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]*client{
		"call fails":   {err: errors.New("throttled")},
		"entry failed": {failed: 1},
	} {
		if err := (&eventbus.Publisher{Client: c}).Publish(context.Background(), eventbus.Event{Detail: []byte(`{}`)}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
