package emutest

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// A package on MainDynamoDB that asks SQS gets, at once and without retries, an error that
// names the cause, and the stand-in counts the request so the binary fails after its tests.
func TestNoSQSAnswersWithTheCause(t *testing.T) {
	g := startNoSQS()
	defer g.Close()
	c := sqs.NewFromConfig(aws.Config{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(g.URL),
	})
	_, err := c.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	if err == nil || !strings.Contains(err.Error(), "emutest.MainDynamoDB") {
		t.Fatalf("ListQueues on the stand-in: err = %v, want one naming emutest.MainDynamoDB", err)
	}
	if n := g.asked.Load(); n != 1 {
		t.Fatalf("the stand-in counted %d requests, want 1 (a client error is not retried)", n)
	}
}
