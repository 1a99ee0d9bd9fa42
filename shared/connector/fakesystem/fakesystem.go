// Package fakesystem owns an in-memory fake of the production systems package connector
// talks to, served over real HTTP, for the local stack and for tests. One Server fakes one
// system and speaks that vendor's published REST API only (NetSuite, Business Central,
// Salesforce, Mailchimp, ShipStation: paths, status codes, error bodies, conditional writes,
// rate-limit headers, Bearer or Basic auth), so a client configured with the wrong system
// fails against it as it would in production. The local stack mounts one Server per system
// under a prefix:
//
//	mux.Handle("/fake/hosterp/", http.StripPrefix("/fake/hosterp", hostERP.Handler()))
//
// and configures the connector with BaseURL http://127.0.0.1:3000/fake/hosterp (plus
// BasePath(system): Business Central's base URL names the company).
//
// Besides the vendor's API the fake offers what tests need: seeded records, the host ERP's
// sync-error custom record (answered through SuiteQL), an OAuth 2.0 token endpoint,
// injected failures and delays, concurrent edits, and a log of the writes it applied.
package fakesystem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

const maxBodyBytes = 1 << 20

// FakeCompanyID is the Business Central company the fake answers for.
const FakeCompanyID = "8a7f2c1e-0000-4000-8000-00000000c0de"

// BasePath is what a client's BaseURL needs after the fake's root: Business Central's base
// URL ends in the company, the others' is the root itself.
func BasePath(system connector.System) string {
	if system == connector.SystemERP2 {
		return "/api/v2.0/companies(" + FakeCompanyID + ")"
	}
	return ""
}

// AppliedWrite is one write the fake applied. Writes that changed nothing are not listed.
type AppliedWrite struct {
	Entity string
	ID     string
	// Fields are the fields the request set (for ShipStation's whole-order updates, the
	// ones whose value changed).
	Fields         map[string]any
	IdempotencyKey string
	Origin         string
	// Version is the record's version after the write, as a client reads it.
	Version string
}

// Server is a fake system. It is safe for concurrent use; every request is handled under
// one lock.
type Server struct {
	system  connector.System
	dialect dialect

	mu         sync.Mutex
	cred       string
	tokens     *tokenIssuer
	records    map[recordKey]*record
	nextID     int
	writes     []AppliedWrite
	syncErrors []syncError
	failures   []failure
	delay      time.Duration
	delayNext  []time.Duration
	dropNext   int
	editNext   int
	edited     *record
	locks      map[recordKey]int // writes each CRM record still refuses (LockNextWrites)
	requests   int
	methods    map[string]int
	schema     map[string]map[string]any
	rate       *rateWindow
	clock      func() time.Time
}

type recordKey struct{ entity, id string }

type record struct {
	id      string
	fields  map[string]any
	version int
	// created and modified are when the record was made and last changed, by the
	// server's clock; modified is what a vendor's changed-since read filters on.
	created, modified time.Time
}

type syncError struct {
	occurredAt time.Time
	errorID    string
	// internalID is the custom record's internal id, given in the order errors are added.
	internalID int
	raw        map[string]any
}

type failure struct {
	status     int
	code       string
	retryAfter string
	// writesOnly: the failure waits for a request that is not a GET (FailNextWrite).
	writesOnly bool
}

// dialect is one vendor's API on top of the shared store.
type dialect interface {
	// route answers a request that passed failure injection and auth; s.mu is held.
	route(s *Server, r *http.Request, body []byte) reply
	// errorReply is the vendor's error answer.
	errorReply(status int, code, message string) reply
	// version is a record's version as the vendor shows it (and connector.Record has it).
	version(rec *record) string
	// authorized says whether the Authorization header carries the credential.
	authorized(header, cred string) bool
	// key is the stored id of a record id (Mailchimp keys members by subscriber hash).
	key(id string) string
}

// New returns an empty fake of system. It panics on a system connector does not know,
// which is a mistake in the calling code.
func New(system connector.System) *Server {
	d, ok := dialects[system]
	if !ok {
		panic(fmt.Sprintf("fakesystem: unknown system %q", system))
	}
	return &Server{system: system, dialect: d, records: map[recordKey]*record{}, nextID: 1000}
}

var dialects = map[connector.System]dialect{
	connector.SystemHostERP:   netsuiteFake{},
	connector.SystemERP2:      bcFake{},
	connector.SystemCRM:       salesforceFake{},
	connector.SystemMarketing: mailchimpFake{},
	connector.SystemShipping:  shipstationFake{},
}

// System is the system this fake plays.
func (s *Server) System() connector.System { return s.system }

// Handler serves the fake's API at the root; mount it at a prefix with http.StripPrefix.
func (s *Server) Handler() http.Handler { return s }

// RequireToken makes every request carry the credential the way the vendor takes it: a
// bearer token (NetSuite, Business Central, Salesforce), "user:password" as HTTP Basic
// (ShipStation), or either (Mailchimp). "" turns auth off.
func (s *Server) RequireToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cred = token
}

