package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// profile is one vendor's published REST API: how it authenticates, where a record lives,
// how a write is made idempotent, and how its error bodies read. The retry loop, the error
// taxonomy and the limits on what is read are the Client's and shared by all.
type profile interface {
	// auth is how a static Token is sent.
	auth() authScheme
	// check refuses a configuration the vendor cannot work with ("" when fine).
	check(cfg Config, base *url.URL) string
	get(ctx context.Context, c *Client, op, entity, id string) (Record, error)
	write(ctx context.Context, c *Client, req writeOp) (WriteResult, error)
	// failure reads an error answer: the vendor's error code, and its meaning.
	failure(status int, h http.Header, body []byte, now time.Time) failureInfo
}

// syncErrorLister is a profile that can list the host ERP's sync errors.
type syncErrorLister interface {
	listSyncErrors(ctx context.Context, c *Client, since time.Time, cursor string, limit int) (SyncErrorPage, error)
}

// recordOf reads an answer's body as one record: versionKey's value is its Version, the
// envelope keys are dropped, and the rest are its Fields.
func (c *Client) recordOf(op string, ans answer, entity, id, versionKey string, envelope ...string) (Record, error) {
	obj, ok := decodeObject(ans.body)
	if !ok {
		return Record{}, c.malformed(op, ans)
	}
	fields, version := splitRecord(obj, versionKey, envelope...)
	return Record{Entity: entity, ID: id, Fields: fields, Version: version}, nil
}

// decodeObject reads a JSON object keeping numbers as json.Number, so amounts and large ids
// reach the caller (and the governance ledger's payload hash) exactly as the system sent
// them.
func decodeObject(body []byte) (map[string]any, bool) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// splitRecord takes the vendor's envelope keys out of a decoded object and returns the
// rest as the record's fields, and the version key's value as text.
func splitRecord(obj map[string]any, versionKey string, envelope ...string) (map[string]any, string) {
	version := ""
	if v, ok := obj[versionKey]; ok {
		version = scalarText(v)
		delete(obj, versionKey)
	}
	for _, k := range envelope {
		delete(obj, k)
	}
	return obj, version
}

// scalarText is a string or number as text; "" for anything else.
func scalarText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// readForWrite is the read half of read-compare-write: it reads the record, checks
// IfVersion against it, and reports whether the record already holds every field of the
// write. absentOK lets an upsert go on when the record does not exist yet.
func (c *Client) readForWrite(ctx context.Context, p profile, req writeOp, absentOK bool) (cur Record, exists, done bool, err error) {
	return c.compareRead(req, absentOK)(p.get(ctx, c, OpWrite, req.Entity, req.RecordID))
}

// compareRead is readForWrite's compare half, for profiles that read a record their own
// way (by an external id).
func (c *Client) compareRead(req writeOp, absentOK bool) func(Record, error) (Record, bool, bool, error) {
	return func(cur Record, err error) (Record, bool, bool, error) {
		if err != nil {
			if absentOK && isNotFound(err) && req.IfVersion == "" {
				return Record{}, false, false, nil
			}
			return Record{}, false, false, err
		}
		if req.IfVersion != "" && cur.Version != req.IfVersion {
			return Record{}, true, false, &Error{System: c.sys, Op: OpWrite, Err: ErrConflict, Code: "version_mismatch"}
		}
		return cur, true, holds(cur.Fields, req.Fields), nil
	}
}

// errUnreadAfterWrite is the Cause of a write whose request was answered 2xx but whose
// record could not be read back (readBack).
var errUnreadAfterWrite = errors.New("the write was answered, but the record could not be read back")

// readBack reads the record after the write's own request was answered 2xx, so the caller
// gets it as the system now holds it. The write has landed then, so a read that fails (a
// 429, a refused connection) must not become the write's error: callers take those for
// nothing written. It is returned as a lost answer instead (ErrUnavailable,
// MayHaveApplied, not Answered), with the read's failure in Later; callers settle a lost
// answer by reading the record again. Retryable: a retry's read-compare-write finds the
// values in place and sends nothing.
func (c *Client) readBack(ctx context.Context, p profile, entity, id string) (Record, error) {
	rec, err := p.get(ctx, c, OpWrite, entity, id)
	if err != nil {
		// Attempts 1: the write's request went out and was answered (WriteSent).
		return Record{}, &Error{System: c.sys, Op: OpWrite, Err: ErrUnavailable, Retryable: true, Attempts: 1, Cause: errUnreadAfterWrite, Later: err}
	}
	return rec, nil
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// Holds reports whether a record's fields already hold every field of want, compared
// as a write compares them before sending (see holds): how a caller that could not learn a
// write's outcome settles it by reading the record.
func Holds(have, want map[string]any) bool { return holds(have, want) }

// holds reports whether have already holds every field of want. Objects are compared as
// subsets (a partial update of a sub-record leaves its other fields), arrays and scalars
// exactly, numbers by value (1500 equals 1500.0).
func holds(have, want map[string]any) bool {
	norm, ok := normalise(want)
	if !ok {
		return false
	}
	for k, w := range norm {
		h, present := have[k]
		if !present || !sameValue(h, w) {
			return false
		}
	}
	return true
}

func sameValue(h, w any) bool {
	switch w := w.(type) {
	case map[string]any:
		hm, ok := h.(map[string]any)
		return ok && holds(hm, w)
	case []any:
		ha, ok := h.([]any)
		if !ok || len(ha) != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(ha[i], w[i]) {
				return false
			}
		}
		return true
	case json.Number:
		hn, ok := h.(json.Number)
		return ok && sameNumber(hn, w)
	case string:
		hs, ok := h.(string)
		return ok && (hs == w || sameInstant(hs, w))
	default:
		return h == w
	}
}

// dateTimePattern is an ISO 8601 date-time with its zone: what a write sends to a
// date-time field, and what the systems answer it with, each in its own spelling.
var dateTimePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$`)

// sameInstant reports whether two date-times with zones name the same instant. A system
// keeps a date-time, not the text it was sent: Salesforce takes a dateTime as
// yyyy-MM-ddTHH:mm:ss.SSS+/-HH:mm or …Z ("Valid Date and DateTime Formats",
// https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/intro_valid_date_formats.htm)
// and answers in one form of its own, "2026-11-29T09:30:00.000+0000" as its
// LastModifiedDate reads (that custom dateTime fields answer alike is assumed); Mailchimp
// writes its times with "+00:00". Compared as text, a write that landed would not be found
// in the record: never a replay, and a lost answer settled as not landed.
func sameInstant(a, b string) bool {
	ta, okA := parseDateTime(a)
	tb, okB := parseDateTime(b)
	return okA && okB && ta.Equal(tb)
}

func parseDateTime(s string) (time.Time, bool) {
	if !dateTimePattern.MatchString(s) {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, okx := new(big.Rat).SetString(a.String())
	y, oky := new(big.Rat).SetString(b.String())
	return okx && oky && x.Cmp(y) == 0
}

// normalise gives fields the shape they have after a JSON round trip.
func normalise(fields map[string]any) (map[string]any, bool) {
	raw, err := json.Marshal(fields)
	if err != nil {
		return nil, false
	}
	m, ok := decodeObject(raw)
	return m, ok
}
