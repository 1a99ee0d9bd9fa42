package connector

// Mailchimp keys a list's members by the subscriber hash (MD5 of the lower-cased
// address). "Add member to list" is POST /3.0/lists/{list_id}/members (400 "Member
// Exists" when the address is there), "Add or update list member" PUT
// /3.0/lists/{list_id}/members/{subscriber_hash} is the upsert, keyed here by
// email_address; finding by the address is reading the member at its hash. The record id
// a create or upsert answers is the hash (the member's "id"), which keeps the address out
// of the ids others store.

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// MailchimpEmail is the upsert and find key Mailchimp takes: the member's address.
const MailchimpEmail = "email_address"

func (m mailchimp) create(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	req.Fields = nestMergeFields(req.Fields)
	email, _ := req.Fields[MailchimpEmail].(string)
	if email == "" {
		return WriteResult{}, c.refuse(OpWrite, "a new member needs email_address")
	}
	data, err := json.Marshal(memberBody(req, false, "status"))
	if err != nil {
		return WriteResult{}, c.refuse(OpWrite, "fields are not JSON-encodable")
	}
	ans, err := c.sendCreate(ctx, http.MethodPost, c.base+"/3.0/lists/"+url.PathEscape(req.Entity)+"/members", data, req)
	if err != nil {
		return WriteResult{}, err
	}
	rec, err := m.decode(c, OpWrite, ans, req.Entity, SubscriberHash(email))
	return WriteResult{Record: rec, Created: err == nil}, err
}

// upsert is the member write keyed by the address (RecordID), answering the hash as id.
func (m mailchimp) upsert(ctx context.Context, c *Client, req writeOp) (WriteResult, error) {
	if req.UpsertKey != MailchimpEmail || subscriberHashPattern.MatchString(req.RecordID) {
		return WriteResult{}, c.refuse(OpWrite, "Mailchimp upserts by email_address, with the address as record id")
	}
	res, exists, err := m.put(ctx, c, req)
	res.Record.ID = SubscriberHash(req.RecordID)
	res.Created = err == nil && !exists && !res.Replayed
	return res, err
}

// find reads the member at the address's hash.
func (m mailchimp) find(ctx context.Context, c *Client, listID, field, value string) ([]string, error) {
	if field != MailchimpEmail {
		return nil, &Error{System: c.sys, Op: OpFind, Err: ErrUnsupported, Code: "find_by_email_address_only"}
	}
	_, err := m.get(ctx, c, OpFind, listID, value)
	switch {
	case isNotFound(err):
		return []string{}, nil
	case err != nil:
		return nil, err
	}
	return []string{SubscriberHash(value)}, nil
}

// memberBody is a member write's body: the fields, the address when the id is one, and a
// status for a new member under statusKey (status_if_new for the upsert, status for a
// create), "pending" (double opt-in) unless the write sets one.
func memberBody(req writeOp, isEmail bool, statusKey string) map[string]any {
	body := make(map[string]any, len(req.Fields)+2)
	for k, v := range req.Fields {
		body[k] = v
	}
	if _, ok := body[MailchimpEmail]; !ok && isEmail {
		body[MailchimpEmail] = req.RecordID
	}
	if _, ok := body[statusKey]; !ok {
		status, _ := body["status"].(string)
		if status == "" {
			status = "pending"
		}
		body[statusKey] = status
	}
	return body
}