// Seed creates or replaces a record. Fields are stored as they would arrive over JSON
// (numbers as json.Number), so Get returns what a client would read. It panics on fields
// that do not encode as JSON.
func (s *Server) Seed(entity, id string, fields map[string]any) {
	normal, err := normalise(fields)
	if err != nil {
		panic(fmt.Sprintf("fakesystem: Seed %s/%s: fields do not encode as JSON: %v", entity, id, err))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := recordKey{entity, s.dialect.key(id)}
	rec := s.records[k]
	if rec == nil {
		rec = s.newRecord(id)
		s.records[k] = rec
	}
	rec.fields = normal
	s.touch(rec)
}

// SetClock makes the server take record times from now instead of time.Now.
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = now
}

func (s *Server) now() time.Time {
	if s.clock != nil {
		return s.clock().UTC()
	}
	return time.Now().UTC()
}

// newRecord is a record made now, not yet stored or versioned.
func (s *Server) newRecord(id string) *record {
	return &record{id: id, fields: map[string]any{}, created: s.now().Truncate(time.Second)}
}

// touch marks rec changed: a new version and a modification time strictly after the last
// one to the second, the coarsest precision a vendor shows it in (NetSuite, Mailchimp),
// so the timestamp-style versions change on every write however fast writes come.
func (s *Server) touch(rec *record) {
	rec.version++
	at := s.now().Truncate(time.Second)
	if !at.After(rec.modified) {
		at = rec.modified.Add(time.Second)
	}
	rec.modified = at
}

// Get returns a copy of a record as a client reads it.
func (s *Server) Get(entity, id string) (connector.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.records[recordKey{entity, s.dialect.key(id)}]
	if rec == nil {
		return connector.Record{}, false
	}
	return connector.Record{Entity: entity, ID: id, Fields: cloneMap(rec.fields), Version: s.dialect.version(rec)}, true
}

// AddSyncError adds a host ERP sync error, as an integration would create a
// customrecord_sea_sync_error, and returns the record's internal id. raw is in the ingest
// webhook's body format; it needs an RFC 3339 occurredAt. errorId may be left out (the
// custom record's error id field may be empty); a payload given as a string is stored as
// that text, anything else as its JSON. Its tenantId is not stored: the custom record has
// no such field, the account is the tenant.
func (s *Server) AddSyncError(raw json.RawMessage) error {
	_, err := s.AddSyncErrorRecord(raw)
	return err
}

// AddSyncErrorRecord is AddSyncError, returning the new record's internal id.
func (s *Server) AddSyncErrorRecord(raw json.RawMessage) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return "", fmt.Errorf("fakesystem: sync error is not a JSON object: %v", err)
	}
	id, _ := m["errorId"].(string)
	at, _ := m["occurredAt"].(string)
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return "", errors.New("fakesystem: sync error needs an RFC 3339 occurredAt")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	item := syncError{occurredAt: t.UTC(), errorID: id, internalID: s.nextID, raw: m}
	i, _ := slices.BinarySearchFunc(s.syncErrors, item, compareSyncErrors)
	s.syncErrors = slices.Insert(s.syncErrors, i, item)
	return strconv.Itoa(item.internalID), nil
}

func compareSyncErrors(a, b syncError) int {
	if c := a.occurredAt.Compare(b.occurredAt); c != 0 {
		return c
	}
	if c := strings.Compare(a.errorID, b.errorID); c != 0 {
		return c
	}
	return a.internalID - b.internalID
}

// FailNext answers the next n requests with status and the vendor's error body (code
// injected_failure), before auth and without applying anything, as a gateway in front of
// the system would.
func (s *Server) FailNext(n int, status int) { s.FailNextRetryAfter(n, status, "") }

// FailNextRetryAfter is FailNext with a Retry-After header (seconds or an HTTP date). A
// ShipStation fake sends a 429's seconds as X-Rate-Limit-Reset instead, as ShipStation does.
func (s *Server) FailNextRetryAfter(n int, status int, retryAfter string) {
	s.failNext(n, failure{status: status, code: "injected_failure", retryAfter: retryAfter})
}

// FailNextWithCode is FailNext with the vendor's own error code in the body
// (REQUEST_LIMIT_EXCEEDED, CONCURRENCY_LIMIT_EXCEEDED, Request_EntityChanged, ...).
func (s *Server) FailNextWithCode(n int, status int, code string) {
	s.failNext(n, failure{status: status, code: code})
}

// FailNextWrite is FailNext for the next n requests that are not GETs: the read of a
// read-compare-write passes, and the write's own request fails (with a 504, the write
// was sent and its answer lost).
func (s *Server) FailNextWrite(n int, status int) {
	s.failNext(n, failure{status: status, code: "injected_failure", writesOnly: true})
}

func (s *Server) failNext(n int, f failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, f)
	}
}

// Delay holds every answer back by d after the request has been handled, so a client that
// times out has still had its write applied, as happens with a slow real system.
func (s *Server) Delay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// DelayNext holds back the answers of the next n requests by d (instead of Delay's).
func (s *Server) DelayNext(n int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.delayNext = append(s.delayNext, d)
	}
}

