// Package awsjson calls one action of an AWS service that speaks the JSON protocol: a
// SigV4-signed POST of a JSON body to the service's endpoint, the action named by the
// X-Amz-Target header, errors answered as {"__type", "message"} (the protocol the KMS
// package kmskey already speaks; Secrets Manager's GetSecretValue, for instance, at
// https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html:
// "SecretId" in, "SecretString" out). A generated SDK client links its whole model
// (schemas, endpoint rules, types) into the binary, some 250 KB per service, for a
// function that makes one call (measured on the functions' arm64 builds).
//
// It retries as the SDK's standard retryer does (aws/retry: 3 attempts, jittered
// exponential backoff, the same retryable statuses and throttling codes), since its
// callers would otherwise lose what the SDK client they replace would have sent: a
// diagnosis message, for one, is only re-sent by the 30-minute reconcile.
package awsjson

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/syncassist/syncassist/shared/retry"
)

const (
	// attemptTimeout bounds one attempt: a function's time is billed and its caller waits.
	attemptTimeout = 5 * time.Second
	// maxAttempts is the SDK's retry.DefaultMaxAttempts.
	maxAttempts = 3
	// backoffBase is the SDK's base delay for errors that are not throttling; the first
	// retry waits up to twice it, the second up to four times.
	backoffBase = 50 * time.Millisecond
	// backoffMax caps a wait well inside a function's timeout.
	backoffMax = time.Second
)

// Service is one AWS service's JSON endpoint.
type Service struct {
	// SigningName is the service's name in the signature ("secretsmanager", "kms").
	SigningName string
	// TargetPrefix precedes the action in X-Amz-Target ("secretsmanager", "TrentService").
	TargetPrefix string
	// ContentType is the protocol version ("application/x-amz-json-1.1").
	ContentType string
	Endpoint    string
	Region      string
	Creds       aws.CredentialsProvider
	// Client sends the requests: the config's, so that what wraps the SDK's transport
	// (make cost's request count, a test's fake) sees these requests too.
	Client aws.HTTPClient
}

// New is s on cfg's region, credentials and HTTP client (nil: http.DefaultClient), at
// endpoint (nil or empty: the regional endpoint https://<signing name>.<region>.amazonaws.com).
func New(cfg aws.Config, endpoint *string, signingName, targetPrefix, contentType string) *Service {
	url := "https://" + signingName + "." + cfg.Region + ".amazonaws.com"
	if endpoint != nil && *endpoint != "" {
		url = strings.TrimRight(*endpoint, "/")
	}
	var client aws.HTTPClient = http.DefaultClient // each attempt is bounded by attemptTimeout
	if cfg.HTTPClient != nil {
		client = cfg.HTTPClient
	}
	return &Service{SigningName: signingName, TargetPrefix: targetPrefix, ContentType: contentType, Endpoint: url,
		Region: cfg.Region, Creds: cfg.Credentials, Client: client}
}

// Error is a service's error answer.
type Error struct {
	Action string
	Status int
	// Type is the error's __type without its namespace ("ResourceNotFoundException").
	Type    string
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: status %d %s %s", e.Action, e.Status, e.Type, e.Message)
}

// retryable is whether the SDK's standard retryer would try e again: a 500, 502, 503 or
// 504, or a throttling code. No other 4xx is: the same request would be refused again.
func (e *Error) retryable() bool {
	_, status := awsretry.DefaultRetryableHTTPStatusCodes[e.Status]
	_, throttled := awsretry.DefaultThrottleErrorCodes[e.Type]
	return status || throttled
}

// Call makes a signed request of action with in as the JSON body and decodes the answer
// into out, trying again (re-signed) after a transport error, a server error or
// throttling, up to maxAttempts in all and never once ctx is done. The error is the last
// attempt's; a service's refusal is an *Error.
func (s *Service) Call(ctx context.Context, action string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if s.Creds == nil {
		return fmt.Errorf("%s: no AWS credentials", action)
	}
	creds, err := s.Creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("%s: credentials: %w", action, err)
	}
	for attempt := 1; ; attempt++ {
		again, err := s.attempt(ctx, creds, action, body, out)
		if !again || attempt == maxAttempts || !retry.Sleep(ctx, backoff(attempt)) {
			return err
		}
	}
}

// attempt makes one request and says whether a failure is worth another.
func (s *Service) attempt(ctx context.Context, creds aws.Credentials, action string, body []byte, out any) (again bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel() // after the answer is read: cancelling ends its body
	req, err := s.sign(ctx, creds, action, body)
	if err != nil {
		return false, err
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return true, fmt.Errorf("%s: %w", action, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return true, fmt.Errorf("%s: read answer: %w", action, err)
	}
	if resp.StatusCode != http.StatusOK {
		e := answerError(action, resp, data)
		return e.retryable(), e
	}
	if err := json.Unmarshal(data, out); err != nil {
		return false, fmt.Errorf("%s: decode answer: %w", action, err)
	}
	return false, nil
}

// sign builds the request and signs it now: a signature is valid for minutes only, so a
// retry is signed afresh.
func (s *Service) sign(ctx context.Context, creds aws.Credentials, action string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.Endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", s.ContentType)
	req.Header.Set("X-Amz-Target", s.TargetPrefix+"."+action)
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), s.SigningName, s.Region, time.Now()); err != nil {
		return nil, fmt.Errorf("%s: sign: %w", action, err)
	}
	return req, nil
}

// answerError is an error answer's type and message. The type is the body's __type, or
// the X-Amzn-ErrorType header where the body has none (the JSON protocols allow either),
// without its namespace ("aws.protocols#" or "com.amazonaws.sqs#") or the header's
// ":<url>" suffix.
func answerError(action string, resp *http.Response, data []byte) *Error {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(data, &e)
	if e.Type == "" {
		e.Type, _, _ = strings.Cut(resp.Header.Get("X-Amzn-ErrorType"), ":")
	}
	if i := strings.LastIndexByte(e.Type, '#'); i >= 0 {
		e.Type = e.Type[i+1:]
	}
	return &Error{Action: action, Status: resp.StatusCode, Type: e.Type, Message: e.Message}
}

// backoff is the wait before retry number attempt (1, 2, ...): a uniformly random part
// of backoffBase·2^attempt, capped at backoffMax ("full jitter", as the SDK's
// ExponentialJitterBackoff), so that callers failing together do not retry together.
func backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffMax)
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}
