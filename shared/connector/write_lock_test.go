package connector_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// Salesforce refuses a save that waited too long for a lock another transaction holds with
// 400 UNABLE_TO_LOCK_ROW, and the save fails whole (salesforce.go). The connector used to
// read it as any 400: a refusal of the values, not retried, so a write that would have
// passed a moment later failed for good, and the operator was told to edit the fix.

// sfSave is one of the ways the connector saves a Salesforce record, and the lock it needs.
type sfSave struct {
	name   string
	method string // of the save's own request
	req    func(pc profileCase, key string) connector.WriteRequest
	// seed brings the fake to the save's starting point and returns the record whose lock
	// the save needs (entity, id).
	seed func(fake *fakesystem.Server, pc profileCase) (string, string)
}

var sfSaves = []sfSave{
	{name: "update", method: http.MethodPatch,
		req:  func(pc profileCase, key string) connector.WriteRequest { return pc.write(key) },
		seed: func(_ *fakesystem.Server, pc profileCase) (string, string) { return pc.entity, pc.id }},
	{name: "upsert", method: http.MethodPatch,
		req: func(_ profileCase, key string) connector.WriteRequest {
			return connector.WriteRequest{Entity: "Account", RecordID: "C-9", UpsertKey: "ERP_Id__c",
				Fields: map[string]any{"Name": "Nordwind GmbH"}, IdempotencyKey: key, Origin: "syncassist"}
		},
		seed: func(fake *fakesystem.Server, _ profileCase) (string, string) {
			fake.Seed("Account", "001000000000009AAA", map[string]any{"Name": "Nordwind", "ERP_Id__c": "C-9"})
			return "Account", "001000000000009AAA"
		}},
	// A contact's insert locks the account it looks up (the Record Locking Cheat Sheet).
	{name: "create", method: http.MethodPost,
		req: func(pc profileCase, key string) connector.WriteRequest {
			return connector.WriteRequest{Entity: "Contact", Create: true,
				Fields: map[string]any{"LastName": "Vogel", "AccountId": pc.id}, IdempotencyKey: key, Origin: "syncassist"}
		},
		seed: func(_ *fakesystem.Server, pc profileCase) (string, string) { return pc.entity, pc.id }},
}

// A save that meets one lock refusal is sent again after the backoff and applied once.
func TestSalesforceLockRefusalIsRetriedAndAppliedOnce(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	for _, s := range sfSaves {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			fake, c, _ := startProfile(t, pc, nil)
			entity, id := s.seed(fake, pc)
			fake.LockNextWrites(entity, id, 1)
			req := s.req(pc, "k-lock-once-"+s.name)
			res, err := c.Write(context.Background(), req)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			if got := fake.WriteCount(); got != 1 {
				t.Fatalf("%d writes applied, want 1: %+v", got, fake.Writes())
			}
			if sent := fake.RequestsByMethod()[s.method]; sent != 2 {
				t.Fatalf("%d %s requests, want 2: the refused one and the one applied", sent, s.method)
			}
			if res.Replayed || res.Created != req.Create || !connector.Holds(res.Record.Fields, req.Fields) {
				t.Fatalf("result %+v, want the record holding %v (Created %v, not Replayed)", res, req.Fields, req.Create)
			}
		})
	}
}

