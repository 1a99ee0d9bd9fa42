package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/netguard"
	"github.com/syncassist/syncassist/shared/retry"
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

// Header names of the write protocol. None of the five vendors keeps an idempotency store;
// the key is still sent on every request of a write so the target's logs (and the fakes)
// can tie the requests of one write together, while idempotency itself comes from
// read-compare-write and upsert keys (see the package documentation).
const (
	HeaderIdempotencyKey = "Idempotency-Key"
	HeaderOrigin         = "X-Origin-System"
	HeaderReplayed       = "Idempotent-Replayed"
)

// Config is one tenant's connection to one system.
type Config struct {
	System System
	// BaseURL is the vendor's API root for this tenant; see the package documentation for
	// what each system expects (Business Central's includes the company).
	BaseURL string
	// Token is the one secret credential: a bearer token, "user:password" for HTTP Basic
	// (ShipStation "apiKey:apiSecret", Mailchimp "anystring:apikey"), or, with TokenURL set,
	// "clientId:clientSecret" for the OAuth 2.0 client-credentials grant (NetSuite: a
	// NetSuiteCredential, whose key signs the grant's client assertion). Empty sends no
	// Authorization header.
	Token string
	// TokenURL, when set, makes Token client credentials exchanged at this OAuth 2.0 token
	// endpoint (NetSuite, Business Central, Salesforce's /services/oauth2/token on the org's
	// My Domain); the access token is cached until it expires.
	TokenURL string
	// Scope is sent with the client-credentials grant when set (Business Central:
	// https://api.businesscentral.dynamics.com/.default).
	Scope string
	// TenantID is the tenant the connection belongs to; the host ERP's sync-error listing
	// stamps it on each item (Registry sets it).
	TenantID string
	// Timeout bounds each attempt, including reading the answer (default 10s).
	Timeout time.Duration
	// MaxAttempts counts the first request (default 3; 1 disables retries).
	MaxAttempts int
	// BaseBackoff and MaxBackoff shape the exponential backoff (defaults 100ms and 2s).
	BaseBackoff time.Duration
	MaxBackoff  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits out itself (default 5s).
	MaxRetryAfter time.Duration
	// AllowLoopback lets the client connect to loopback addresses: the local fakes, in
	// local stages only; private, link-local (metadata) and NAT64 addresses stay refused.
	// Every connection is checked after resolution (netguard), so a base URL that was
	// public when it was saved cannot be turned onto the service's own network later (DNS
	// rebinding), and no proxy from the environment is used, since the check cannot see
	// past one.
	AllowLoopback bool
	// Budget, when set, is the account's shared rate budget: every write takes from it
	// before it sends, and every answer's rate headers are fed back to it (budget.go).
	Budget Budget
}

// String keeps the token out of logs and fmt output.
func (c Config) String() string {
	return fmt.Sprintf("connector.Config{System:%s BaseURL:%s Token:%s TokenURL:%s Timeout:%s MaxAttempts:%d}",
		c.System, c.BaseURL, redacted(c.Token), c.TokenURL, c.Timeout, c.MaxAttempts)
}

// GoString keeps the token out of %#v.
func (c Config) GoString() string { return c.String() }

// LogValue keeps the token out of slog records.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("system", string(c.System)), slog.String("baseURL", c.BaseURL),
		slog.String("token", redacted(c.Token)), slog.String("tokenURL", c.TokenURL),
		slog.Duration("timeout", c.Timeout), slog.Int("maxAttempts", c.MaxAttempts))
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
	// Fields are the record's own fields; the vendor's envelope (links, OData annotations,
	// attributes) and its version field are left out.
	Fields map[string]any
	// Version is the vendor's concurrency token: NetSuite's lastModifiedDate, Business
	// Central's ETag, Salesforce's SystemModstamp, Mailchimp's last_changed, ShipStation's
	// modifyDate. Empty when the system sends none.
	Version string
}

