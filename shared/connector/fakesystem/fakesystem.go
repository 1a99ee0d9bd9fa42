// Package fakesystem owns an in-memory fake of the production systems package connector
// talks to, served over real HTTP, for the local stack and for tests. One Server fakes one
// system, speaking that system's path convention only, so a client configured with the
// wrong system fails against it as it would in production; the local stack mounts one
// Server per system under a prefix:
//
//	mux.Handle("/fake/hosterp/", http.StripPrefix("/fake/hosterp", hostERP.Handler()))
//
// and configures the connector with BaseURL http://127.0.0.1:3000/fake/hosterp.
//
// The fake implements what the connector relies on and what tests need to break: records
// with versions (ETag and If-Match), partial updates, idempotency keys with replay and
// reuse detection, bearer-token auth, the host ERP's paged sync-error listing, injected
// failures and delays, and a log of the writes it applied.
package fakesystem

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// recordPrefixes restates the path conventions from the connector's documentation rather
// than reading the connector's table, so a mistake in that table fails the tests instead of
// being mirrored here.
var recordPrefixes = map[connector.System]string{
	connector.SystemHostERP:   "/api/records",
	connector.SystemERP2:      "/v2",
	connector.SystemCRM:       "/crm/v1/objects",
	connector.SystemMarketing: "/marketing/v3",
	connector.SystemShipping:  "/shipping/v1",
}

const syncErrorsPath = "/api/sync-errors"

// Listing page sizes.
const (
	DefaultListLimit = 100
	MaxListLimit     = 500
)

const maxBodyBytes = 1 << 20

// AppliedWrite is one write the fake applied. Replays are not applied and not listed.
type AppliedWrite struct {
	Entity         string
	ID             string
	Fields         map[string]any
	IdempotencyKey string
	Origin         string
	// Version is the record's version after the write.
	Version string
}

// Server is a fake system. It is safe for concurrent use; every request is handled under
// one lock, so concurrent writes with the same idempotency key are applied once and the
// others replay.
type Server struct {
	system connector.System
	prefix string

	mu         sync.Mutex
	token      string
	records    map[recordKey]*record
	idem       map[string]*storedAnswer
	writes     []AppliedWrite
	syncErrors []syncError
	failures   []failure
	delay      time.Duration
	delayNext  []time.Duration
	dropNext   int
	requests   int
}

type recordKey struct{ entity, id string }

type record struct {
	fields  map[string]any
	version int
}

type storedAnswer struct {
	fingerprint [32]byte
	status      int
	etag        string
	body        []byte
}

type syncError struct {
	occurredAt time.Time
	errorID    string
	raw        json.RawMessage
}

type failure struct {
	status     int
	retryAfter string
}

// New returns an empty fake of system. It panics on a system connector does not know,
// which is a mistake in the calling code.
func New(system connector.System) *Server {
	prefix, ok := recordPrefixes[system]
	if !ok {
		panic(fmt.Sprintf("fakesystem: unknown system %q", system))
	}
	return &Server{
		system:  system,
		prefix:  prefix,
		records: map[recordKey]*record{},
		idem:    map[string]*storedAnswer{},
	}
}

// System is the system this fake plays.
func (s *Server) System() connector.System { return s.system }

// Handler serves the fake's API at the root; mount it at a prefix with http.StripPrefix.
func (s *Server) Handler() http.Handler { return s }

// RequireToken makes every request need Authorization: Bearer token; "" turns auth off.
func (s *Server) RequireToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
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
	rec := s.records[recordKey{entity, id}]
	if rec == nil {
		rec = &record{}
		s.records[recordKey{entity, id}] = rec
	}
	rec.fields = normal
	rec.version++
}

// Get returns a copy of a record.
func (s *Server) Get(entity, id string) (connector.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.records[recordKey{entity, id}]
	if rec == nil {
		return connector.Record{}, false
	}
	return connector.Record{Entity: entity, ID: id, Fields: cloneMap(rec.fields), Version: strconv.Itoa(rec.version)}, true
}

