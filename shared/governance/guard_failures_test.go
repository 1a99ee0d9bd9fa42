package governance_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func TestGuardConnectorFailures(t *testing.T) {
	t.Parallel()
	t.Run("not configured", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, withNotConfigured(erp2))
		_, err := e.write(operator("t1"), req(erp2, erp2, "ticket", "T-1", map[string]any{"status": "open"}))
		if !errors.Is(err, governance.ErrNotConfigured) || !errors.Is(err, connector.ErrNotConfigured) {
			t.Fatalf("err = %v, want ErrNotConfigured wrapping connector.ErrNotConfigured", err)
		}
		if a := e.audits(governance.ActionConnectorWrite); len(a) != 1 || a[0].Result != audit.ResultFailure {
			t.Fatalf("audit %+v", a)
		}
	})
	for _, c := range []struct {
		status int
		want   error
	}{
		{409, connector.ErrConflict}, {404, connector.ErrNotFound}, {400, connector.ErrValidation},
		{401, connector.ErrUnauthorized}, {500, connector.ErrUnavailable},
	} {
		t.Run(fmt.Sprint(c.status), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.fakes[crm].FailNext(1, c.status)
			_, err := e.write(operator("t1"), req(hosterp, crm, "ticket", "T-1", map[string]any{"status": "open"}))
			var cerr *connector.Error
			if !errors.Is(err, c.want) || !errors.As(err, &cerr) {
				t.Fatalf("err = %v, want %v as *connector.Error", err, c.want)
			}
			if e.ledger.Len() != 0 {
				t.Fatal("a failed write was entered in the ledger")
			}
			if a := e.audits(governance.ActionConnectorWrite); len(a) != 1 || a[0].Result != audit.ResultFailure {
				t.Fatalf("audit %+v", a)
			}
		})
	}
}

func TestGuardLedgerEntry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fields := map[string]any{"phone": "+1 415 555 0100", "email": "ops@example.com", "tags": []any{"b", "a"}}
	r := req(crm, hosterp, "contact", "C-1", fields)
	if _, err := e.write(operator("t1"), r); err != nil {
		t.Fatal(err)
	}
	entries, _ := e.ledger.Recent(context.Background(), "t1", "contact", "C-1", t0.Add(-time.Hour))
	want, _ := governance.PayloadHash(fields)
	if len(entries) != 1 {
		t.Fatalf("%d ledger entries", len(entries))
	}
	got := entries[0]
	if got.Source != crm || got.Target != hosterp || got.PayloadHash != want || len(want) != 64 ||
		!slices.Equal(got.Fields, []string{"email", "phone", "tags"}) || got.IdempotencyKey != r.IdempotencyKey ||
		got.CorrelationID == "" || !got.Time.Equal(t0) {
		t.Fatalf("ledger entry %+v, want hash %s", got, want)
	}
	// The hash is of the canonical form: the same values built in another order hash alike.
	again, _ := governance.PayloadHash(map[string]any{"tags": []any{"b", "a"}, "email": "ops@example.com", "phone": "+1 415 555 0100"})
	if again != want {
		t.Fatal("payload hash depends on map order")
	}
}

func TestGuardConcurrentWritesKeepTheLedger(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seed(hosterp, "salesOrder", "SO-1")
	const n = 25
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := req(hosterp, hosterp, "salesOrder", "SO-1", map[string]any{"memo": fmt.Sprint("note ", i)})
			if _, err := e.guard.Write(context.Background(), operator("t1"), r); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	entries, _ := e.ledger.Recent(context.Background(), "t1", "salesOrder", "SO-1", t0.Add(-time.Hour))
	if len(entries) != n || e.fakes[hosterp].WriteCount() != n || len(e.audits(governance.ActionConnectorWrite)) != n {
		t.Fatalf("ledger %d, writes %d, audits %d; want %d each", len(entries), e.fakes[hosterp].WriteCount(),
			len(e.audits(governance.ActionConnectorWrite)), n)
	}
	keys := map[string]bool{}
	for _, en := range entries {
		keys[en.IdempotencyKey] = true
	}
	if len(keys) != n {
		t.Fatalf("%d distinct writes in the ledger, want %d", len(keys), n)
	}
}

func TestGuardRefusesInvalidRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := req(crm, crm, "contact", "C-1", map[string]any{"firstName": "Jane"})
	for name, mutate := range map[string]func(*governance.WriteRequest){
		"unknown target":  func(r *governance.WriteRequest) { r.Target = "helpdesk" },
		"unknown source":  func(r *governance.WriteRequest) { r.Source = "" },
		"no entity":       func(r *governance.WriteRequest) { r.Entity = "" },
		"no record":       func(r *governance.WriteRequest) { r.RecordID = "" },
		"no fields":       func(r *governance.WriteRequest) { r.Fields = nil },
		"no key":          func(r *governance.WriteRequest) { r.IdempotencyKey = "" },
		"not JSON fields": func(r *governance.WriteRequest) { r.Fields = map[string]any{"x": make(chan int)} },
	} {
		r := good
		mutate(&r)
		if _, err := e.guard.Write(context.Background(), operator("t1"), r); !errors.Is(err, governance.ErrInvalidRequest) {
			t.Errorf("%s: err = %v, want ErrInvalidRequest", name, err)
		}
	}
	if _, err := e.guard.Write(context.Background(), operator(""), good); !errors.Is(err, governance.ErrInvalidRequest) {
		t.Errorf("no tenant: err = %v", err)
	}
	if e.totalWrites() != 0 {
		t.Fatal("an invalid request was written")
	}
}

func TestGuardFailsClosedWhenAStoreFails(t *testing.T) {
	t.Parallel()
	scanner := dlp.NewScanner()
	conns := &governancetest.Connectors{}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: failingOverrides{}},
		Ledger:    &governancetest.Ledger{}, Records: &governancetest.Store{}, Connectors: conns, Scanner: scanner,
		Audit: &audit.Log{Store: &audittest.Store{}, Redactor: redactor{scanner}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Write(context.Background(), operator("t1"), req(crm, crm, "contact", "C-1", map[string]any{"firstName": "Jane"}))
	if !errors.Is(err, governance.ErrUnavailable) || conns.Count() != 0 {
		t.Fatalf("err = %v, writes %d; want ErrUnavailable and no write", err, conns.Count())
	}
}

func TestGuardAlertFailureKeepsTheRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.alerts.Err = errors.New("event bus down")
	_, err := e.write(operator("t1"), req(crm, hosterp, "invoice", "INV-1", map[string]any{"total": 10}))
	if !errors.Is(err, governance.ErrOwnershipRejected) || len(e.alerts.All()) != 1 {
		t.Fatalf("err = %v, alerts %d", err, len(e.alerts.All()))
	}
}

func TestNewGuardNeedsItsDependencies(t *testing.T) {
	t.Parallel()
	if _, err := governance.NewGuard(governance.Deps{}); err == nil {
		t.Fatal("NewGuard accepted no dependencies")
	}
}