// WriteRequest is a partial update of one record.
type WriteRequest struct {
	Entity   string
	RecordID string
	// Fields holds only the fields to change; the others are left as they are.
	Fields map[string]any
	// IdempotencyKey is required. The vendors keep no idempotency store, so what makes a
	// retried write safe is read-compare-write (fields that already hold their values are
	// not written again) and upsert keys; the key still travels with every request of the
	// write (header Idempotency-Key) for tracing.
	IdempotencyKey string
	// Origin is the writer's origin tag, required and sent as X-Origin-System so the target
	// system, and the loop detection reading it back, can see who wrote.
	Origin string
	// IfVersion, when set, makes the write conditional on the record still having this
	// Version; a changed record fails with ErrConflict. Business Central checks it itself
	// (If-Match); the others are checked against the read that precedes the write.
	IfVersion string
	// UpsertKey names an external id field RecordID is a value of; the write then creates
	// the record if none has that value, in the vendor's own upsert: NetSuite's
	// "externalId" (PUT {type}/eid:{value}), a Salesforce external-id field, Mailchimp's
	// "email_address" (the member's subscriber hash), ShipStation's "orderKey"
	// (createorder). Business Central has none and refuses it. See create.go.
	UpsertKey string
	// Create makes a new record; RecordID must be empty and the answer's Record.ID is the
	// new record's id. A create is not idempotent at the vendor: see create.go for what
	// makes it safe to retry.
	Create bool
}

// WriteResult is the record after a write.
type WriteResult struct {
	Record Record
	// Replayed says nothing was sent: the record already held every field's value, so this
	// write (or a retry of one whose answer was lost) had been applied before.
	Replayed bool
	// Created says the write made a new record (Create, or an upsert that found none);
	// Record.ID is then the id the system gave it.
	Created bool
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
	prof          profile
	base          string
	tenantID      string
	auth          *credentials
	http          *http.Client
	maxAttempts   int
	baseBackoff   time.Duration
	maxBackoff    time.Duration
	maxRetryAfter time.Duration
	budget        Budget
	// jitter picks the wait in [0, ceiling]; tests replace it to make backoff predictable.
	jitter func(ceiling time.Duration) time.Duration
	// sleep is the client's one wait (between attempts); tests replace it to see each wait
	// asked for, where a clock on the test would measure the machine's load too.
	sleep func(ctx context.Context, d time.Duration) bool
}

// New validates cfg and builds a Client. Errors wrap ErrInvalidConfig and never quote the
// token.
func New(cfg Config) (*Client, error) {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrInvalidConfig, cfg.System, fmt.Sprintf(format, args...))
	}
	prof, ok := profiles[cfg.System]
	if !ok {
		return nil, fmt.Errorf("%w: unknown system %q", ErrInvalidConfig, cfg.System)
	}
	u, err := checkBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, invalid("base URL %s", err)
	}
	if cfg.TokenURL != "" {
		if _, err := checkBaseURL(cfg.TokenURL); err != nil {
			return nil, invalid("token URL %s", err)
		}
	}
	switch {
	case !visibleASCII(cfg.Token, 4096):
		return nil, invalid("token must be visible ASCII")
	case !visibleASCII(cfg.Scope, 1024):
		return nil, invalid("scope must be visible ASCII")
	case cfg.Timeout < 0 || cfg.MaxAttempts < 0 || cfg.BaseBackoff < 0 || cfg.MaxBackoff < 0 || cfg.MaxRetryAfter < 0:
		return nil, invalid("timeouts, attempts and backoffs must not be negative")
	}
	if why := prof.check(cfg, u); why != "" {
		return nil, invalid("%s", why)
	}
	c := &Client{
		sys:           cfg.System,
		prof:          prof,
		base:          strings.TrimRight(u.String(), "/"),
		tenantID:      cfg.TenantID,
		auth:          newCredentials(cfg, prof.auth()),
		maxAttempts:   orDefault(cfg.MaxAttempts, DefaultMaxAttempts),
		baseBackoff:   orDefault(cfg.BaseBackoff, DefaultBaseBackoff),
		maxBackoff:    orDefault(cfg.MaxBackoff, DefaultMaxBackoff),
		maxRetryAfter: orDefault(cfg.MaxRetryAfter, DefaultMaxRetryAfter),
		jitter:        fullJitter,
		sleep:         retry.Sleep,
		budget:        cfg.Budget,
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// The default of 2 idle connections per host makes concurrent writes to one system
	// open and close connections all the time.
	transport.MaxIdleConnsPerHost = 32
	transport.DialContext, transport.Proxy = netguard.Policy{AllowLoopback: cfg.AllowLoopback}.Dialer().DialContext, nil
	c.http = &http.Client{
		Transport: transport,
		Timeout:   orDefault(cfg.Timeout, DefaultTimeout),
		// A connector's base URL is exact; following a redirect would resend the token and
		// the write somewhere nobody configured.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// checkBaseURL accepts an absolute http(s) URL without credentials, query or fragment.
func checkBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("does not parse")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("must be http or https")
	case u.Host == "":
		return nil, fmt.Errorf("has no host")
	case u.User != nil:
		// Credentials belong in Token, where they are redacted; in a URL they reach logs.
		return nil, fmt.Errorf("must not carry credentials")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return nil, fmt.Errorf("must not have a query or fragment")
	}
	return u, nil
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
	return c.prof.get(ctx, c, OpGet, entity, id)
}