// AddSyncError adds a host ERP sync error to the listing. raw is a record in the ingest
// webhook's body format; it needs at least errorId and an RFC 3339 occurredAt.
func (s *Server) AddSyncError(raw json.RawMessage) error {
	var head struct {
		ErrorID    string `json:"errorId"`
		OccurredAt string `json:"occurredAt"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return fmt.Errorf("fakesystem: sync error is not a JSON object: %w", err)
	}
	at, err := time.Parse(time.RFC3339Nano, head.OccurredAt)
	if err != nil || head.ErrorID == "" {
		return errors.New("fakesystem: sync error needs errorId and an RFC 3339 occurredAt")
	}
	item := syncError{occurredAt: at.UTC(), errorID: head.ErrorID, raw: slices.Clone(raw)}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, _ := slices.BinarySearchFunc(s.syncErrors, item, compareSyncErrors)
	s.syncErrors = slices.Insert(s.syncErrors, i, item)
	return nil
}

func compareSyncErrors(a, b syncError) int {
	if c := a.occurredAt.Compare(b.occurredAt); c != 0 {
		return c
	}
	return strings.Compare(a.errorID, b.errorID)
}

// FailNext answers the next n requests with status and an error body, before auth and
// without applying anything, as a gateway in front of the system would.
func (s *Server) FailNext(n int, status int) { s.FailNextRetryAfter(n, status, "") }

// FailNextRetryAfter is FailNext with a Retry-After header (seconds or an HTTP date).
func (s *Server) FailNextRetryAfter(n int, status int, retryAfter string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, failure{status: status, retryAfter: retryAfter})
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

func (s *Server) listWrites() reply {
	b, err := json.Marshal(map[string]any{"count": len(s.writes), "writes": s.writes})
	if err != nil {
		return errorReply(http.StatusInternalServerError, "internal", "cannot encode writes")
	}
	return reply{status: http.StatusOK, body: b}
}

// WriteCount is the number of writes applied so far.
func (s *Server) WriteCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.writes)
}

// Requests is the number of requests received so far, failed and replayed ones included.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
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
		var err error
		body, err = readBody(w, r)
		if err != nil {
			writeReply(w, r, errorReply(http.StatusRequestEntityTooLarge, "body_too_large", "request body too large"))
			return
		}
	}
	s.mu.Lock()
	rep := s.handle(r, body)
	s.mu.Unlock()
	writeReply(w, r, rep)
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	return buf.Bytes(), err
}

// handle runs with s.mu held.
func (s *Server) handle(r *http.Request, body []byte) reply {
	s.requests++
	rep := s.route(r, body)
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
	if len(s.failures) > 0 {
		f := s.failures[0]
		s.failures = s.failures[1:]
		rep := errorReply(f.status, "injected_failure", "injected failure")
		rep.retryAfter = f.retryAfter
		return rep
	}
	if s.token != "" && !bearerMatches(r.Header.Get("Authorization"), s.token) {
		return errorReply(http.StatusUnauthorized, "unauthorized", "missing or invalid bearer token")
	}
	path := r.URL.EscapedPath()
	if s.system == connector.SystemHostERP && path == syncErrorsPath {
		if r.Method != http.MethodGet {
			return methodNotAllowed("GET")
		}
		return s.listSyncErrors(r.URL.Query())
	}
	if path == WritesPath && r.Method == http.MethodGet {
		return s.listWrites()
	}
	rest, ok := strings.CutPrefix(path, s.prefix+"/")
	if !ok {
		return errorReply(http.StatusNotFound, "route_not_found", "no such route")
	}
	segs := strings.Split(rest, "/")
	if len(segs) != 2 {
		return errorReply(http.StatusNotFound, "route_not_found", "no such route")
	}
	entity, err1 := url.PathUnescape(segs[0])
	id, err2 := url.PathUnescape(segs[1])
	if err1 != nil || err2 != nil || entity == "" || id == "" {
		return errorReply(http.StatusNotFound, "route_not_found", "no such route")
	}
	switch r.Method {
	case http.MethodGet:
		return s.getRecord(entity, id)
	case http.MethodPatch:
		return s.patchRecord(r, entity, id, body)
	default:
		return methodNotAllowed("GET, PATCH")
	}
}

func (s *Server) getRecord(entity, id string) reply {
	rec := s.records[recordKey{entity, id}]
	if rec == nil {
		// The message quotes the id, as real systems do, so tests can check the client
		// keeps messages out of its errors.
		return errorReply(http.StatusNotFound, "record_not_found", fmt.Sprintf("%s %s does not exist", entity, id))
	}
	return recordReply(entity, id, rec)
}

func (s *Server) patchRecord(r *http.Request, entity, id string, body []byte) reply {
	key := r.Header.Get(connector.HeaderIdempotencyKey)
	if key == "" {
		return errorReply(http.StatusBadRequest, "idempotency_key_required", "Idempotency-Key header is required")
	}
	var patch struct {
		Fields map[string]any `json:"fields"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&patch); err != nil || len(patch.Fields) == 0 {
		return errorReply(http.StatusBadRequest, "invalid_body", `body must be {"fields": {...}} with at least one field`)
	}
	canonical, err := json.Marshal(patch.Fields)
	if err != nil {
		return errorReply(http.StatusBadRequest, "invalid_body", "fields do not re-encode")
	}
	ifMatch := r.Header.Get("If-Match")
	fp := sha256.Sum256([]byte(r.Method + "\n" + r.URL.EscapedPath() + "\n" + ifMatch + "\n" + string(canonical)))
	if prev := s.idem[key]; prev != nil {
		if prev.fingerprint != fp {
			return errorReply(http.StatusUnprocessableEntity, "idempotency_key_reused",
				"this Idempotency-Key was used with a different request")
		}
		rep := reply{status: prev.status, body: prev.body, header: http.Header{}}
		rep.header.Set("ETag", prev.etag)
		rep.header.Set(connector.HeaderReplayed, "true")
		return rep
	}
	rec := s.records[recordKey{entity, id}]
	if rec == nil {
		return errorReply(http.StatusNotFound, "record_not_found", fmt.Sprintf("%s %s does not exist", entity, id))
	}
	if ifMatch != "" && strings.Trim(strings.TrimPrefix(ifMatch, "W/"), `"`) != strconv.Itoa(rec.version) && ifMatch != "*" {
		return errorReply(http.StatusPreconditionFailed, "version_mismatch", "the record has changed")
	}
	for k, v := range patch.Fields {
		rec.fields[k] = v
	}
	rec.version++
	s.writes = append(s.writes, AppliedWrite{
		Entity: entity, ID: id, Fields: cloneMap(patch.Fields), IdempotencyKey: key,
		Origin: r.Header.Get(connector.HeaderOrigin), Version: strconv.Itoa(rec.version),
	})
	rep := recordReply(entity, id, rec)
	// Only applied writes are remembered: a refused request changed nothing, so its key
	// may be tried again once the cause is fixed.
	s.idem[key] = &storedAnswer{fingerprint: fp, status: rep.status, etag: rep.header.Get("ETag"), body: rep.body}
	return rep
}

