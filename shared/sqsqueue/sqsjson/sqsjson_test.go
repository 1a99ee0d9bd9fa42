package sqsjson_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/sqsqueue/sqsjson"
)

func TestMain(m *testing.M) { emutest.Main(m) }

// fakeSQS answers every request as SQS would, with the MD5 answer makes of the message
// body, and keeps the requests.
type fakeSQS struct {
	answer func(body string) string
	reqs   []*http.Request
	bodies []string
}

func (f *fakeSQS) Do(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	f.reqs, f.bodies = append(f.reqs, r), append(f.bodies, string(b))
	var in struct{ MessageBody string }
	_ = json.Unmarshal(b, &in)
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: r,
		Body: io.NopCloser(strings.NewReader(f.answer(in.MessageBody)))}, nil
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func fakeConfig(f *fakeSQS) aws.Config {
	return aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""), HTTPClient: f}
}

// A send is SQS's JSON SendMessage on the regional endpoint, signed for sqs, with the
// correlation id as a String attribute.
func TestSendJSONIsSendMessage(t *testing.T) {
	f := &fakeSQS{answer: func(body string) string { return `{"MessageId":"m-1","MD5OfMessageBody":"` + md5Hex(body) + `"}` }}
	url := "https://sqs.eu-central-1.amazonaws.com/111122223333/diagnosis"
	ctx := httpapi.WithCorrelation(context.Background(), slog.Default(), "corr-1")
	if err := sqsjson.New(fakeConfig(f), nil, url).SendJSON(ctx, map[string]string{"id": "e-1"}); err != nil {
		t.Fatal(err)
	}
	r := f.reqs[0]
	if r.URL.String() != "https://sqs.eu-central-1.amazonaws.com/" || r.Method != http.MethodPost {
		t.Errorf("%s %s, want POST to the regional endpoint", r.Method, r.URL)
	}
	if tgt, ct := r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type"); tgt != "AmazonSQS.SendMessage" || ct != "application/x-amz-json-1.0" {
		t.Errorf("X-Amz-Target %q, Content-Type %q", tgt, ct)
	}
	if a := r.Header.Get("Authorization"); !strings.Contains(a, "/eu-central-1/sqs/aws4_request") {
		t.Errorf("Authorization %q: want a SigV4 signature for sqs", a)
	}
	want := `{"QueueUrl":"` + url + `","MessageBody":"{\"id\":\"e-1\"}",` +
		`"MessageAttributes":{"correlation_id":{"DataType":"String","StringValue":"corr-1"}}}`
	if f.bodies[0] != want {
		t.Errorf("body\n%s\nwant\n%s", f.bodies[0], want)
	}
}

// Without a correlation id the request names no attributes, as the SDK's client sent
// none.
func TestSendJSONWithoutCorrelationHasNoAttributes(t *testing.T) {
	f := &fakeSQS{answer: func(body string) string { return `{"MessageId":"m-1","MD5OfMessageBody":"` + md5Hex(body) + `"}` }}
	if err := sqsjson.New(fakeConfig(f), nil, "q").SendJSON(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if f.bodies[0] != `{"QueueUrl":"q","MessageBody":"1"}` {
		t.Fatal(f.bodies[0])
	}
}

// An answer whose MD5 is not the body's is an error, as with the SDK's client: the queue
// holds something other than what was sent.
func TestSendJSONRefusesAWrongMD5(t *testing.T) {
	f := &fakeSQS{answer: func(body string) string { return `{"MessageId":"m-1","MD5OfMessageBody":"` + md5Hex(body+"x") + `"}` }}
	err := sqsjson.New(fakeConfig(f), nil, "q").SendJSON(context.Background(), map[string]int{"n": 1})
	if err == nil || !strings.Contains(err.Error(), "m-1") {
		t.Fatalf("error %v, want a checksum error naming the message", err)
	}
}

// On each emulator's SQS, a message sent with a correlation id arrives as the SDK's
// client receives it: the JSON body, the id as the correlation attribute; and the
// emulator's answer carried the body's MD5, so the check compared something.
func TestSendJSONOnTheEmulators(t *testing.T) {
	emutest.Each(t, testSendJSONOnTheEmulators)
}

func testSendJSONOnTheEmulators(t *testing.T, e emutest.Emulator) {
	ctx := context.Background()
	cfg := e.Config(t)
	_, client := e.Clients(t)
	created, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(emutest.Stage(t) + "-diagnosis")})
	if err != nil {
		t.Fatal(err)
	}
	url := aws.ToString(created.QueueUrl)
	// The pair's endpoint is the per-service variable emutest.Main set; moto's config
	// names its own.
	endpoint := cfg.BaseEndpoint
	if e.Name == emutest.Pair.Name {
		endpoint = aws.String(os.Getenv("AWS_ENDPOINT_URL_SQS"))
	}
	answers := &recorder{next: cfg.HTTPClient}
	if answers.next == nil {
		answers.next = http.DefaultClient
	}
	cfg.HTTPClient = answers
	s := sqsjson.New(cfg, endpoint, url)
	msg := map[string]any{"tenantId": "acme", "id": "e-1", "note": "<&> ü"}
	if err := s.SendJSON(httpapi.WithCorrelation(ctx, slog.Default(), "corr-1"), msg); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(msg)
	var answer struct{ MD5OfMessageBody string }
	if _ = json.Unmarshal([]byte(answers.last), &answer); answer.MD5OfMessageBody != md5Hex(string(want)) {
		t.Errorf("answer %s: want the body's MD5", answers.last)
	}
	got := receive(t, client, url)
	if aws.ToString(got.Body) != string(want) {
		t.Errorf("body %s, want %s", aws.ToString(got.Body), want)
	}
	attr := got.MessageAttributes[httpapi.AttributeCorrelationID]
	if aws.ToString(attr.DataType) != "String" || aws.ToString(attr.StringValue) != "corr-1" {
		t.Errorf("correlation attribute %+v", attr)
	}
}

// recorder keeps the last answer's body.
type recorder struct {
	next aws.HTTPClient
	last string
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.next.Do(req)
	if err != nil {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.last, resp.Body = string(b), io.NopCloser(strings.NewReader(string(b)))
	return resp, err
}

// receive waits for one message on url.
func receive(t *testing.T, client *sqs.Client, url string) types.Message {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		got, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: &url,
			MessageAttributeNames: []string{"All"}, WaitTimeSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) > 0 {
			return got.Messages[0]
		}
	}
	t.Fatal("no message within 10 s")
	return types.Message{}
}
