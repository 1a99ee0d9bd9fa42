package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// BatchHandler is a Lambda SQS handler that reports partial batch failures.
type BatchHandler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Poller stands in for the Lambda SQS event source mapping on one machine: it receives
// batches, hands them to the handler as an events.SQSEvent, and deletes the messages that
// did not fail. Failed messages stay and come back after the visibility timeout; the
// queue's redrive policy moves them to the DLQ after maxReceiveCount, exactly as in AWS.
// A handler error fails the whole batch, as it does in Lambda.
type Poller struct {
	Client    *sqs.Client
	QueueURL  string
	QueueARN  string
	Handler   BatchHandler
	BatchSize int32
	// WaitTime is the long-poll wait; zero means 1 s so shutdown stays quick.
	WaitTime time.Duration
	// Visibility is the queue's visibility timeout. When set, a batch's messages are kept in
	// flight while the handler runs (made invisible for Visibility again every third of it),
	// as they are under Lambda: AWS refuses an event source mapping whose queue's visibility
	// timeout is shorter than the function's timeout, so no message comes back while its
	// invocation still runs. A test's short timeout (2 s in the fault suite) is shorter than
	// a batch on a loaded machine: run 156 (2026-12-02) saw a message received again and
	// again while its batches ran, until it moved to the DLQ with its claim diagnosed.
	// A failed message still comes back at most Visibility after the handler returned.
	Visibility time.Duration
	Log        *slog.Logger
}

// Run polls until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if _, err := p.PollOnce(ctx); err != nil && ctx.Err() == nil {
			p.log().Error("sqs poll failed", "queue", p.QueueURL, "error", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// PollOnce receives at most one batch, handles it and deletes the successes. It returns how
// many messages it received.
func (p *Poller) PollOnce(ctx context.Context) (int, error) {
	size := p.BatchSize
	if size <= 0 || size > 10 {
		size = 10
	}
	wait := p.WaitTime
	if wait <= 0 {
		wait = time.Second
	}
	out, err := p.Client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    aws.String(p.QueueURL),
		MaxNumberOfMessages:         size,
		WaitTimeSeconds:             int32(wait / time.Second),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return 0, err
	}
	if len(out.Messages) == 0 {
		return 0, nil
	}
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(out.Messages))}
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:         aws.ToString(m.MessageId),
			ReceiptHandle:     aws.ToString(m.ReceiptHandle),
			Body:              aws.ToString(m.Body),
			Md5OfBody:         aws.ToString(m.MD5OfBody),
			Attributes:        m.Attributes,
			MessageAttributes: messageAttributes(m.MessageAttributes),
			EventSource:       "aws:sqs",
			EventSourceARN:    p.QueueARN,
		})
	}
	resp, herr := p.handle(ctx, ev)
	if herr != nil {
		p.log().Error("batch handler failed; the whole batch will be redelivered", "error", herr)
		return len(out.Messages), nil
	}
	failed := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	var errs []error
	for _, r := range ev.Records {
		if failed[r.MessageId] {
			continue
		}
		_, err := p.Client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(p.QueueURL), ReceiptHandle: aws.String(r.ReceiptHandle)})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return len(out.Messages), errors.Join(errs...)
}

// handle runs the handler with the batch kept in flight until it returns (or panics).
func (p *Poller) handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	defer p.keepInFlight(ctx, ev.Records)()
	return p.Handler(ctx, ev)
}

// keepInFlight makes the records invisible for p.Visibility again every third of it until
// the returned stop is called; with no Visibility it does nothing. A failed extension is
// logged only: the message comes back as it would have without it.
func (p *Poller) keepInFlight(ctx context.Context, records []events.SQSMessage) (stop func()) {
	if p.Visibility <= 0 {
		return func() {}
	}
	seconds := int32(max(1, p.Visibility/time.Second))
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(records))
	for i, r := range records {
		entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(strconv.Itoa(i)),
			ReceiptHandle: aws.String(r.ReceiptHandle), VisibilityTimeout: seconds}
	}
	// Stopping cancels an extension under way: the handler's answer is not held up by a
	// queue that does not answer.
	beat, cancel := context.WithCancel(ctx)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(p.Visibility / 3)
		defer tick.Stop()
		for {
			select {
			case <-beat.Done():
				return
			case <-tick.C:
			}
			out, err := p.Client.ChangeMessageVisibilityBatch(beat, &sqs.ChangeMessageVisibilityBatchInput{
				QueueUrl: aws.String(p.QueueURL), Entries: entries})
			if err == nil && len(out.Failed) > 0 {
				err = fmt.Errorf("%d of %d messages: %s", len(out.Failed), len(entries), aws.ToString(out.Failed[0].Message))
			}
			if err != nil && beat.Err() == nil {
				p.log().Warn("messages in flight not kept invisible; they may be delivered again", "queue", p.QueueURL, "error", err)
			}
		}
	}()
	return func() { cancel(); <-ended }
}

func (p *Poller) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// messageAttributes are the message's string attributes as Lambda's SQS event shows them.
func messageAttributes(in map[string]types.MessageAttributeValue) map[string]events.SQSMessageAttribute {
	if len(in) == 0 {
		return nil
	}
	out := make(map[string]events.SQSMessageAttribute, len(in))
	for k, v := range in {
		out[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
	}
	return out
}
