package connector

// Creating, upserting and finding records: what a flow needs when the target record has
// another id than the source's (real systems never share ids).
//
//	hosterp    NetSuite: POST {type} → 204 + Location (the new id is its last segment);
//	           upsert PUT {type}/eid:{externalId} (UpsertKey "externalId") → 204 + Location;
//	           find by SuiteQL SELECT id FROM {type} WHERE {field} = '…'
//	erp2       Business Central: POST {entitySet} → 201 + the entity; no upsert (find by
//	           $filter={field} eq '…', then create); find by $filter
//	crm        Salesforce: POST sobjects/{SObject} → 201 {"id","success","errors"}; upsert
//	           PATCH sobjects/{SObject}/{ExtIdField}/{value} → 201 created / 200 updated
//	           {"id","created"} (204 from older versions); find by SOQL SELECT Id … LIMIT 2
//	marketing  Mailchimp: POST lists/{id}/members (email_address required); upsert PUT
//	           lists/{id}/members/{subscriberHash} (UpsertKey "email_address", RecordID the
//	           address); find by email_address only (the member is at its hash)
//	shipping   ShipStation: POST orders/createorder, without orderKey (create) or with it
//	           (UpsertKey "orderKey", an upsert sending the whole order); find by
//	           orderNumber (list orders' filter, matched exactly here)
//
// A create is the one write that is not idempotent at the vendor: sending it twice makes
// two records. Its request is therefore resent by the client only after failures that
// cannot have applied it (429, a refused connection, Salesforce's UNABLE_TO_LOCK_ROW);
// after any other failure the caller must find out whether it happened before creating
// again (MayHaveApplied). Upserts are idempotent by their key and retried like any write.

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"syscall"
)

// creator is a profile that can make a new record.
type creator interface {
	create(ctx context.Context, c *Client, req writeOp) (WriteResult, error)
}

// finder is a profile that can find records by a field's value.
type finder interface {
	find(ctx context.Context, c *Client, entity, field, value string) ([]string, error)
}

// OpFind names a find in Error.Op.
const OpFind = "find"

// MaxFound is how many ids Find returns at most: enough to tell one match from several.
const MaxFound = 2

// fieldPattern is what Find accepts as a field name: it goes into a query's text.
var fieldPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

func (c *Client) create(ctx context.Context, req writeOp) (WriteResult, error) {
	cr, ok := c.prof.(creator)
	if !ok {
		return WriteResult{}, &Error{System: c.sys, Op: OpWrite, Err: ErrUnsupported, Cause: errors.New("records cannot be created here")}
	}
	return cr.create(ctx, c, req)
}

