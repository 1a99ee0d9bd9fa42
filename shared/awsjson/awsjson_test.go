package awsjson_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/syncassist/syncassist/shared/awsjson"
)

// A call is a SigV4-signed POST naming the action in X-Amz-Target; an error answer comes
// back typed, without the type's namespace.
func TestCallSignsNamesTheActionAndTypesErrors(t *testing.T) {
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		if strings.Contains(body, "missing") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"__type":"com.amazonaws.secretsmanager#ResourceNotFoundException","message":"no such secret"}`)
			return
		}
		_, _ = io.WriteString(w, `{"SecretString":"s3cret"}`)
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	s := awsjson.New(cfg, aws.String(srv.URL), "secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
	var out struct{ SecretString string }
	if err := s.Call(context.Background(), "GetSecretValue", map[string]string{"SecretId": "arn:x"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.SecretString != "s3cret" || body != `{"SecretId":"arn:x"}` {
		t.Fatalf("answer %q, body %s", out.SecretString, body)
	}
	if tgt := got.Header.Get("X-Amz-Target"); tgt != "secretsmanager.GetSecretValue" {
		t.Errorf("X-Amz-Target %q", tgt)
	}
	if ct := got.Header.Get("Content-Type"); ct != "application/x-amz-json-1.1" {
		t.Errorf("Content-Type %q", ct)
	}
	if a := got.Header.Get("Authorization"); !strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKID/") ||
		!strings.Contains(a, "/eu-central-1/secretsmanager/aws4_request") {
		t.Errorf("Authorization %q: want a SigV4 signature for secretsmanager in eu-central-1", a)
	}
	err := s.Call(context.Background(), "GetSecretValue", map[string]string{"SecretId": "missing"}, &out)
	var e *awsjson.Error
	if !errors.As(err, &e) || e.Type != "ResourceNotFoundException" || e.Status != 400 || e.Message != "no such secret" {
		t.Fatalf("error %#v", err)
	}
}

// Without an endpoint, the service's regional one.
func TestRegionalEndpoint(t *testing.T) {
	s := awsjson.New(aws.Config{Region: "eu-central-1"}, nil, "secretsmanager", "secretsmanager", "application/x-amz-json-1.1")
	if s.Endpoint != "https://secretsmanager.eu-central-1.amazonaws.com" {
		t.Fatal(s.Endpoint)
	}
}

// server answers each request with the next of answers (status and body; the last one
// repeats) and counts the requests.
func server(t *testing.T, answers ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1)), len(answers)) - 1
		status, body, _ := strings.Cut(answers[i], " ")
		code, _ := strconv.Atoi(status)
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func service(url string) *awsjson.Service {
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	return awsjson.New(cfg, aws.String(url), "sqs", "AmazonSQS", "application/x-amz-json-1.0")
}

// A server error is tried again, as the SDK's retryer would: one success, two requests.
func TestCallRetriesAServerError(t *testing.T) {
	srv, n := server(t, `500 {"__type":"InternalError"}`, `200 {"MessageId":"m-1"}`)
	var out struct{ MessageId string }
	if err := service(srv.URL).Call(context.Background(), "SendMessage", map[string]string{}, &out); err != nil {
		t.Fatal(err)
	}
	if out.MessageId != "m-1" || n.Load() != 2 {
		t.Fatalf("answer %q after %d requests, want m-1 after 2", out.MessageId, n.Load())
	}
}

// Throttling is tried again up to three attempts in all; the last refusal is the error.
func TestCallRetriesThrottlingThreeTimesAtMost(t *testing.T) {
	srv, n := server(t, `400 {"__type":"com.amazonaws.sqs#RequestThrottled","message":"slow down"}`)
	err := service(srv.URL).Call(context.Background(), "SendMessage", map[string]string{}, &struct{}{})
	var e *awsjson.Error
	if !errors.As(err, &e) || e.Type != "RequestThrottled" || n.Load() != 3 {
		t.Fatalf("error %v after %d requests, want RequestThrottled after 3", err, n.Load())
	}
}

// A refusal other than throttling is the caller's to act on, at once.
func TestCallReturnsARefusalAtOnce(t *testing.T) {
	srv, n := server(t, `400 {"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}`)
	err := service(srv.URL).Call(context.Background(), "SendMessage", map[string]string{}, &struct{}{})
	var e *awsjson.Error
	if !errors.As(err, &e) || e.Type != "QueueDoesNotExist" || e.Status != 400 || n.Load() != 1 {
		t.Fatalf("error %#v after %d requests, want QueueDoesNotExist after 1", err, n.Load())
	}
}

// Where the body names no type, the X-Amzn-ErrorType header does (and may be throttling).
func TestCallReadsTheErrorTypeHeader(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("X-Amzn-ErrorType", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.coral.availability/")
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer srv.Close()
	err := service(srv.URL).Call(context.Background(), "SendMessage", map[string]string{}, &struct{}{})
	var e *awsjson.Error
	if !errors.As(err, &e) || e.Type != "ThrottlingException" || n.Load() != 3 {
		t.Fatalf("error %#v after %d requests", err, n.Load())
	}
}

// Once the caller's context is done, no attempt follows.
func TestCallStopsWhenTheContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		cancel()
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	if err := service(srv.URL).Call(ctx, "SendMessage", map[string]string{}, &struct{}{}); err == nil {
		t.Fatal("a call whose context ended succeeded")
	}
	if n.Load() != 1 {
		t.Fatalf("%d requests after the context was cancelled in the first", n.Load())
	}
}

// A transport error (the connection dropped before an answer) is tried again, the retry
// signed as the first attempt was.
func TestCallRetriesATransportError(t *testing.T) {
	var n atomic.Int32
	var signatures []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		signatures = append(signatures, r.Header.Get("Authorization"))
		mu.Unlock()
		if n.Add(1) == 1 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	if err := service(srv.URL).Call(context.Background(), "SendMessage", map[string]string{}, &struct{}{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 || !strings.HasPrefix(signatures[1], "AWS4-HMAC-SHA256 ") {
		t.Fatalf("%d requests, signatures %q", n.Load(), signatures)
	}
}

// The config's HTTP client carries the requests, so what wraps it sees them.
func TestCallUsesTheConfigsClient(t *testing.T) {
	srv, _ := server(t, `200 {}`)
	rt := &countingTransport{next: http.DefaultTransport}
	cfg := aws.Config{Region: "eu-central-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", ""),
		HTTPClient: &http.Client{Transport: rt}}
	s := awsjson.New(cfg, aws.String(srv.URL), "sqs", "AmazonSQS", "application/x-amz-json-1.0")
	if err := s.Call(context.Background(), "SendMessage", map[string]string{}, &struct{}{}); err != nil {
		t.Fatal(err)
	}
	if rt.n.Load() != 1 {
		t.Fatalf("the config's client carried %d requests", rt.n.Load())
	}
}

type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}