// Write applies a partial update to one record, in the vendor's own way (see the package
// documentation), and returns the record after it.
//
// Write is reserved for the guarded-write function in shared/governance, which enforces
// ownership, loop detection and DLP before calling it and records the write after; an
// architecture test elsewhere fails if anything else calls it. Everyone else writes
// through the guard.
//
// Every write reads the record first: when it already holds every field's value the write
// is reported Replayed and nothing is sent. That is what makes retrying a write safe
// against APIs without idempotency keys.
func (c *Client) Write(ctx context.Context, req WriteRequest) (WriteResult, error) {
	switch {
	case !validSegment(req.Entity) || !req.Create && !validSegment(req.RecordID):
		return WriteResult{}, c.refuse(OpWrite, "entity and record id must be non-empty path segments other than . and ..")
	case req.Create && (req.RecordID != "" || req.UpsertKey != ""):
		return WriteResult{}, c.refuse(OpWrite, "a create names no record id and no upsert key")
	case len(req.Fields) == 0:
		return WriteResult{}, c.refuse(OpWrite, "a write needs at least one field")
	case !visibleASCII(req.IdempotencyKey, 255) || req.IdempotencyKey == "":
		return WriteResult{}, c.refuse(OpWrite, "idempotency key is required: 1 to 255 visible ASCII characters")
	case !visibleASCII(req.Origin, 128) || req.Origin == "":
		return WriteResult{}, c.refuse(OpWrite, "origin is required: 1 to 128 visible ASCII characters")
	case !visibleASCII(req.IfVersion, 255) || strings.Contains(req.IfVersion, `"`):
		return WriteResult{}, c.refuse(OpWrite, "if-version must be visible ASCII without quotes")
	case req.UpsertKey != "" && !validSegment(req.UpsertKey):
		return WriteResult{}, c.refuse(OpWrite, "upsert key must be a field name")
	}
	if _, err := json.Marshal(req.Fields); err != nil {
		// The encoder's message can quote the offending value.
		return WriteResult{}, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	release, failure := c.takeBudget(ctx, OpWrite, c.writeCalls(writeOp(req)))
	if failure != nil {
		return WriteResult{}, failure
	}
	defer release()
	if req.Create {
		return c.create(ctx, writeOp(req))
	}
	return c.writeUntilLanded(ctx, writeOp(req))
}

// writeUntilLanded is the profile's read-compare-write, tried again after a failure that may
// have applied it (an answer lost to a timeout or a reset, a 5xx): the next try reads the
// record first, so a write that landed is not sent again (send resends a write's request
// only when it cannot have been applied). Found in place then, the values are reported
// written, not Replayed: this call's earlier request may well be what put them there; and
// found before the version is compared, since that request changed the version IfVersion
// names.
//
// Once an attempt went unanswered, only a later attempt that lands the write (or a read
// that finds it landed) settles it: whatever else the later attempts are told, a 429 (the
// vendor's concurrency limit, likely while the first request still runs), a refused
// connection, a refusal, a read that does not find the values yet, says nothing about
// that request, which may still commit. Their failure is then returned as the unanswered
// attempt's (stillMayLand), so callers take their lost-answer path instead of "nothing
// was written".
func (c *Client) writeUntilLanded(ctx context.Context, req writeOp) (WriteResult, error) {
	var unanswered *Error // the latest attempt so far that may still land (not Answered)
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			if cur, err := c.prof.get(ctx, c, OpWrite, req.Entity, req.RecordID); err == nil && holds(cur.Fields, req.Fields) {
				return WriteResult{Record: cur}, nil
			}
		}
		res, err := c.prof.write(ctx, c, req)
		if err == nil {
			return res, nil
		}
		var failure *Error
		if !errors.As(err, &failure) || !failure.written || !MayHaveApplied(err) {
			if failure != nil && attempt > 1 {
				// This attempt failed before its write (its read), but an earlier one sent
				// the write's request (only an attempt that sent one is followed by
				// another): the write was sent, whatever its answer was.
				failure.notSent = false
			}
			return res, stillMayLand(unanswered, attempt, err)
		}
		failure.Attempts = attempt
		failure.unansweredBefore = unanswered != nil
		if !finalStatus(failure.Status) {
			unanswered = failure
		}
		if !failure.Retryable || attempt >= c.maxAttempts || ctx.Err() != nil || !c.pause(ctx, attempt, failure) {
			return res, err
		}
	}
}

