package sqsqueue

import (
	"context"
	"errors"
	"log/slog"
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
	Log      *slog.Logger
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
	resp, herr := p.Handler(ctx, ev)
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
