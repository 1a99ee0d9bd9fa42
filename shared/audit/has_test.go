package audit_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
)

// maskingRedactor masks "jane@example.com" as the record policy masks an address.
type maskingRedactor struct{ fail bool }

func (m maskingRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	if m.fail {
		return nil, errors.New("scanner down")
	}
	return []byte(strings.ReplaceAll(string(doc), "jane@example.com", "[REDACTED:EMAIL]")), nil
}

// Has finds a record by its action key, resource and result within its window, matching
// the resource as Write stored it (after the record policy).
func TestLogHasFindsTheRecordAsStored(t *testing.T) {
	ctx := context.Background()
	store := &audittest.Store{}
	l := &audit.Log{Store: store, Redactor: maskingRedactor{}, Now: func() time.Time { return now }}
	for _, e := range []audit.Entry{
		{Actor: alice("acme"), ActionType: audit.TypeSyncError, ActionKey: "syncerror.revert", Result: audit.ResultSuccess, Resource: "contact/jane@example.com"},
		{Actor: alice("acme"), ActionType: audit.TypeSyncError, ActionKey: "syncerror.revert", Result: audit.ResultFailure, Resource: "syncerror/se_2"},
	} {
		if err := l.Write(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	q := func(resource, result string, from time.Time) audit.Query {
		return audit.Query{TenantID: "acme", ActionType: audit.TypeSyncError, ActionKey: "syncerror.revert", Resource: resource, Result: result,
			From: from, To: now.Add(time.Hour)}
	}
	for _, tc := range []struct {
		q    audit.Query
		want bool
	}{
		{q("contact/jane@example.com", audit.ResultSuccess, now), true},
		{q("syncerror/se_2", audit.ResultSuccess, now), false},
		{q("syncerror/se_2", audit.ResultFailure, now), true},
		{q("syncerror/se_2", audit.ResultFailure, now.Add(time.Second)), false},
	} {
		if got, err := l.Has(ctx, tc.q); err != nil || got != tc.want {
			t.Fatalf("%s %s from %s: %v (err %v), want %v", tc.q.Resource, tc.q.Result, tc.q.From, got, err, tc.want)
		}
	}
	l.Redactor = maskingRedactor{fail: true}
	if _, err := l.Has(ctx, q("contact/jane@example.com", audit.ResultSuccess, now)); !errors.Is(err, audit.ErrResourceUnredacted) {
		t.Fatalf("with the record policy down: %v", err)
	}
}

// emptyPages answers every query with no record and a cursor, as a filtered page that
// examined its cap of records without a match does.
type emptyPages struct{ reads int }

func (*emptyPages) Put(context.Context, audit.Record) error { return nil }

func (e *emptyPages) Query(context.Context, audit.Query) (audit.Page, error) {
	e.reads++
	return audit.Page{NextCursor: "more"}, nil
}

// Has reads at most HasPageCap pages; past them it says it cannot tell, never "not there".
func TestLogHasStopsAtItsPageCap(t *testing.T) {
	store := &emptyPages{}
	l := &audit.Log{Store: store}
	_, err := l.Has(context.Background(), audit.Query{TenantID: "acme", ActionType: audit.TypeSyncError, From: now, To: now.Add(time.Hour)})
	if !errors.Is(err, audit.ErrTooManyToTell) || store.reads != audit.HasPageCap {
		t.Fatalf("err %v after %d reads", err, store.reads)
	}
}
