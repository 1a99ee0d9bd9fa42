// Package sqsqueue sends JSON messages to SQS, creates the blueprint's queues for the
// local stack, and polls a queue into a Lambda-style batch handler the way the SQS event
// source mapping does.
package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Sender sends JSON messages to one SQS queue; a feature adapts it to its own queue
// interface.
type Sender struct {
	client *sqs.Client
	url    string
}

// NewSender returns a sender for the queue URL.
func NewSender(client *sqs.Client, url string) *Sender { return &Sender{client: client, url: url} }

// SendJSON sends v, encoded as JSON, as one message.
func (s *Sender) SendJSON(ctx context.Context, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	in := &sqs.SendMessageInput{QueueUrl: aws.String(s.url), MessageBody: aws.String(string(body))}
	if id := httpapi.CorrelationID(ctx); id != "" {
		in.MessageAttributes = map[string]types.MessageAttributeValue{
			httpapi.AttributeCorrelationID: {DataType: aws.String("String"), StringValue: aws.String(id)},
		}
	}
	_, err = s.client.SendMessage(ctx, in)
	return err
}

// Created describes a queue made by CreateQueues.
type Created struct {
	URL string
	ARN string
}

// CreateOptions adjust local queues; zero values keep the blueprint's.
type CreateOptions struct {
	// VisibilityTimeout overrides every queue's visibility timeout (tests use a short one so
	// redelivery and redrive happen in seconds).
	VisibilityTimeoutSeconds int
}

// CreateQueues creates every blueprint queue for stage (dead-letter queues first) and
// returns them by logical name. Creating an existing queue with the same attributes is a
// no-op in SQS, so this is idempotent.
func CreateQueues(ctx context.Context, c *sqs.Client, stage string, opt CreateOptions) (map[string]Created, error) {
	out := map[string]Created{}
	for _, q := range blueprint.Queues {
		attrs := map[string]string{
			string(types.QueueAttributeNameMessageRetentionPeriod): strconv.Itoa(int(q.Retention.Seconds())),
		}
		vis := int(q.VisibilityTimeout.Seconds())
		if opt.VisibilityTimeoutSeconds > 0 {
			vis = opt.VisibilityTimeoutSeconds
		}
		if vis > 0 {
			attrs[string(types.QueueAttributeNameVisibilityTimeout)] = strconv.Itoa(vis)
		}
		if q.DeadLetter != nil {
			dlq, ok := out[q.DeadLetter.Name]
			if !ok {
				return nil, fmt.Errorf("queue %s: dead-letter queue %s must come first", q.Name, q.DeadLetter.Name)
			}
			policy, _ := json.Marshal(map[string]string{
				"deadLetterTargetArn": dlq.ARN,
				"maxReceiveCount":     strconv.Itoa(q.MaxReceiveCount),
			})
			attrs[string(types.QueueAttributeNameRedrivePolicy)] = string(policy)
		}
		name := blueprint.PhysicalName(stage, q.Name)
		created, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		if err != nil {
			return nil, fmt.Errorf("create queue %s: %w", name, err)
		}
		got, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       created.QueueUrl,
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("queue %s arn: %w", name, err)
		}
		out[q.Name] = Created{URL: aws.ToString(created.QueueUrl), ARN: got.Attributes[string(types.QueueAttributeNameQueueArn)]}
	}
	return out, nil
}
