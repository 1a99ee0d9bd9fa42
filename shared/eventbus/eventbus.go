// Package eventbus puts events on Amazon EventBridge. It is plumbing: its Event is neutral
// (source, detail type, JSON detail, time), so it knows no feature; the composition root
// adapts the guard's alert events to it (shared/platform/guarded), and only the functions
// that write through the guard link it (and the EventBridge client with it).
package eventbus

import (
	"context"
	"fmt"

	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
)

// PutEventsAPI is the part of the EventBridge client the publisher uses;
// *eventbridge.Client implements it.
type PutEventsAPI interface {
	PutEvents(ctx context.Context, in *eventbridge.PutEventsInput, optFns ...func(*eventbridge.Options)) (*eventbridge.PutEventsOutput, error)
}

var _ PutEventsAPI = (*eventbridge.Client)(nil)

// Publisher puts events on one bus.
type Publisher struct {
	Client PutEventsAPI
	// BusName is the event bus; empty is the account's default bus.
	BusName string
}

// Event is one event for the bus.
type Event struct {
	Source     string
	DetailType string
	// Detail is the event's JSON document.
	Detail []byte
	// Time is when it happened; zero lets the bus stamp it.
	Time time.Time
}

// New is a Publisher on bus with an EventBridge client of cfg at endpoint (nil: the
// service's own).
func New(cfg aws.Config, endpoint *string, bus string) *Publisher {
	client := eventbridge.NewFromConfig(cfg, func(o *eventbridge.Options) { o.BaseEndpoint = endpoint })
	return &Publisher{Client: client, BusName: bus}
}

// Publish puts e on the bus; it fails when the bus did not take it.
func (p *Publisher) Publish(ctx context.Context, e Event) error {
	entry := ebtypes.PutEventsRequestEntry{
		Source:     aws.String(e.Source),
		DetailType: aws.String(e.DetailType),
		Detail:     aws.String(string(e.Detail)),
		Resources:  []string{},
	}
	if !e.Time.IsZero() {
		entry.Time = aws.Time(e.Time)
	}
	if p.BusName != "" {
		entry.EventBusName = aws.String(p.BusName)
	}
	out, err := p.Client.PutEvents(ctx, &eventbridge.PutEventsInput{Entries: []ebtypes.PutEventsRequestEntry{entry}})
	if err != nil {
		return err
	}
	// PutEvents answers 200 with per-entry failures; an unchecked one is a silent loss.
	if out != nil && out.FailedEntryCount > 0 {
		code := ""
		if len(out.Entries) > 0 {
			code = aws.ToString(out.Entries[0].ErrorCode)
		}
		return fmt.Errorf("event bus refused the event (code %q)", code)
	}
	return nil
}
