package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
)

// Defaults for the zero values of Config's tuning fields.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultMaxAttempts   = 3
	DefaultBaseBackoff   = 100 * time.Millisecond
	DefaultMaxBackoff    = 2 * time.Second
	DefaultMaxRetryAfter = 5 * time.Second
)

// MaxResponseBytes bounds what is read of any answer, so a broken or hostile system cannot
// exhaust a Lambda's memory.
const MaxResponseBytes = 1 << 20

// Header names of the write protocol.
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderOrigin         = "X-Origin-System"
	HeaderReplayed       = "Idempotent-Replayed"
)

// Config is one tenant's connection to one system.
type Config struct {
	System  System
	BaseURL string
	// Token is sent as Authorization: Bearer; empty sends no Authorization header.
	Token string
	// Timeout bounds each attempt, including reading the answer (default 10s).
	Timeout time.Duration
	// MaxAttempts counts the first request (default 3; 1 disables retries).
	MaxAttempts int
	// BaseBackoff and MaxBackoff shape the exponential backoff (defaults 100ms and 2s).
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits out itself (default 5s).
	MaxRetryAfter time.Duration
}

// String keeps the token out of logs and fmt output.
func (c Config) String() string {
	return fmt.Sprintf("connector.Config{System:%s BaseURL:%s Token:%s Timeout:%s MaxAttempts:%d}",
		c.System, c.BaseURL, redacted(c.Token), c.Timeout, c.MaxAttempts)
}

// GoString keeps the token out of %#v.
func (c Config) GoString() string { return c.String() }

// LogValue keeps the token out of slog records.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("system", string(c.System)), slog.String("baseURL", c.BaseURL),
		slog.String("token", redacted(c.Token)), slog.Duration("timeout", c.Timeout),
		slog.Int("maxAttempts", c.MaxAttempts))
}

func redacted(token string) string {
	if token == "" {
		return ""
	}
	return "[redacted]"
}

// Record is one record of a system.
type Record struct {
	Entity string
	ID     string
	Fields map[string]any
	// Version is the system's version field, or its ETag when the body has none; empty when
	// the system sends neither.
	Version string
}

// WriteRequest is a partial update of one record.
type WriteRequest struct {
	Entity   string
	RecordID string
	// Fields holds only the fields to change; the others are left as they are.
	Fields map[string]any
	// IdempotencyKey is required; every attempt of the write sends the same key, which is
	// what makes retrying a write safe. Callers derive it from what the write is for (the
	// approval id, the proposal id), so a retry of the whole operation replays too.
	IdempotencyKey string
	// Origin is the writer's origin tag, required and sent as X-Origin-System so the target
	// system, and the loop detection reading it back, can see who wrote.
	Origin string
	// IfVersion, when set, makes the write conditional on the record still having this
	// Version (sent as If-Match); a changed record fails with ErrConflict.
	IfVersion string
}

// WriteResult is the record after a write.
type WriteResult struct {
	Record Record
	// Replayed says the system answered from its idempotency store: this key was applied
	// before, and nothing was applied now.
	Replayed bool
}

// SyncErrorPage is one page of the host ERP's sync errors.
type SyncErrorPage struct {
	// Items are sync-error records in the ingest webhook's body format, oldest first.
	Items []json.RawMessage
	// NextCursor is empty on the last page.
	NextCursor string
}

// Client talks to one system for one tenant. It is safe for concurrent use and holds one
// *http.Client (with its own connection pool) for its lifetime, so build it once and keep
// it; Registry does that per tenant and system.
type Client struct {
	sys           System
	base          string
	token         string
	http          *http.Client
	maxAttempts   int
	baseBackoff   time.Duration
	maxBackoff    time.Duration
	maxRetryAfter time.Duration
	// jitter picks the wait in [0, ceiling]; tests replace it to make backoff predictable.
	jitter func(ceiling time.Duration) time.Duration
}

