package connector

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/netguard"
)

// answer is a 2xx response, read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
}

var (
	errMalformedResponse = errors.New("malformed response")
	errResponseTooLarge  = fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
)

// call is one logical request: what do sends, perhaps several times.
type call struct {
	op, method, target string
	body               []byte
	header             http.Header
	// once forbids net/http's own resend on a reused connection that failed, which it
	// makes for any request carrying an Idempotency-Key header (a write must not be: send).
	once bool
	// maxBytes, when set, replaces MaxResponseBytes: the vendors' metadata documents
	// (Business Central's $metadata, Salesforce's describeGlobal) run to megabytes.
	maxBytes int
}

// do sends the request, retrying transient failures, and returns the first 2xx answer. A
// 401 with OAuth credentials refreshes the access token once and resends at once: a token
// revoked or expired early is not the caller's problem.
func (c *Client) do(ctx context.Context, op, method, target string, body []byte, hdr http.Header) (answer, error) {
	return c.send(ctx, call{op: op, method: method, target: target, body: body, header: hdr}, nil)
}

// send is do with a say on what is resent: resend, when set, must also agree before a
// transient failure is retried (a create resends only what cannot have been applied).
func (c *Client) send(ctx context.Context, req call, resend func(*Error) bool) (answer, error) {
	if req.op == OpWrite && req.method != http.MethodGet {
		// A write's own request is resent only when it cannot have been applied; one whose
		// answer was lost is tried again by Write, after a read that may find it landed.
		req.once = true
		if resend == nil {
			resend = notApplied
		}
	}
	refreshed := false
	for attempt := 1; ; attempt++ {
		ans, failure := c.attempt(ctx, req)
		if failure == nil {
			return ans, nil
		}
		failure.Attempts = attempt
		failure.written = req.once && req.op == OpWrite && req.method != http.MethodGet
		// A GET changes nothing: whatever it was told, it did not send a write.
		failure.notSent = failure.notSent || req.method == http.MethodGet
		if failure.Status == http.StatusUnauthorized && !refreshed && c.auth.refreshable() {
			refreshed = true
			c.auth.invalidate()
			continue
		}
		if !failure.Retryable || failure.deferred || attempt >= c.maxAttempts || ctx.Err() != nil || resend != nil && !resend(failure) {
			return answer{}, failure
		}
		if !c.pause(ctx, attempt, failure) {
			return answer{}, failure
		}
	}
}

// pause waits before attempt+1 of a call that failed: the backoff, or what the system
// asked for. False when it cannot wait: the system wants longer than a call may block (the
// caller schedules), or the retry could not finish before the caller's deadline.
func (c *Client) pause(ctx context.Context, attempt int, failure *Error) bool {
	wait := c.jitter(c.backoffCeiling(attempt))
	if failure.RetryAfter > 0 {
		if failure.RetryAfter > c.maxRetryAfter {
			return false
		}
		wait = failure.RetryAfter
	}
	if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(deadline) {
		return false
	}
	return c.sleep(ctx, wait)
}

// attempt sends one request. A nil *Error means a 2xx answer.
func (c *Client) attempt(ctx context.Context, in call) (answer, *Error) {
	var rd io.Reader
	if in.body != nil {
		rd = bytes.NewReader(in.body)
	}
	req, err := http.NewRequestWithContext(ctx, in.method, in.target, rd)
	if err != nil {
		return answer{}, &Error{System: c.sys, Op: in.op, Err: ErrValidation, Cause: errors.New("request could not be built")}
	}
	for k, v := range in.header {
		req.Header[k] = v
	}
	if in.once {
		req.GetBody = nil
	}
	if req.Header.Get("Accept") == "" {
		// Metadata reads ask for a schema or CSDL instead.
		req.Header.Set("Accept", "application/json")
	}
	req.Header.Set("User-Agent", "syncassist-connector")
	if id := httpapi.CorrelationID(ctx); id != "" {
		// The target's logs can then be matched with ours.
		req.Header.Set(httpapi.HeaderCorrelationID, id)
	}
	if in.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	authz, failure := c.auth.header(ctx, c, in.op)
	if failure != nil {
		// The token request failed: this request was never sent.
		failure.notSent = true
		return answer{}, failure
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	return c.exchangeUpTo(ctx, in.op, req, orDefault(in.maxBytes, MaxResponseBytes))
}

// exchange sends a built request and reads its answer; non-2xx becomes an *Error through
// the profile's reading of the vendor's error body.
func (c *Client) exchange(ctx context.Context, op string, req *http.Request) (answer, *Error) {
	return c.exchangeUpTo(ctx, op, req, MaxResponseBytes)
}

// exchangeUpTo is exchange reading at most limit bytes of the answer.
func (c *Client) exchangeUpTo(ctx context.Context, op string, req *http.Request, limit int) (answer, *Error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, c.transportFailure(ctx, op, 0, err)
	}
	defer resp.Body.Close()
	c.observe(ctx, resp.StatusCode, resp.Header)
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return answer{}, c.transportFailure(ctx, op, resp.StatusCode, err)
	}
	if len(data) > limit {
		return answer{}, &Error{System: c.sys, Op: op, Status: resp.StatusCode, Err: ErrUnavailable, Cause: errResponseTooLarge}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
	}
	f := c.prof.failure(resp.StatusCode, resp.Header, data, time.Now())
	return answer{}, &Error{System: c.sys, Op: op, Status: resp.StatusCode, Code: safeCode(f.code),
		Retryable: f.retryable, RetryAfter: f.retryAfter, Err: f.sentinel, Cause: f.cause, deferred: f.deferred, unapplied: f.unapplied}
}

