package emutest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// SentTwice returns a DynamoDB client on this emulator that sends every request of
// operation op ("PutItem", "UpdateItem") twice and answers the second one's response:
// what the SDK does when the first answer was lost (a dropped connection, a body failing
// its checksum) after DynamoDB had applied the request. A store's conditional write then
// meets its own first attempt.
func (e Emulator) SentTwice(t testing.TB, op string) *dynamodb.Client {
	t.Helper()
	return e.through(t, func(next aws.HTTPClient) aws.HTTPClient { return sentTwice{op: op, next: next} })
}

// through is a DynamoDB client on this emulator whose requests go through the HTTP client
// wrap makes of the one it would use.
func (e Emulator) through(t testing.TB, wrap func(next aws.HTTPClient) aws.HTTPClient) *dynamodb.Client {
	t.Helper()
	cfg := e.Config(t)
	next := cfg.HTTPClient
	if next == nil {
		next = http.DefaultClient
	}
	cfg.HTTPClient = wrap(next)
	return dynamodb.NewFromConfig(cfg)
}

type sentTwice struct {
	op   string
	next aws.HTTPClient
}

func (s sentTwice) Do(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), "."+s.op) || r.Body == nil {
		return s.next.Do(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	first := r.Clone(r.Context())
	first.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := s.next.Do(first)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body) // the answer lost
	_ = resp.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	return s.next.Do(r)
}

// Failing returns a DynamoDB client on this emulator whose requests of operation op
// naming match (in their body) fail with a ValidationException, which the SDK does not
// retry: a store's write failing part way through what it stores.
func (e Emulator) Failing(t testing.TB, op, match string) *dynamodb.Client {
	t.Helper()
	return e.through(t, func(next aws.HTTPClient) aws.HTTPClient { return failing{op: op, match: match, next: next} })
}

type failing struct {
	op, match string
	next      aws.HTTPClient
}

func (f failing) Do(r *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), "."+f.op) || r.Body == nil {
		return f.next.Do(r)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	_ = r.Body.Close()
	if !bytes.Contains(body, []byte(f.match)) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		return f.next.Do(r)
	}
	msg := `{"__type":"com.amazon.coral.validate#ValidationException","message":"emutest: this request fails"}`
	return &http.Response{StatusCode: http.StatusBadRequest, Status: "400 Bad Request", Request: r,
		Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}}, Body: io.NopCloser(strings.NewReader(msg))}, nil
}