// New validates cfg and builds a Client. Errors wrap ErrInvalidConfig and never quote the
// token.
func New(cfg Config) (*Client, error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInvalidConfig, cfg.System, fmt.Sprintf(format, args...))
	}
	if !cfg.System.Known() {
		return nil, fmt.Errorf("%w: unknown system %q", ErrInvalidConfig, cfg.System)
	}
	u, err := url.Parse(cfg.BaseURL)
	switch {
	case err != nil:
		return nil, invalid("base URL does not parse")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, invalid("base URL must be http or https")
	case u.Host == "":
		return nil, invalid("base URL has no host")
	case u.User != nil:
		// Credentials belong in Token, where they are redacted; in a URL they reach logs.
		return nil, invalid("base URL must not carry credentials")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, invalid("base URL must not have a query or fragment")
	case !visibleASCII(cfg.Token, 4096):
		return nil, invalid("token must be visible ASCII")
	case cfg.Timeout < 0 || cfg.MaxAttempts < 0 || cfg.BaseBackoff < 0 || cfg.MaxBackoff < 0 || cfg.MaxRetryAfter < 0:
		return nil, invalid("timeouts, attempts and backoffs must not be negative")
	}
	c := &Client{
		sys:           cfg.System,
		base:          strings.TrimRight(u.String(), "/"),
		token:         cfg.Token,
		maxAttempts:   orDefault(cfg.MaxAttempts, DefaultMaxAttempts),
		baseBackoff:   orDefault(cfg.BaseBackoff, DefaultBaseBackoff),
		maxBackoff:    orDefault(cfg.MaxBackoff, DefaultMaxBackoff),
		maxRetryAfter: orDefault(cfg.MaxRetryAfter, DefaultMaxRetryAfter),
		jitter:        fullJitter,
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// The default of 2 idle connections per host makes concurrent writes to one system
	// open and close connections all the time.
	transport.MaxIdleConnsPerHost = 32
	c.http = &http.Client{
		Transport: transport,
		Timeout:   orDefault(cfg.Timeout, DefaultTimeout),
		// A connector's base URL is exact; following a redirect would resend the token and
		// the write somewhere nobody configured.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// System is the system this client talks to.
func (c *Client) System() System { return c.sys }

// CloseIdleConnections releases the client's idle connections; calls in flight finish.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Get reads one record. A missing record is ErrNotFound.
func (c *Client) Get(ctx context.Context, entity, id string) (Record, error) {
	if !validSegment(entity) || !validSegment(id) {
		return Record{}, c.refuse(OpGet, "entity and id must be non-empty path segments other than . and ..")
	}
	ans, err := c.do(ctx, OpGet, http.MethodGet, c.base+c.sys.recordPath(entity, id), nil, nil)
	if err != nil {
		return Record{}, err
	}
	return c.decodeRecord(OpGet, ans, entity, id)
}

// Write applies a partial update (PATCH) to one record and returns the record after it.
//
// Write is reserved for the guarded-write function in shared/governance, which enforces
// ownership, loop detection and DLP before calling it and records the write after; an
// architecture test elsewhere fails if anything else calls it. Everyone else writes
// through the guard.
//
// Every attempt carries req.IdempotencyKey, which is what lets Write retry transient
// failures: the system applies the key once and replays its answer to repeats
// (WriteResult.Replayed). The same key with different fields is a caller bug and fails
// with ErrValidation (code idempotency_key_reused).
func (c *Client) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	switch {
	case !validSegment(req.Entity) || !validSegment(req.RecordID):
		return WriteResult{}, c.refuse(OpWrite, "entity and record id must be non-empty path segments other than . and ..")
	case len(req.Fields) == 0:
		return WriteResult{}, c.refuse(OpWrite, "a write needs at least one field")
	case !visibleASCII(req.IdempotencyKey, 255) || req.IdempotencyKey == "":
		return WriteResult{}, c.refuse(OpWrite, "idempotency key is required: 1 to 255 visible ASCII characters")
	case !visibleASCII(req.Origin, 128) || req.Origin == "":
		return WriteResult{}, c.refuse(OpWrite, "origin is required: 1 to 128 visible ASCII characters")
	case !visibleASCII(req.IfVersion, 255) || strings.Contains(req.IfVersion, `"`):
		return WriteResult{}, c.refuse(OpWrite, "if-version must be visible ASCII without quotes")
	}
	body, err := json.Marshal(patchBody{Fields: req.Fields})
	if err != nil {
		// The encoder's message can quote the offending value.
		return WriteResult{}, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	hdr := http.Header{}
	hdr.Set(HeaderIdempotencyKey, req.IdempotencyKey)
	hdr.Set(HeaderOrigin, req.Origin)
	if req.IfVersion != "" {
		hdr.Set("If-Match", `"`+req.IfVersion+`"`)
	}
	ans, err := c.do(ctx, OpWrite, http.MethodPatch, c.base+c.sys.recordPath(req.Entity, req.RecordID), body, hdr)
	if err != nil {
		return WriteResult{}, err
	}
	rec, err := c.decodeRecord(OpWrite, ans, req.Entity, req.RecordID)
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Record: rec, Replayed: strings.EqualFold(ans.header.Get(HeaderReplayed), "true")}, nil
}

type patchBody struct {
	Fields map[string]any `json:"fields"`
}

// ListSyncErrors reads one page of the host ERP's sync errors that occurred at or after
// since (zero: from the start), continuing at cursor (empty: the first page). limit <= 0
// lets the system choose. Systems other than the host ERP return ErrUnsupported.
func (c *Client) ListSyncErrors(ctx context.Context, since time.Time, cursor string, limit int) (SyncErrorPage, error) {
	if !c.sys.ListsSyncErrors() {
		return SyncErrorPage{}, &Error{System: c.sys, Op: OpListSyncErrors, Err: ErrUnsupported}
	}
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	target := c.base + conventions[c.sys].syncErrorsPath
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	ans, err := c.do(ctx, OpListSyncErrors, http.MethodGet, target, nil, nil)
	if err != nil {
		return SyncErrorPage{}, err
	}
	var page struct {
		Items      []json.RawMessage `json:"items"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(ans.body, &page); err != nil {
		return SyncErrorPage{}, c.malformed(OpListSyncErrors, ans)
	}
	for _, it := range page.Items {
		if t := bytes.TrimSpace(it); len(t) == 0 || t[0] != '{' {
			return SyncErrorPage{}, c.malformed(OpListSyncErrors, ans)
		}
	}
	return SyncErrorPage{Items: page.Items, NextCursor: page.NextCursor}, nil
}

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

// do sends the request, retrying transient failures, and returns the first 2xx answer.
func (c *Client) do(ctx context.Context, op, method, target string, body []byte, hdr http.Header) (answer, error) {
	for attempt := 1; ; attempt++ {
		ans, failure := c.attempt(ctx, op, method, target, body, hdr)
		if failure == nil {
			return ans, nil
		}
		failure.Attempts = attempt
		if !failure.Retryable || attempt >= c.maxAttempts || ctx.Err() != nil {
			return answer{}, failure
		}
		wait := c.jitter(c.backoffCeiling(attempt))
		if failure.RetryAfter > 0 {
			if failure.RetryAfter > c.maxRetryAfter {
				// The system wants longer than this call may block; the caller schedules.
				return answer{}, failure
			}
			wait = failure.RetryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && !time.Now().Add(wait).Before(deadline) {
			// The retry could not finish: waiting would only burn the caller's time.
			return answer{}, failure
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return answer{}, failure
		case <-timer.C:
		}
	}
}

// attempt sends one request. A nil *Error means a 2xx answer.
func (c *Client) attempt(ctx context.Context, op, method, target string, body []byte, hdr http.Header) (answer, *Error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return answer{}, &Error{System: c.sys, Op: op, Err: ErrValidation, Cause: errors.New("request could not be built")}
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "syncassist-connector")
	if id := httpapi.CorrelationID(ctx); id != "" {
		// The target's logs can then be matched with ours.
		req.Header.Set(httpapi.HeaderCorrelationID, id)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, c.transportFailure(ctx, op, 0, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return answer{}, c.transportFailure(ctx, op, resp.StatusCode, err)
	}
	if len(data) > MaxResponseBytes {
		return answer{}, &Error{System: c.sys, Op: op, Status: resp.StatusCode, Err: ErrUnavailable, Cause: errResponseTooLarge}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return answer{status: resp.StatusCode, header: resp.Header, body: data}, nil
	}
	sentinel, retryable := classifyStatus(resp.StatusCode)
	failure := &Error{System: c.sys, Op: op, Status: resp.StatusCode, Code: errorCode(data), Retryable: retryable, Err: sentinel}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		failure.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	return answer{}, failure
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
	return &Error{System: c.sys, Op: op, Status: status, Err: ErrUnavailable, Cause: cause, Retryable: transportRetryable(err)}
}

// refuse is a request the client will not send.
func (c *Client) refuse(op, why string) *Error {
	return &Error{System: c.sys, Op: op, Err: ErrValidation, Cause: errors.New(why)}
}

func (c *Client) malformed(op string, ans answer) *Error {
	return &Error{System: c.sys, Op: op, Status: ans.status, Err: ErrUnavailable, Cause: errMalformedResponse}
}

// backoffCeiling is BaseBackoff doubled per failed attempt, capped at MaxBackoff.
func (c *Client) backoffCeiling(failedAttempts int) time.Duration {
	ceiling := c.baseBackoff
	for i := 1; i < failedAttempts && ceiling < c.maxBackoff; i++ {
		ceiling *= 2
	}
	return min(ceiling, c.maxBackoff)
}

type wireRecord struct {
	ID      string          `json:"id"`
	Entity  string          `json:"entity"`
	Fields  map[string]any  `json:"fields"`
	Version json.RawMessage `json:"version"`
}

// decodeRecord reads a record answer. Numbers stay json.Number so nothing is rounded on
// its way to the caller.
func (c *Client) decodeRecord(op string, ans answer, entity, id string) (Record, error) {
	rec := Record{Entity: entity, ID: id}
	if len(bytes.TrimSpace(ans.body)) > 0 {
		var w wireRecord
		dec := json.NewDecoder(bytes.NewReader(ans.body))
		dec.UseNumber()
		if err := dec.Decode(&w); err != nil {
			return Record{}, c.malformed(op, ans)
		}
		if w.ID != "" {
			rec.ID = w.ID
		}
		if w.Entity != "" {
			rec.Entity = w.Entity
		}
		rec.Fields = w.Fields
		rec.Version = versionText(w.Version)
	}
	if rec.Version == "" {
		rec.Version = etagVersion(ans.header.Get("ETag"))
	}
	return rec, nil
}

// versionText accepts a version sent as a string or a number.
func versionText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

func etagVersion(etag string) string {
	etag = strings.TrimPrefix(strings.TrimSpace(etag), "W/")
	return strings.Trim(etag, `"`)
}

// errorCode takes the code from an error body, if it is one.
func errorCode(body []byte) string {
	var e struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return safeCode(e.Code)
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