type wireRecord struct {
	ID      string         `json:"id"`
	Entity  string         `json:"entity"`
	Fields  map[string]any `json:"fields"`
	Version string         `json:"version"`
}

func recordReply(entity, id string, rec *record) reply {
	version := strconv.Itoa(rec.version)
	body, err := json.Marshal(wireRecord{ID: id, Entity: entity, Fields: rec.fields, Version: version})
	if err != nil {
		return errorReply(http.StatusInternalServerError, "internal", "record does not encode")
	}
	h := http.Header{}
	h.Set("ETag", `"`+version+`"`)
	return reply{status: http.StatusOK, header: h, body: body}
}

type cursor struct {
	At time.Time `json:"t"`
	ID string    `json:"id"`
}

func (s *Server) listSyncErrors(q url.Values) reply {
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return errorReply(http.StatusBadRequest, "invalid_since", "since must be an RFC 3339 date-time")
		}
		since = t
	}
	limit := DefaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errorReply(http.StatusBadRequest, "invalid_limit", "limit must be a positive integer")
		}
		limit = min(n, MaxListLimit)
	}
	start := 0
	if v := q.Get("cursor"); v != "" {
		var c cursor
		raw, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil || json.Unmarshal(raw, &c) != nil || c.ID == "" {
			return errorReply(http.StatusBadRequest, "invalid_cursor", "cursor is not one this system issued")
		}
		// Keyset, not offset: records added while a caller pages are neither skipped nor
		// repeated.
		start, _ = slices.BinarySearchFunc(s.syncErrors, syncError{occurredAt: c.At, errorID: c.ID}, compareSyncErrors)
		if start < len(s.syncErrors) && compareSyncErrors(s.syncErrors[start], syncError{occurredAt: c.At, errorID: c.ID}) == 0 {
			start++
		}
	}
	if from, _ := slices.BinarySearchFunc(s.syncErrors, syncError{occurredAt: since}, compareSyncErrors); from > start {
		start = from
	}
	end := min(start+limit, len(s.syncErrors))
	page := struct {
		Items      []json.RawMessage `json:"items"`
		NextCursor string            `json:"nextCursor"`
	}{Items: []json.RawMessage{}}
	for _, it := range s.syncErrors[start:end] {
		page.Items = append(page.Items, it.raw)
	}
	if end < len(s.syncErrors) && end > start {
		last := s.syncErrors[end-1]
		raw, _ := json.Marshal(cursor{At: last.occurredAt, ID: last.errorID})
		page.NextCursor = base64.RawURLEncoding.EncodeToString(raw)
	}
	body, err := json.Marshal(page)
	if err != nil {
		return errorReply(http.StatusInternalServerError, "internal", "page does not encode")
	}
	return reply{status: http.StatusOK, header: http.Header{}, body: body}
}

func bearerMatches(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

func methodNotAllowed(allow string) reply {
	rep := errorReply(http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")
	rep.header.Set("Allow", allow)
	return rep
}

func errorReply(status int, code, message string) reply {
	body, _ := json.Marshal(map[string]string{"code": code, "message": message})
	return reply{status: status, header: http.Header{}, body: body}
}

func writeReply(w http.ResponseWriter, r *http.Request, rep reply) {
	if rep.delay > 0 {
		// The request is already handled; the wait only delays the answer, and ends early
		// when the client has gone, so a closing test server is not held up.
		t := time.NewTimer(rep.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
		}
	}
	if rep.drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if rep.retryAfter != "" {
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	w.Write(rep.body)
}

// normalise gives fields the shape they have after a JSON round trip.
func normalise(fields map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return cloneMap(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneValue(e)
		}
		return out
	default:
		return v
	}
}