// failureInfo is a profile's reading of an error answer.
type failureInfo struct {
	code       string
	sentinel   error
	retryable  bool
	retryAfter time.Duration
	// cause, when set, says what the body told beyond its code; it must hold no values.
	cause error
	// deferred hands a retryable failure to the caller at once, without waiting out its
	// RetryAfter here (ShipStation's rate window: see shipstation.go).
	deferred bool
	// unapplied: the answer says the request was not carried out, so a write may be resent
	// as it stands (Error.unapplied).
	unapplied bool
}

// standardFailure is the HTTP reading of an error answer: the status decides, and 429 and
// 503 honour Retry-After. Profiles start from it and add what their vendor says.
func standardFailure(status int, h http.Header, code string, now time.Time) failureInfo {
	sentinel, retryable := classifyStatus(status)
	f := failureInfo{code: code, sentinel: sentinel, retryable: retryable}
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		f.retryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	}
	return f
}

// transportFailure describes a request that got no usable answer. url.Error is unwrapped
// because its text carries the full URL; the cause alone says what went wrong.
func (c *Client) transportFailure(ctx context.Context, op string, status int, err error) *Error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return &Error{System: c.sys, Op: op, Status: status, Err: ErrUnavailable, Cause: ctxErr,
			Retryable: errors.Is(ctxErr, context.DeadlineExceeded)}
	}
	cause := err
	var ue *url.Error
	if errors.As(err, &ue) {
		cause = ue.Err
	}
	if errors.Is(err, netguard.ErrBlocked) {
		// The base URL now leads onto the service's own network: a configuration to fix,
		// which no retry changes.
		return &Error{System: c.sys, Op: op, Err: ErrInvalidConfig, Cause: errors.New("the base URL resolves to " + netguard.ErrBlocked.Error())}
	}
	return &Error{System: c.sys, Op: op, Status: status, Err: ErrUnavailable, Cause: cause, Retryable: transportRetryable(err)}
}

// refuse is a request the client will not send.
func (c *Client) refuse(op, why string) *Error {
	return &Error{System: c.sys, Op: op, Err: ErrValidation, Cause: errors.New(why)}
}

func (c *Client) malformed(op string, ans answer) *Error {
	e := &Error{System: c.sys, Op: op, Status: ans.status, Err: ErrUnavailable, Cause: errMalformedResponse}
	if op == OpWrite {
		// An answer came, so a request went out (WriteSent): a write answered 2xx whose body
		// cannot be read may be in the record, and must never read as "nothing was sent"
		// (a release answered so was approved again: a second POST, a second record). A
		// malformed answer to the read before a write is counted sent too: the safe side.
		e.Attempts = 1
	}
	return e
}

// backoffCeiling is BaseBackoff doubled per failed attempt, capped at MaxBackoff.
func (c *Client) backoffCeiling(failedAttempts int) time.Duration {
	ceiling := c.baseBackoff
	for i := 1; i < failedAttempts && ceiling < c.maxBackoff; i++ {
		ceiling *= 2
	}
	return min(ceiling, c.maxBackoff)
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 means absent or unusable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		const maxSecs = 24 * 60 * 60
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, maxSecs)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func visibleASCII(s string, maxLen int) bool {
	if len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
