// Package sqsqueue creates the blueprint's queues for the local stack and polls a queue
// into a Lambda-style batch handler the way the SQS event source mapping does, on the
// SDK's SQS client. Functions send with package sqsjson, which does not link that client.
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
)

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
