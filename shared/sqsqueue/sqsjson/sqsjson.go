// Package sqsjson sends JSON messages to one SQS queue with the one SQS action a function
// needs, SendMessage, over awsjson rather than the SDK's SQS client: the client links its
// model (schemas, types, endpoint rules) into every binary that builds one: 320 KB of the
// ingest's linux/arm64 binary for this single call (issue 37, measured 2026-11-30).
//
// The request is SQS's AWS JSON 1.0 protocol: a POST to the regional endpoint
// https://sqs.<region>.amazonaws.com with X-Amz-Target AmazonSQS.SendMessage and
// Content-Type application/x-amz-json-1.0, signed for "sqs"
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-making-api-requests-json.html);
// its fields QueueUrl, MessageBody and MessageAttributes ({"name": {"DataType": "String",
// "StringValue": "..."}}) in, MessageId and MD5OfMessageBody out. The names are the SDK's
// model's (service/sqs v1.52.10 schemas), and fauxqs and moto take them in the tests; that
// MD5OfMessageBody is "an MD5 digest of the non-URL-encoded message body string" to check
// that SQS received the message correctly is AWS's own SDK reference
// (https://docs.aws.amazon.com/sdkfornet/v4/apidocs/items/SQS/TSendMessageResponse.html).
// The API reference page itself (APIReference/API_SendMessage.html) was not read here.
// Errors come back as {"__type": "com.amazonaws.sqs#QueueDoesNotExist", "message"}
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-json-api-responses.html),
// an *awsjson.Error whose Type is the name after '#'.
//
// It must not import the SDK's service/sqs or package sqsqueue (which does): the point is
// that the ingest links neither.
package sqsjson

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/syncassist/syncassist/shared/awsjson"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Sender sends JSON messages to one SQS queue; a feature adapts it to its own queue
// interface.
type Sender struct {
	sqs *awsjson.Service
	url string
}

// New is a sender to the queue at queueURL with cfg's region, credentials and HTTP
// client, through endpoint (nil: SQS's regional endpoint).
func New(cfg aws.Config, endpoint *string, queueURL string) *Sender {
	return &Sender{sqs: awsjson.New(cfg, endpoint, "sqs", "AmazonSQS", "application/x-amz-json-1.0"), url: queueURL}
}

// attribute is a MessageAttributeValue of DataType String.
type attribute struct {
	DataType    string
	StringValue string
}

type sendMessageInput struct {
	QueueURL          string `json:"QueueUrl"`
	MessageBody       string
	MessageAttributes map[string]attribute `json:",omitempty"`
}

type sendMessageOutput struct {
	MessageID        string `json:"MessageId"`
	MD5OfMessageBody string
}

// SendJSON sends v, encoded as JSON, as one message, with the context's correlation id
// as the message attribute httpapi.AttributeCorrelationID where it has one.
func (s *Sender) SendJSON(ctx context.Context, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	in := sendMessageInput{QueueURL: s.url, MessageBody: string(body)}
	if id := httpapi.CorrelationID(ctx); id != "" {
		in.MessageAttributes = map[string]attribute{httpapi.AttributeCorrelationID: {DataType: "String", StringValue: id}}
	}
	var out sendMessageOutput
	if err := s.sqs.Call(ctx, "SendMessage", in, &out); err != nil {
		return err
	}
	return checkBody(in.MessageBody, out)
}

// checkBody compares the MD5 SQS computed of the body it stored with the body sent, as
// the SDK's client does by default (its SQSValidateMessageChecksum middleware, which
// likewise passes an answer without MD5OfMessageBody): a mismatch means the queue holds
// something other than what was sent.
func checkBody(body string, out sendMessageOutput) error {
	if out.MD5OfMessageBody == "" {
		return nil
	}
	sum := md5.Sum([]byte(body))
	if got := hex.EncodeToString(sum[:]); got != out.MD5OfMessageBody {
		return fmt.Errorf("SendMessage: message %s: SQS answered MD5 %s of the body, the body sent has %s",
			out.MessageID, out.MD5OfMessageBody, got)
	}
	return nil
}
