package sqsqueue_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/sqsqueue"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// A batch whose handler runs three times the queue's 1 s visibility timeout is not
// delivered again meanwhile (as under Lambda, whose function timeout is at most the
// visibility timeout); once the handler reports it failed, it comes back, received twice.
func TestPollerKeepsABatchInFlightWhileItsHandlerRuns(t *testing.T) {
	ctx := context.Background()
	_, client := emutest.Pair.Clients(t)
	queues, err := sqsqueue.CreateQueues(ctx, client, emutest.Stage(t), sqsqueue.CreateOptions{VisibilityTimeoutSeconds: 1})
	if err != nil {
		t.Fatal(err)
	}
	q := queues[blueprint.Diagnosis.Name]
	if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	p := &sqsqueue.Poller{Client: client, QueueURL: q.URL, QueueARN: q.ARN, Visibility: time.Second,
		Handler: func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			close(entered)
			<-release
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ev.Records[0].MessageId}}}, nil
		}}
	polled := make(chan error, 1)
	go func() {
		_, err := p.PollOnce(ctx)
		polled <- err
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the poller received nothing in 10 s")
	}
	for held := time.Now().Add(3 * time.Second); time.Now().Before(held); {
		if m := receive(t, client, q.URL, 1); m != nil {
			close(release)
			t.Fatalf("message received again (count %s) while its handler still ran", m.Attributes["ApproximateReceiveCount"])
		}
	}
	close(release)
	if err := <-polled; err != nil {
		t.Fatal(err)
	}
	m := receive(t, client, q.URL, 5)
	if m == nil || m.Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("after the handler failed it: %+v; want the message back, received twice", m)
	}
}

// receive long-polls the queue for up to wait seconds and returns the message it got, if any.
func receive(t *testing.T, client *sqs.Client, url string, wait int32) *types.Message {
	t.Helper()
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url),
		WaitTimeSeconds: wait, MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Messages) == 0 {
		return nil
	}
	return &out.Messages[0]
}
