// Package audit owns the persistent audit log: who did what to which resource, with what
// result, attributed to a real tenant. Details are redacted by DLP before they are stored,
// so no secret or personal datum enters the log.
package audit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
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
	// ErrActorNotTraceable means an actor filter names a person the record policy masks
	// while no pseudonym key is configured: their records carry the mask alone, the same
	// for everyone, so no filter can single them out.
	ErrActorNotTraceable = errors.New("audit: a masked actor without a pseudonym cannot be filtered")
	// ErrActorFilterUnavailable means the record policy or the pseudonym key could not be
	// applied to an actor filter just now.
	ErrActorFilterUnavailable = errors.New("audit: the actor filter cannot be applied now")
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
// type and of one actor. Actor is matched exactly against the stored actor
// (Record.Actor.Actor, after the record policy: see Log.ActorFilter). Cursor continues a
// previous page.
type Query struct {
	TenantID   string
	From, To   time.Time
	ActionType string
	Actor      string
	// ActionKey, Resource and Result, when set, keep the records with exactly that action
	// key, resource (as stored, after the record policy: Log.Has applies it) and result:
	// a feature asking whether one action was recorded (Log.Has), not the audit route.
	ActionKey, Resource, Result string
	Limit                       int
	Cursor                      string
}

// Page is one page of a query.
type Page struct {
	Records    []Record
	NextCursor string
}

// Store persists records. Implementations key every record by tenant first.
type Store interface {
	// Put stores r; a record is never overwritten. A record already stored (the same
	// tenant, time and id: the SDK sent the put again because its first answer was lost)
	// is not an error and is stored once.
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
	// PseudonymKey gives the key of the pseudonym (HMAC-SHA256) that follows an actor the
	// record policy masks, so one person's actions can still be followed through the log
	// without it naming them. It is asked only when an actor is masked, so a deployed
	// function reads its key (a secret) only when it needs it. Without a key, or when it
	// cannot be had, a masked actor carries no pseudonym: an unkeyed hash of an e-mail
	// address is undone by guessing, and the record matters more than its pseudonym.
	PseudonymKey func(context.Context) ([]byte, error)
}

// StaticKey is a PseudonymKey that is known up front.
func StaticKey(key []byte) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) { return key, nil }
}

// Write records e for its actor's tenant, with the request's correlation id. It refuses an
// entry without a tenant: nothing is attributed to a pseudo-identity. If redaction fails,
// the record is still written, with its details replaced by a marker, because losing the
// fact of the action would be worse than losing its details.
func (l *Log) Write(ctx context.Context, e Entry) error {
	r, err := l.Prepare(ctx, e)
	if err != nil {
		return err
	}
	if err := l.Store.Put(ctx, r); err != nil {
		return fmt.Errorf("audit %s: %w", e.ActionKey, err)
	}
	return nil
}