// stillMayLand is the error of a write whose last attempt failed with later, unanswered
// being an earlier attempt that got no final answer (nil: none did, and later stands): that
// attempt's error, ErrUnavailable and not Answered, with later kept in Later. Its
// RetryAfter is later's, when later asked for a wait (a 429's Retry-After): the wait is
// the system's for the next request, whatever became of the unanswered one, and callers
// that schedule the next attempt (delivery.Deferred, a retry's RetryAfter) read it there.
func stillMayLand(unanswered *Error, attempts int, later error) error {
	if unanswered == nil {
		return later
	}
	e := *unanswered
	e.Attempts, e.Later = attempts, later
	var le *Error
	if errors.As(later, &le) && le.RetryAfter > 0 {
		e.RetryAfter = le.RetryAfter
	}
	return &e
}

// writeOp is a WriteRequest past Write's checks, as the profiles take it. A type of its own
// keeps the governance architecture test (which flags any call taking a WriteRequest
// outside the guard) meaningful inside this package too.
type writeOp WriteRequest

// ListSyncErrors reads one page of the host ERP's sync errors that occurred at or after
// since (zero: from the start), continuing at cursor (empty: the first page). limit <= 0
// lets the system choose. Systems other than the host ERP return ErrUnsupported.
func (c *Client) ListSyncErrors(ctx context.Context, since time.Time, cursor string, limit int) (SyncErrorPage, error) {
	lister, ok := c.prof.(syncErrorLister)
	if !ok {
		return SyncErrorPage{}, &Error{System: c.sys, Op: OpListSyncErrors, Err: ErrUnsupported}
	}
	return lister.listSyncErrors(ctx, c, since, cursor, limit)
}

// writeHeaders are the headers every request of a write carries.
func writeHeaders(req writeOp) http.Header {
	h := http.Header{}
	h.Set(HeaderIdempotencyKey, req.IdempotencyKey)
	h.Set(HeaderOrigin, req.Origin)
	return h
}
