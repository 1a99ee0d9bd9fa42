// Package audit owns the persistent audit log: who did what to which resource, with what
// result, attributed to a real tenant. Details are redacted by DLP before they are stored,
// so no secret or personal datum enters the log.
package audit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Action types: the area an action belongs to.
const (
	TypeFinance    = "finance"
	TypeSyncError  = "syncerror"
	TypeDLP        = "dlp"
	TypeAI         = "ai"
	TypeConnector  = "connector"
	TypeGovernance = "governance"
	TypeSession    = "session"
	TypeMCP        = "mcp"
	// TypeSettings records changes of a tenant's settings (flows), with before and after.
	TypeSettings = "settings"
)

// ActionTypes lists every action type, for validating queries.
var ActionTypes = []string{TypeFinance, TypeSyncError, TypeDLP, TypeAI, TypeConnector, TypeGovernance, TypeSession, TypeMCP, TypeSettings}

// Results of an action.
const (
	ResultSuccess = "success"
	ResultFailure = "failure"
	ResultDenied  = "denied"
)

// Errors a caller branches on.
var (
	ErrNoTenant = errors.New("audit: record without a tenant")
	// ErrBadCursor means a query cursor was not one this store issued for this query.
	ErrBadCursor = errors.New("audit: invalid cursor")
)

// Record is one audit log entry.
type Record struct {
	TenantID      string            `json:"tenantId"`
	ID            string            `json:"id"`
	At            time.Time         `json:"at"`
	Actor         identity.Identity `json:"actor"`
	ActionType    string            `json:"actionType"`
	ActionKey     string            `json:"actionKey"`
	Result        string            `json:"result"`
	Resource      string            `json:"resource,omitempty"`
	CorrelationID string            `json:"correlationId,omitempty"`
	// Details is a JSON object, already redacted.
	Details json.RawMessage `json:"details,omitempty"`
}

// Query selects a tenant's records in [From, To), newest first, optionally of one action
// type. Cursor continues a previous page.
type Query struct {
	TenantID   string
	From, To   time.Time
	ActionType string
	Limit      int
	Cursor     string
}

// Page is one page of a query.
type Page struct {
	Records    []Record
	NextCursor string
}

// Store persists records. Implementations key every record by tenant first.
type Store interface {
	Put(ctx context.Context, r Record) error
	Query(ctx context.Context, q Query) (Page, error)
}

// Redactor removes every sensitive value from a JSON document (the DLP record policy). It
// fails closed: on error nothing of the document may be stored.
type Redactor interface {
	RedactJSON(ctx context.Context, doc []byte) ([]byte, error)
}

// TextRedactor is a Redactor that also redacts plain text, sparing a short string the JSON
// round trip.
type TextRedactor interface {
	RedactText(ctx context.Context, text string) (string, error)
}

// Entry is what a caller audits; Log fills in the rest.
type Entry struct {
	Actor      identity.Identity
	ActionType string
	ActionKey  string
	Result     string
	Resource   string
	Details    map[string]any
}

// Log writes audit records.
type Log struct {
	Store    Store
	Redactor Redactor
	Now      func() time.Time
}

// Write records e for its actor's tenant, with the request's correlation id. It refuses an
// entry without a tenant: nothing is attributed to a pseudo-identity. If redaction fails,
// the record is still written, with its details replaced by a marker, because losing the
// fact of the action would be worse than losing its details.
func (l *Log) Write(ctx context.Context, e Entry) error {
	if !e.Actor.Attributable() {
		return ErrNoTenant
	}
	r := Record{
		TenantID:      e.Actor.TenantID,
		ID:            newID(),
		At:            l.now(),
		Actor:         e.Actor,
		ActionType:    e.ActionType,
		ActionKey:     e.ActionKey,
		Result:        e.Result,
		Resource:      e.Resource,
		CorrelationID: httpapi.CorrelationID(ctx),
	}
	r.Resource = l.redactResource(ctx, e.Resource)
	if len(e.Details) > 0 {
		raw, err := json.Marshal(e.Details)
		if err == nil {
			raw, err = l.Redactor.RedactJSON(ctx, raw)
		}
		if err != nil {
			httpapi.Logger(ctx).Error("audit details dropped: redaction failed", "actionKey", e.ActionKey, "error", err)
			raw = json.RawMessage(`{"detailsDropped":"redaction failed"}`)
		}
		r.Details = raw
	}
	if err := l.Store.Put(ctx, r); err != nil {
		return fmt.Errorf("audit %s: %w", e.ActionKey, err)
	}
	return nil
}

// redactResource applies the record policy to a resource name: record ids come from other
// systems, and one can be an e-mail or worse. A name the redactor cannot handle is
// replaced by a marker, like details.
func (l *Log) redactResource(ctx context.Context, resource string) string {
	if resource == "" || l.Redactor == nil {
		return resource
	}
	if t, ok := l.Redactor.(TextRedactor); ok {
		clean, err := t.RedactText(ctx, resource)
		if err != nil {
			return "[resource dropped: redaction failed]"
		}
		return clean
	}
	doc, _ := json.Marshal(resource)
	out, err := l.Redactor.RedactJSON(ctx, doc)
	var clean string
	if err != nil || json.Unmarshal(out, &clean) != nil {
		return "[resource dropped: redaction failed]"
	}
	return clean
}

func (l *Log) now() time.Time {
	if l.Now != nil {
		return l.Now().UTC()
	}
	return time.Now().UTC()
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