// A save refused for the lock on every attempt fails as a transient failure that wrote
// nothing: not MayHaveApplied (callers take the lost-answer path on that, and would read
// the record back or hold the approval for a write Salesforce never made), retryable, and
// named as the lock in its text.
func TestSalesforceLockRefusalsUntilRetriesRunOutApplyNothing(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	for _, s := range sfSaves {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			fake, c, _ := startProfile(t, pc, nil)
			entity, id := s.seed(fake, pc)
			before, _ := fake.Get(entity, id)
			fake.LockNextWrites(entity, id, 10)
			_, err := c.Write(context.Background(), s.req(pc, "k-lock-always-"+s.name))
			t.Logf("%v", err)
			ce := asError(t, err, connector.ErrUnavailable)
			switch {
			case connector.MayHaveApplied(err):
				t.Fatalf("%v: MayHaveApplied, but a save refused for its lock wrote nothing", err)
			case !connector.WriteSent(err) || ce.Later != nil:
				t.Fatalf("%v: WriteSent %v, Later %v; want sent (and refused), nothing later", err, connector.WriteSent(err), ce.Later)
			case !ce.Retryable || ce.Status != http.StatusBadRequest || ce.Code != connector.SalesforceLockCode:
				t.Fatalf("%#v: want a retryable 400 %s", ce, connector.SalesforceLockCode)
			case ce.Attempts != connector.DefaultMaxAttempts:
				t.Fatalf("%v: %d attempts, want %d", err, ce.Attempts, connector.DefaultMaxAttempts)
			case errors.Is(err, connector.ErrValidation) || connector.ErrorKind(err) != "unavailable":
				t.Fatalf("%v: ErrorKind %q; a lock is no refusal of the values", err, connector.ErrorKind(err))
			case !strings.Contains(err.Error(), connector.SalesforceLockCode) || !strings.Contains(err.Error(), "held a record lock"):
				t.Fatalf("error text %q does not name the lock", err)
			}
			if sent := fake.RequestsByMethod()[s.method]; sent != connector.DefaultMaxAttempts {
				t.Fatalf("%d %s requests, want %d", sent, s.method, connector.DefaultMaxAttempts)
			}
			after, _ := fake.Get(entity, id)
			if fake.WriteCount() != 0 || fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("writes %+v, record %+v (was %+v); want nothing applied", fake.Writes(), after, before)
			}
		})
	}
}

// Any other 400 stays a refusal of the values: sent once, not retried, nothing applied.
func TestSalesforceOtherBadRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	for _, s := range sfSaves {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			var saves atomic.Int32
			invalid := func(h http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodGet {
						h.ServeHTTP(w, r)
						return
					}
					saves.Add(1)
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					_, _ = w.Write([]byte(`[{"message":"No such column 'Foo__c' on sobject of type Account","errorCode":"INVALID_FIELD","fields":[]}]`))
				})
			}
			fake, c := startFakeBehind(t, connector.SystemCRM, invalid, nil)
			fake.Seed(pc.entity, pc.id, pc.seed)
			s.seed(fake, pc)
			_, err := c.Write(context.Background(), s.req(pc, "k-invalid-"+s.name))
			ce := asError(t, err, connector.ErrValidation)
			if ce.Retryable || ce.Code != "INVALID_FIELD" || connector.MayHaveApplied(err) || saves.Load() != 1 || fake.WriteCount() != 0 {
				t.Fatalf("%#v: %d saves sent, %d applied; want one INVALID_FIELD, not retryable, not MayHaveApplied",
					ce, saves.Load(), fake.WriteCount())
			}
		})
	}
}

// A lock refusal after an attempt that went unanswered does not clear it: the first
// request may be the very transaction holding the lock, still committing, so the write
// stays the lost answer's (MayHaveApplied) with the refusals in Later.
func TestSalesforceLockRefusalAfterAnUnansweredAttemptMayHaveApplied(t *testing.T) {
	t.Parallel()
	pc := profileOf(connector.SystemCRM)
	var patches atomic.Int32
	gateway := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPatch && patches.Add(1) == 1 {
				w.WriteHeader(http.StatusGatewayTimeout)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	fake, c := startFakeBehind(t, connector.SystemCRM, gateway, nil)
	fake.Seed(pc.entity, pc.id, pc.seed)
	fake.LockNextWrites(pc.entity, pc.id, 10)
	_, err := c.Write(context.Background(), pc.write("k-lock-after-504"))
	ce := asError(t, err, connector.ErrUnavailable)
	var later *connector.Error
	if !connector.MayHaveApplied(err) || ce.Status != http.StatusGatewayTimeout || !errors.As(ce.Later, &later) || later.Code != connector.SalesforceLockCode {
		t.Fatalf("%v: MayHaveApplied %v, Later %v; want the 504's lost answer with the lock refusals kept in Later",
			err, connector.MayHaveApplied(err), ce.Later)
	}
}