// DropNext handles the next n requests and then closes their connections without an
// answer: the write is applied, the client sees a reset connection.
func (s *Server) DropNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropNext += n
}

// EditAfterNextReads makes the next n record reads be followed by someone else's edit of
// that record (its version moves on), so a write based on the read meets a changed record.
func (s *Server) EditAfterNextReads(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.editNext += n
}

// Writes returns copies of the writes applied so far, in order.
func (s *Server) Writes() []AppliedWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]AppliedWrite, len(s.writes))
	for i, w := range s.writes {
		w.Fields = cloneMap(w.Fields)
		out[i] = w
	}
	return out
}

// WritesPath lists the writes applied so far over HTTP, so a browser test can prove a
// record was written exactly once.
const WritesPath = "/_writes"

// WriteCount is the number of writes applied so far.
func (s *Server) WriteCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.writes)
}

// Requests is the number of requests received so far, failed ones included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// RequestsByMethod is the number of requests received so far per HTTP method, failed
// ones included: a test that must prove nothing was written counts the non-GETs.
func (s *Server) RequestsByMethod() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.methods)
}

// reply is an answer decided under the lock and written after it.
type reply struct {
	status     int
	header     http.Header
	body       []byte
	delay      time.Duration
	drop       bool
	retryAfter string
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Read the body before taking the lock, so a slow client does not stall the others.
	var body []byte
	if r.Body != nil {
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes)); err != nil {
			writeReply(w, r, s.dialect.errorReply(http.StatusRequestEntityTooLarge, "body_too_large", "request body too large"))
			return
		}
		body = buf.Bytes()
	}
	s.mu.Lock()
	rep := s.handle(r, body)
	s.mu.Unlock()
	writeReply(w, r, rep)
}

// handle runs with s.mu held.
func (s *Server) handle(r *http.Request, body []byte) reply {
	s.requests++
	if s.methods == nil {
		s.methods = map[string]int{}
	}
	s.methods[r.Method]++
	rep := s.route(r, body)
	if s.edited != nil {
		s.touch(s.edited)
		s.edited = nil
	}
	if rep.header == nil {
		rep.header = http.Header{}
	}
	s.rateHeaders(rep)
	rep.delay = s.delay
	if len(s.delayNext) > 0 {
		rep.delay, s.delayNext = s.delayNext[0], s.delayNext[1:]
	}
	if s.dropNext > 0 {
		s.dropNext--
		rep.drop = true
	}
	return rep
}

func (s *Server) route(r *http.Request, body []byte) reply {
	if len(s.failures) > 0 && !(s.failures[0].writesOnly && r.Method == http.MethodGet) {
		f := s.failures[0]
		s.failures = s.failures[1:]
		return s.injected(f)
	}
	if limited, ok := s.overRateLimit(); ok {
		return limited
	}
	path := r.URL.EscapedPath()
	if path == s.tokenPath() && s.tokens != nil {
		return s.tokens.issue(r, body)
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		return s.dialect.errorReply(http.StatusUnauthorized, "unauthorized", "missing or invalid credentials")
	}
	if path == WritesPath && r.Method == http.MethodGet {
		b, _ := json.Marshal(map[string]any{"count": len(s.writes), "writes": s.writes})
		return reply{status: http.StatusOK, body: b}
	}
	if rep, ok := s.metadata(r); ok {
		return rep
	}
	return s.dialect.route(s, r, body)
}

func (s *Server) injected(f failure) reply {
	rep := s.dialect.errorReply(f.status, f.code, "injected failure")
	if f.retryAfter != "" && s.system == connector.SystemShipping && f.status == http.StatusTooManyRequests &&
		!strings.ContainsAny(f.retryAfter, " ,") {
		rep.header.Set("X-Rate-Limit-Reset", f.retryAfter)
		return rep
	}
	rep.retryAfter = f.retryAfter
	return rep
}

func (s *Server) authorized(header string) bool {
	if s.tokens != nil {
		return s.tokens.valid(header)
	}
	return s.cred == "" || s.dialect.authorized(header, s.cred)
}

// lookup finds a record; after a read it may play someone else's edit (EditAfterNextReads).
func (s *Server) lookup(entity, id string, read bool) *record {
	rec := s.records[recordKey{entity, s.dialect.key(id)}]
	if rec != nil && read && s.editNext > 0 {
		// The edit lands once this read's answer is rendered (handle).
		s.editNext--
		s.edited = rec
	}
	return rec
}

// apply stores fields into rec and logs the write.
func (s *Server) apply(r *http.Request, entity string, rec *record, changed map[string]any) {
	for k, v := range changed {
		rec.fields[k] = v
	}
	s.touch(rec)
	s.writes = append(s.writes, AppliedWrite{
		Entity: entity, ID: rec.id, Fields: cloneMap(changed),
		IdempotencyKey: r.Header.Get(connector.HeaderIdempotencyKey),
		Origin:         r.Header.Get(connector.HeaderOrigin), Version: s.dialect.version(rec),
	})
}