// Prepare is the record Write stores for e, made now (its time, id, correlation id and
// redacted details) but not stored: a caller that stores it with other items in one call
// (Batched) records the action at the time it happened.
func (l *Log) Prepare(ctx context.Context, e Entry) (Record, error) {
	if !e.Actor.Attributable() {
		return Record{}, ErrNoTenant
	}
	r := Record{
		TenantID:      e.Actor.TenantID,
		ID:            newID(),
		At:            l.now(),
		Actor:         l.actor(ctx, e.Actor),
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
	return r, nil
}

// redactResource applies the record policy to a resource name: record ids come from other
// systems, and one can be an e-mail or worse. A name the redactor cannot handle is
// replaced by a marker, like details.
func (l *Log) redactResource(ctx context.Context, resource string) string {
	clean, ok := l.redactText(ctx, resource)
	if !ok {
		return "[resource dropped: redaction failed]"
	}
	return clean
}

// actor applies the record policy to the actor, which an embedded session takes from the
// host (its userId may be an e-mail address) and a token from its issuer (ShownActor); the
// identity's aliases never reach the record.
func (l *Log) actor(ctx context.Context, id identity.Identity) identity.Identity {
	id.Aliases = nil
	id.Actor = l.ShownActor(ctx, id.TenantID, id.Actor)
	return id
}

// ShownActor is name as the log records an actor: as it is when the record policy leaves it
// (a service actor such as "webhook:…"), else the mask ("[REDACTED:EMAIL]", as in details)
// followed by its pseudonym. Every other answer that names a person (the queue's history,
// notes and assignee) shows them through this one function, so nobody can tie a pseudonym
// to an address by reading the log beside it.
func (l *Log) ShownActor(ctx context.Context, tenantID, name string) string {
	clean, ok := l.redactText(ctx, name)
	if ok && clean == name {
		return name
	}
	if !ok {
		clean = "[actor dropped: redaction failed]"
	}
	p, err := l.pseudonym(ctx, tenantID, name)
	if err != nil {
		httpapi.Logger(ctx).Error("audit actor shown without a pseudonym: no key", "error", err)
	}
	if p != "" {
		clean = strings.TrimSpace(clean) + " " + p
	}
	return clean
}

// storedPseudonym is how a stored actor ends when it carries a pseudonym.
var storedPseudonym = regexp.MustCompile(` ~p:[0-9a-f]{16}$`)

// ActorFilter is the stored actor a query for name must match (Query.Actor), so an auditor
// can ask for an actor either as the log shows it or by the identity a masked actor was
// written for. A name the record policy leaves as it is, or one that already ends in a
// pseudonym, is the stored actor itself; any other name is masked and pseudonymised as
// Write does, so it matches that person's records and never reaches a store or a response
// unmasked. A masked name without a pseudonym key is ErrActorNotTraceable (its records
// carry the mask alone); a policy or key that cannot be had now is
// ErrActorFilterUnavailable.
func (l *Log) ActorFilter(ctx context.Context, tenantID, name string) (string, error) {
	name = strings.TrimSpace(name)
	if loc := storedPseudonym.FindStringIndex(name); loc != nil {
		// Already a stored actor; its mask part passes the policy too, so not even a name
		// typed before a pseudonym is answered back unmasked.
		clean, ok := l.redactText(ctx, name[:loc[0]])
		if !ok {
			return "", ErrActorFilterUnavailable
		}
		return strings.TrimSpace(clean) + name[loc[0]:], nil
	}
	clean, ok := l.redactText(ctx, name)
	if !ok {
		return "", ErrActorFilterUnavailable
	}
	if clean == name {
		return name, nil
	}
	p, err := l.pseudonym(ctx, tenantID, name)
	if err != nil {
		httpapi.Logger(ctx).Error("audit actor filter: no pseudonym key", "error", err)
		return "", ErrActorFilterUnavailable
	}
	if p == "" {
		return "", ErrActorNotTraceable
	}
	return strings.TrimSpace(clean) + " " + p, nil
}

// pseudonym is "~p:" and 16 hex digits of the keyed HMAC of the tenant and the actor
// (case and surrounding space folded, as four eyes compares names); "" without a key, and
// an error when the configured key cannot be had.
func (l *Log) pseudonym(ctx context.Context, tenantID, actor string) (string, error) {
	if l.PseudonymKey == nil {
		return "", nil
	}
	key, err := l.PseudonymKey(ctx)
	if err != nil {
		return "", err
	}
	if len(key) == 0 {
		return "", nil
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(tenantID + "\x00" + strings.ToLower(strings.TrimSpace(actor))))
	return "~p:" + hex.EncodeToString(mac.Sum(nil)[:8]), nil
}

// redactText applies the record policy to a short text; ok is false when it could not be.
func (l *Log) redactText(ctx context.Context, text string) (clean string, ok bool) {
	if text == "" || l.Redactor == nil {
		return text, true
	}
	if t, isText := l.Redactor.(TextRedactor); isText {
		clean, err := t.RedactText(ctx, text)
		return clean, err == nil
	}
	doc, _ := json.Marshal(text)
	out, err := l.Redactor.RedactJSON(ctx, doc)
	if err != nil || json.Unmarshal(out, &clean) != nil {
		return "", false
	}
	return clean, true
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