// Find returns the ids of up to MaxFound records of entity whose field equals value, in
// the vendor's query (see the table above). It is a read: anyone may call it. None found
// is an empty slice, not an error. A system or field the vendor cannot search by answers
// ErrUnsupported.
func (c *Client) Find(ctx context.Context, entity, field, value string) ([]string, error) {
	f, ok := c.prof.(finder)
	switch {
	case !ok:
		return nil, &Error{System: c.sys, Op: OpFind, Err: ErrUnsupported}
	case !entityPattern.MatchString(entity) && !(c.sys == SystemMarketing && validSegment(entity)):
		return nil, c.refuse(OpFind, "entity must be 1 to 128 letters, digits or '_'")
	case !fieldPattern.MatchString(field):
		return nil, c.refuse(OpFind, "field must be 1 to 128 letters, digits or '_', not starting with a digit")
	case value == "" || len(value) > 255 || strings.ContainsFunc(value, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return nil, c.refuse(OpFind, "value must be 1 to 255 characters without control characters")
	}
	ids, err := f.find(ctx, c, entity, field, value)
	if len(ids) > MaxFound {
		ids = ids[:MaxFound]
	}
	return ids, err
}

// sendCreate sends a create's request with the write's headers; it is resent only after a
// failure that cannot have applied it.
func (c *Client) sendCreate(ctx context.Context, method, target string, body []byte, req writeOp) (answer, error) {
	return c.send(ctx, call{op: OpWrite, method: method, target: target, body: body, header: writeHeaders(req), once: true}, notApplied)
}

// notApplied: the system asked us to slow down, said it did not carry the request out (a
// record lock it could not get: salesforce.go), or the connection was refused before the
// request went out; either way nothing was written and no record was made.
func notApplied(e *Error) bool {
	return e.unapplied || e.Status == http.StatusTooManyRequests || e.Status == 0 && errors.Is(e.Cause, syscall.ECONNREFUSED)
}

// MayHaveApplied reports whether a failed write may still have reached the system: its
// answer was lost or the system failed midway (timeouts, resets, 5xx). A refusal (4xx), a
// rate limit, a record lock the system could not get (Salesforce's UNABLE_TO_LOCK_ROW:
// ErrUnavailable and retried, yet nothing written), a refused connection, a configuration
// problem, or an error that is not a connector's (the write was never sent) did not apply
// it, unless an earlier attempt of the same write went unanswered: Write then returns that
// attempt's error, with the later failure in Error.Later (writeUntilLanded).
func MayHaveApplied(err error) bool {
	var e *Error
	if !errors.As(err, &e) || !errors.Is(e.Err, ErrUnavailable) {
		return false
	}
	return !notApplied(e)
}

// WriteSent reports whether a failed write's own request (the one that changes the
// record: a PATCH, PUT or POST) went out, in any attempt. False for a failure before it:
// the read of read-compare-write, the credential's token request, a refusal before
// anything was sent (Attempts 0: a local check, no rate budget), or an error that is not
// a connector's (no connector, a guard's refusal). A write whose request went out and
// whose answer was lost is MayHaveApplied and WriteSent; one that failed before its
// request is MayHaveApplied only in that ErrUnavailable is what a 504 on its read says,
// and nothing of it can be in the record.
func WriteSent(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Attempts > 0 && !e.notSent
}

// Answered reports whether every attempt of a failed write got the system's own final
// answer, so that a read of the record after it tells whether the write landed: a 500 or a
// 503 (the request failed, or was not taken). No answer at all (a timeout, a reset), a
// gateway's 502 or 504, or a CDN's own 5xx (Cloudflare's 520–527, "Cloudflare 5xx errors",
// https://developers.cloudflare.com/support/troubleshooting/http-status-codes/cloudflare-5xx-errors/)
// is not one: the system may still be working on that request, and it may land after the
// read. Neither is a write whose earlier attempt went unanswered, whatever its last was told.
// Assumption, named (no vendor of the five documents it): a 500 or 503 is the system's own
// answer to a request it has stopped working on; a front door that answers 503 for an
// origin timeout would make a write that landed late look failed.
func Answered(err error) bool {
	var e *Error
	return errors.As(err, &e) && !e.unansweredBefore && finalStatus(e.Status)
}

// finalStatus is an answer after which the request is over (Answered).
func finalStatus(status int) bool {
	return status == http.StatusInternalServerError || status == http.StatusServiceUnavailable
}

// lastSegment is the id at the end of a Location header (NetSuite's answer to a create).
func lastSegment(location string) string {
	location, _, _ = strings.Cut(location, "?")
	i := strings.LastIndexByte(strings.TrimRight(location, "/"), '/')
	if i < 0 {
		return ""
	}
	return strings.TrimRight(location, "/")[i+1:]
}

// createdResult reads the new record back, so the caller gets it as the system holds it.
func createdResult(ctx context.Context, c *Client, p profile, entity, id string) (WriteResult, error) {
	if id == "" || !validSegment(id) {
		// Answered 2xx: the create went out and may have made the record (WriteSent).
		return WriteResult{}, &Error{System: c.sys, Op: OpWrite, Err: ErrUnavailable, Attempts: 1,
			Cause: errors.New("the create's answer names no record id")}
	}
	rec, err := p.get(ctx, c, OpWrite, entity, id)
	if err != nil {
		// The record exists: the caller must not take this for a failed create.
		return WriteResult{Record: Record{Entity: entity, ID: id}, Created: true}, nil
	}
	return WriteResult{Record: rec, Created: true}, nil
}

// quoteSQL is a string literal of SuiteQL and OData: single quotes, doubled inside.
func quoteSQL(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// quoteSOQL is a SOQL string literal: backslash escapes.
func quoteSOQL(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(v) + "'"
}
