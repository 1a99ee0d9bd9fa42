package eventbus_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/eventbus"
)

// On moto's EventBridge, a published alert reaches a subscriber: a rule on the bus that
// matches the guard's source delivers it, detail intact, to an SQS queue.
func TestPublishReachesASubscriberOnMoto(t *testing.T) {
	ctx := context.Background()
	moto, err := emulators.StartMoto(ctx, emulators.MotoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(moto.Stop)
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(moto.Endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	eb, sq := eventbridge.NewFromConfig(cfg), sqs.NewFromConfig(cfg)
	const bus = "test-alerts"
	if _, err := eb.CreateEventBus(ctx, &eventbridge.CreateEventBusInput{Name: aws.String(bus)}); err != nil {
		t.Fatal(err)
	}
	q, err := sq.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("alerts-subscriber")})
	if err != nil {
		t.Fatal(err)
	}
	const arn = "arn:aws:sqs:us-east-1:" + emulators.MotoAccount + ":alerts-subscriber"
	pattern, _ := json.Marshal(map[string]any{"source": []string{"syncassist.governance"}})
	if _, err := eb.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String("to-queue"), EventBusName: aws.String(bus),
		EventPattern: aws.String(string(pattern))}); err != nil {
		t.Fatal(err)
	}
	if _, err := eb.PutTargets(ctx, &eventbridge.PutTargetsInput{Rule: aws.String("to-queue"), EventBusName: aws.String(bus),
		Targets: []ebtypes.Target{{Id: aws.String("q"), Arn: aws.String(arn)}}}); err != nil {
		t.Fatal(err)
	}
	p := eventbus.New(cfg, aws.String(moto.Endpoint), bus)
	e := eventbus.Event{Source: "syncassist.governance", DetailType: "OwnershipRejection",
		Detail: json.RawMessage(`{"tenantId":"acme","field":"creditLimit"}`), Time: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	if err := p.Publish(ctx, e); err != nil {
		t.Fatal(err)
	}
	out, err := sq.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 5, MaxNumberOfMessages: 10})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("the subscriber's queue holds %d messages (%v), want the one alert", len(out.Messages), err)
	}
	var got struct {
		Source     string         `json:"source"`
		DetailType string         `json:"detail-type"`
		Time       time.Time      `json:"time"`
		Detail     map[string]any `json:"detail"`
	}
	if err := json.Unmarshal([]byte(aws.ToString(out.Messages[0].Body)), &got); err != nil || got.Source != e.Source ||
		got.DetailType != e.DetailType || !got.Time.Equal(e.Time) || got.Detail["tenantId"] != "acme" || got.Detail["field"] != "creditLimit" {
		t.Fatalf("delivered %s (%v)", aws.ToString(out.Messages[0].Body), err)
	}
}
