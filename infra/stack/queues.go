package stack

import (
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/syncassist/syncassist/shared/blueprint"
)

// QueuesProps configures NewQueues.
type QueuesProps struct {
	Stage  string
	Queues []blueprint.Queue
}

// Queues holds one SQS queue per blueprint queue.
type Queues struct {
	constructs.Construct
	byName      map[string]awssqs.Queue
	order       []string
	deadLetters []string
}

// NewQueues creates the queues with SQS-managed encryption, TLS-only access and the
// blueprint's redrive to a dead-letter queue.
func NewQueues(scope constructs.Construct, id string, props *QueuesProps) *Queues {
	c := &Queues{Construct: constructs.NewConstruct(scope, jsii.String(id)), byName: map[string]awssqs.Queue{}}
	declared := map[string]blueprint.Queue{}
	for _, q := range props.Queues {
		declared[q.Name] = q
	}
	isDLQ := map[string]bool{}
	for _, q := range props.Queues {
		if q.DeadLetter != nil {
			isDLQ[q.DeadLetter.Name] = true
		}
	}

	// Created depth-first so a queue's DLQ exists before the queue whatever the order of
	// the blueprint list.
	var create func(q blueprint.Queue) awssqs.Queue
	create = func(q blueprint.Queue) awssqs.Queue {
		if existing, ok := c.byName[q.Name]; ok {
			return existing
		}
		qp := &awssqs.QueueProps{
			QueueName:  jsii.String(blueprint.PhysicalName(props.Stage, q.Name)),
			Encryption: awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL: jsii.Bool(true),
		}
		if q.VisibilityTimeout > 0 {
			qp.VisibilityTimeout = seconds(q.VisibilityTimeout)
		}
		if q.Retention > 0 {
			qp.RetentionPeriod = seconds(q.Retention)
		}
		if q.DeadLetter != nil {
			dl := *q.DeadLetter
			if d, ok := declared[dl.Name]; ok {
				dl = d
			}
			qp.DeadLetterQueue = &awssqs.DeadLetterQueue{
				Queue:           create(dl),
				MaxReceiveCount: jsii.Number(float64(q.MaxReceiveCount)),
			}
		}
		queue := awssqs.NewQueue(c.Construct, jsii.String(constructID(q.Name)), qp)
		c.byName[q.Name] = queue
		c.order = append(c.order, q.Name)
		if isDLQ[q.Name] {
			c.deadLetters = append(c.deadLetters, q.Name)
		}
		return queue
	}
	for _, q := range props.Queues {
		create(q)
	}
	return c
}

// Queue returns the queue for a blueprint queue name, or nil when none was declared.
func (c *Queues) Queue(name string) awssqs.Queue { return c.byName[name] }

// Names lists the created queues' blueprint names, each DLQ before its source queue.
func (c *Queues) Names() []string { return append([]string(nil), c.order...) }

// DeadLetterNames lists the blueprint names of the queues that serve as a dead-letter queue.
func (c *Queues) DeadLetterNames() []string { return append([]string(nil), c.deadLetters...) }
