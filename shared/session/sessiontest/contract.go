package sessiontest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/session"
)

// RunStoreContract runs the cases every session.Store must pass; newBackend returns an
// empty backend for each case, its own: the cases run side by side (t.Parallel).
func RunStoreContract(t *testing.T, newBackend func(t *testing.T) Backend) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	hash := func(i int) string { return fmt.Sprintf("%064x", i) }
	mkSession := func(tenantID string, i int, expires time.Time) session.Session {
		return session.Session{TenantID: tenantID, ID: fmt.Sprintf("ses_%022d", i), TokenHash: hash(i),
			UserID: fmt.Sprintf("user-%d", i), HostAccountID: "acct-1", Roles: []string{identity.RoleOperator, identity.RoleApprover},
			IssuedAt: base.Add(123456789 * time.Nanosecond), ExpiresAt: expires}
	}
	mkContext := func(tenantID, sessionID string, i int, module string, expires time.Time) session.EmbeddedContext {
		return session.EmbeddedContext{TenantID: tenantID, SessionID: sessionID, ID: fmt.Sprintf("ctx_%022d", i),
			Module: module, IssuedAt: base.Add(time.Millisecond), ExpiresAt: expires}
	}
	sameSession := func(t *testing.T, got, want session.Session) {
		t.Helper()
		if !got.IssuedAt.Equal(want.IssuedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
			t.Fatalf("times: got %v/%v, want %v/%v", got.IssuedAt, got.ExpiresAt, want.IssuedAt, want.ExpiresAt)
		}
		got.IssuedAt, got.ExpiresAt, want.IssuedAt, want.ExpiresAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v\nwant %+v", got, want)
		}
	}

	t.Run("session round trip, keyed by tenant and hash", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		want := mkSession("acme", 1, base.Add(time.Hour))
		if err := s.CreateSession(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := s.SessionByTokenHash(ctx, "acme", want.TokenHash)
		if err != nil {
			t.Fatal(err)
		}
		sameSession(t, got, want)
		got.Roles[0] = "mutated"
		again, _ := s.SessionByTokenHash(ctx, "acme", want.TokenHash)
		sameSession(t, again, want)
		for _, k := range [][2]string{{"globex", want.TokenHash}, {"acme", hash(2)}} {
			if _, err := s.SessionByTokenHash(ctx, k[0], k[1]); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("%v: err=%v, want ErrNotFound", k, err)
			}
		}
		if err := s.CreateSession(ctx, want); !errors.Is(err, session.ErrExists) {
			t.Fatalf("second create: err=%v, want ErrExists", err)
		}
	})

	t.Run("a session's module grant round-trips; none stored grants every module", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		granted := mkSession("acme", 3, base.Add(time.Hour))
		granted.Modules = []string{session.ModuleSyncErrors, session.ModuleAudit}
		if err := s.CreateSession(ctx, granted); err != nil {
			t.Fatal(err)
		}
		got, err := s.SessionByTokenHash(ctx, "acme", granted.TokenHash)
		if err != nil {
			t.Fatal(err)
		}
		sameSession(t, got, granted)
		if !got.Granted(session.ModuleAudit) || got.Granted(session.ModuleGovernance) {
			t.Fatalf("grant %v", got.Modules)
		}
		all := mkSession("acme", 4, base.Add(time.Hour))
		if err := s.CreateSession(ctx, all); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.SessionByTokenHash(ctx, "acme", all.TokenHash); got.Modules != nil || !got.Granted(session.ModuleGovernance) {
			t.Fatalf("a session without a grant: %v", got.Modules)
		}
	})

	t.Run("a service token opens contexts only for the modules its bootstrap granted", func(t *testing.T) {
		t.Parallel()
		f := NewFixture(t, newBackend(t).Store)
		cfg, _ := f.Tenants.Get(ctx, "acme")
		issued, err := f.Service.Bootstrap(ctx, cfg, "msg_grant_1", session.BootstrapRequest{UserID: "alice",
			HostAccountID: "host-alice", Roles: []string{identity.RoleApprover}, Modules: []string{session.ModuleSyncErrors}})
		if err != nil {
			t.Fatal(err)
		}
		f.OpenContext(t, issued.ServiceToken, session.ModuleSyncErrors)
		if _, err := f.Service.OpenContext(ctx, issued.ServiceToken, session.ModuleGovernance); !errors.Is(err, session.ErrModuleNotGranted) {
			t.Fatalf("an ungranted module: err=%v", err)
		}
		for i, bad := range [][]string{{}, {"payroll"}} {
			_, err := f.Service.Bootstrap(ctx, cfg, fmt.Sprintf("msg_grant_bad_%d", i), session.BootstrapRequest{UserID: "alice",
				HostAccountID: "host-alice", Roles: []string{identity.RoleApprover}, Modules: bad})
			var ve *session.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("modules %q: err=%v, want a validation error", bad, err)
			}
		}
	})

	t.Run("delete session once", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		a := mkSession("acme", 1, base.Add(time.Hour))
		if err := s.CreateSession(ctx, a); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteSession(ctx, "globex", a.TokenHash); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("other tenant's delete: err=%v, want ErrNotFound", err)
		}
		if err := s.DeleteSession(ctx, "acme", a.TokenHash); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionByTokenHash(ctx, "acme", a.TokenHash); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("after delete: err=%v, want ErrNotFound", err)
		}
		if err := s.DeleteSession(ctx, "acme", a.TokenHash); !errors.Is(err, session.ErrNotFound) {
			t.Fatalf("second delete: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("contexts are found only under their tenant and session", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		c := mkContext("acme", "ses_a", 1, session.ModuleAudit, base.Add(15*time.Minute))
		if err := s.CreateContext(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Context(ctx, "acme", "ses_a", c.ID)
		if err != nil || got.Module != c.Module || got.ID != c.ID || got.SessionID != "ses_a" || got.TenantID != "acme" ||
			!got.ExpiresAt.Equal(c.ExpiresAt) || !got.IssuedAt.Equal(c.IssuedAt) {
			t.Fatalf("got %+v err=%v, want %+v", got, err, c)
		}
		for _, k := range [][3]string{{"globex", "ses_a", c.ID}, {"acme", "ses_b", c.ID}, {"acme", "ses_a", "ctx_other"}} {
			if _, err := s.Context(ctx, k[0], k[1], k[2]); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("%v: err=%v, want ErrNotFound", k, err)
			}
		}
		if err := s.CreateContext(ctx, c); !errors.Is(err, session.ErrExists) {
			t.Fatalf("second create: err=%v, want ErrExists", err)
		}
	})

	t.Run("delete contexts of one session", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		for i, sc := range []struct{ tenant, session string }{
			{"acme", "ses_a"}, {"acme", "ses_a"}, {"acme", "ses_a"}, {"acme", "ses_ab"}, {"acme", "ses_b"}, {"globex", "ses_a"},
		} {
			if err := s.CreateContext(ctx, mkContext(sc.tenant, sc.session, i, session.ModuleGovernance, base.Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := s.DeleteContexts(ctx, "acme", "ses_a"); err != nil || n != 3 {
			t.Fatalf("deleted %d err=%v, want 3", n, err)
		}
		if n, err := s.DeleteContexts(ctx, "acme", "ses_a"); err != nil || n != 0 {
			t.Fatalf("second delete: %d err=%v, want 0", n, err)
		}
		for i, k := range [][2]string{{"acme", "ses_ab"}, {"acme", "ses_b"}, {"globex", "ses_a"}} {
			if _, err := s.Context(ctx, k[0], k[1], fmt.Sprintf("ctx_%022d", i+3)); err != nil {
				t.Fatalf("%v: %v, want it kept", k, err)
			}
		}
	})

	t.Run("request ids are claimed once per tenant", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		exp := base.Add(11 * time.Minute)
		if err := s.ClaimRequest(ctx, "acme", "msg_1", exp); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimRequest(ctx, "acme", "msg_1", exp); !errors.Is(err, session.ErrExists) {
			t.Fatalf("second claim: err=%v, want ErrExists", err)
		}
		if err := s.ClaimRequest(ctx, "globex", "msg_1", exp); err != nil {
			t.Fatalf("other tenant: %v", err)
		}
		if err := s.ReleaseRequest(ctx, "acme", "msg_1"); err != nil {
			t.Fatal(err)
		}
		if err := s.ClaimRequest(ctx, "acme", "msg_1", exp); err != nil {
			t.Fatalf("claim after release: %v", err)
		}
	})

	// seedExpiry stores, for tenants acme and globex, records that expired before base,
	// expire exactly at base (not yet due: the rule is "before now's second") and expire
	// later; it returns how many of acme's are due at base.
	seedExpiry := func(t *testing.T, s session.Store) session.Reaped {
		for _, tn := range []string{"acme", "globex"} {
			for i, exp := range []time.Time{base.Add(-time.Hour), base.Add(-time.Second), base, base.Add(time.Second), base.Add(time.Hour)} {
				sess := mkSession(tn, i, exp)
				if err := s.CreateSession(ctx, sess); err != nil {
					t.Fatal(err)
				}
				for j := 0; j < 2; j++ {
					if err := s.CreateContext(ctx, mkContext(tn, sess.ID, 10*i+j, session.ModuleAudit, exp)); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.ClaimRequest(ctx, tn, fmt.Sprintf("msg_%d", i), exp); err != nil {
					t.Fatal(err)
				}
			}
		}
		return session.Reaped{Tokens: 2, Contexts: 4, Requests: 2}
	}

	t.Run("delete expired removes exactly the expired records, once", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		want := seedExpiry(t, s)
		got, err := s.DeleteExpired(ctx, "acme", base.Add(999*time.Millisecond))
		if err != nil || got != want {
			t.Fatalf("reaped %+v err=%v, want %+v", got, err, want)
		}
		for i := 0; i < 5; i++ {
			_, err := s.SessionByTokenHash(ctx, "acme", hash(i))
			_, cerr := s.Context(ctx, "acme", fmt.Sprintf("ses_%022d", i), fmt.Sprintf("ctx_%022d", 10*i))
			if gone := i < 2; gone != errors.Is(err, session.ErrNotFound) || gone != errors.Is(cerr, session.ErrNotFound) {
				t.Fatalf("record %d: session err=%v context err=%v, want gone=%v", i, err, cerr, gone)
			}
			if _, err := s.SessionByTokenHash(ctx, "globex", hash(i)); err != nil {
				t.Fatalf("globex record %d: %v, want it untouched", i, err)
			}
		}
		// Expired request ids are gone: they can be claimed again.
		if err := s.ClaimRequest(ctx, "acme", "msg_0", base.Add(time.Hour)); err != nil {
			t.Fatalf("claim of a reaped request id: %v", err)
		}
		if err := s.ClaimRequest(ctx, "acme", "msg_2", base.Add(time.Hour)); !errors.Is(err, session.ErrExists) {
			t.Fatalf("claim of an unexpired request id: err=%v, want ErrExists", err)
		}
		if again, err := s.DeleteExpired(ctx, "acme", base.Add(999*time.Millisecond)); err != nil || again.Total() != 0 {
			t.Fatalf("second run reaped %+v err=%v, want nothing", again, err)
		}
	})

	t.Run("concurrent delete expired counts each record once", func(t *testing.T) {
		t.Parallel()
		s := newBackend(t).Store
		want := seedExpiry(t, s)
		const runs = 4
		results := make([]session.Reaped, runs)
		errs := make([]error, runs)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], errs[i] = s.DeleteExpired(ctx, "acme", base)
			}()
		}
		wg.Wait()
		var sum session.Reaped
		for i, r := range results {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			sum.Tokens += r.Tokens
			sum.Contexts += r.Contexts
			sum.Requests += r.Requests
		}
		if sum != want {
			t.Fatalf("runs reaped %+v in total, want %+v", sum, want)
		}
	})

	t.Run("lifecycle: token until expiry, contexts, teardown", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		f := NewFixture(t, b.Store)
		issued := f.Bootstrap(t, "acme", "alice", identity.RoleApprover)
		opened := f.OpenContext(t, issued.ServiceToken, session.ModuleGovernance)
		p, err := f.Service.Resolve(ctx, issued.ServiceToken, opened.EmbeddedContextID)
		want := identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{identity.RoleApprover},
			SessionID: issued.SessionID, Module: session.ModuleGovernance}
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Fatalf("resolve: %+v err=%v, want %+v", p, err, want)
		}
		for _, line := range b.Dump(t) {
			if strings.Contains(line, issued.ServiceToken) || strings.Contains(line, secretPart(issued.ServiceToken)) {
				t.Fatalf("stored record holds the service token: %s", line)
			}
		}
		// A context of another session (even of the same user and tenant) is refused.
		other := f.Bootstrap(t, "acme", "alice", identity.RoleApprover)
		if _, err := f.Service.Resolve(ctx, other.ServiceToken, opened.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("context of another session: err=%v, want ErrTokenInvalid", err)
		}
		// A context id of tenant acme presented with a token of tenant globex is refused.
		foreign := f.Bootstrap(t, "globex", "alice", identity.RoleApprover)
		if _, err := f.Service.Resolve(ctx, foreign.ServiceToken, opened.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("context of another tenant: err=%v, want ErrTokenInvalid", err)
		}
		if err := f.Service.Teardown(ctx, issued.ServiceToken); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Service.Resolve(ctx, issued.ServiceToken, opened.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("after teardown: err=%v, want ErrTokenInvalid", err)
		}
		if err := f.Service.Teardown(ctx, issued.ServiceToken); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("second teardown: err=%v, want ErrTokenInvalid", err)
		}
		// The other session is untouched; at its expiry it stops working.
		oc := f.OpenContext(t, other.ServiceToken, session.ModuleAudit)
		f.Clock.Set(other.ExpiresAt.Add(-time.Second))
		oc2 := f.OpenContext(t, other.ServiceToken, session.ModuleAudit)
		if !oc2.ExpiresAt.Equal(other.ExpiresAt) {
			t.Fatalf("context expires %v, after its token's %v", oc2.ExpiresAt, other.ExpiresAt)
		}
		if _, err := f.Service.Resolve(ctx, other.ServiceToken, oc.EmbeddedContextID); !errors.Is(err, identity.ErrTokenExpired) {
			t.Fatalf("context past its own expiry: err=%v, want ErrTokenExpired", err)
		}
		if _, err := f.Service.Resolve(ctx, other.ServiceToken, oc2.EmbeddedContextID); err != nil {
			t.Fatalf("a second before expiry: %v", err)
		}
		f.Clock.Set(other.ExpiresAt)
		if _, err := f.Service.Resolve(ctx, other.ServiceToken, oc2.EmbeddedContextID); !errors.Is(err, identity.ErrTokenExpired) {
			t.Fatalf("at expiry: err=%v, want ErrTokenExpired", err)
		}
	})

	t.Run("teardown removes the session's contexts from the store", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		f := NewFixture(t, b.Store)
		issued := f.Bootstrap(t, "acme", "bob", identity.RoleOperator)
		ids := []string{
			f.OpenContext(t, issued.ServiceToken, session.ModuleAudit).EmbeddedContextID,
			f.OpenContext(t, issued.ServiceToken, session.ModuleSyncErrors).EmbeddedContextID,
		}
		if err := f.Service.Teardown(ctx, issued.ServiceToken); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, err := b.Store.Context(ctx, "acme", issued.SessionID, id); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("context %s after teardown: err=%v, want ErrNotFound", id, err)
			}
		}
		rec := f.AuditOf(session.ActionTeardown)
		if len(rec) != 1 || !strings.Contains(string(rec[0].Details), `"contextsDeleted":2`) {
			t.Fatalf("teardown audit %+v, want one record with contextsDeleted 2", rec)
		}
	})

	t.Run("reaper removes exactly the expired, audits per tenant, then finds nothing", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		f := NewFixture(t, b.Store)
		start := f.Clock.Now()
		// acme: two sessions with a context each, one of them torn down; globex: one with
		// two contexts; all opened at start. A later acme session is still live when the
		// reaper runs.
		a1 := f.Bootstrap(t, "acme", "u1", identity.RoleOperator)
		f.OpenContext(t, a1.ServiceToken, session.ModuleAudit)
		a2 := f.Bootstrap(t, "acme", "u2", identity.RoleOperator)
		f.OpenContext(t, a2.ServiceToken, session.ModuleAudit)
		if err := f.Service.Teardown(ctx, a2.ServiceToken); err != nil {
			t.Fatal(err)
		}
		g1 := f.Bootstrap(t, "globex", "u3", identity.RoleApprover)
		f.OpenContext(t, g1.ServiceToken, session.ModuleGovernance)
		f.OpenContext(t, g1.ServiceToken, session.ModuleAudit)
		f.Clock.Set(start.Add(session.DefaultTokenTTL - time.Hour))
		live := f.Bootstrap(t, "acme", "u4", identity.RoleOperator)
		liveCtx := f.OpenContext(t, live.ServiceToken, session.ModuleAudit)

		f.Clock.Set(start.Add(session.DefaultTokenTTL + time.Second))
		rep, err := f.Service.Reap(ctx)
		// Request ids of the first three bootstraps (minutes old) and of the live one (an
		// hour old) are due as well.
		want := session.ReapReport{Tenants: 3, Tokens: 2, Contexts: 4, Requests: 4}
		if err != nil || rep != want {
			t.Fatalf("report %+v err=%v, want %+v", rep, err, want)
		}
		// The live session's context (15 minutes) was reaped; its token still opens new ones.
		if _, err := f.Service.Resolve(ctx, live.ServiceToken, liveCtx.EmbeddedContextID); !errors.Is(err, identity.ErrTokenInvalid) {
			t.Fatalf("live session's reaped context: err=%v, want ErrTokenInvalid", err)
		}
		f.OpenContext(t, live.ServiceToken, session.ModuleAudit)
		got := map[string]string{}
		for _, r := range f.AuditOf(session.ActionReap) {
			if r.Actor.Source != identity.SourceTenant || r.Actor.TenantID != r.TenantID || r.Actor.Actor != session.ReaperTrigger {
				t.Fatalf("reap actor %+v, want the tenant's background identity", r.Actor)
			}
			got[r.TenantID] = string(r.Details)
		}
		if len(got) != 2 || !strings.Contains(got["acme"], `"tokens":1`) || !strings.Contains(got["acme"], `"contexts":2`) ||
			!strings.Contains(got["globex"], `"tokens":1`) || !strings.Contains(got["globex"], `"contexts":2`) {
			t.Fatalf("reap audit %v, want acme 1 token + 2 contexts, globex 1 token + 2 contexts", got)
		}
		again, err := f.Service.Reap(ctx)
		if err != nil || again != (session.ReapReport{Tenants: 3}) || len(f.AuditOf(session.ActionReap)) != 2 {
			t.Fatalf("second run %+v err=%v, %d reap audits: want nothing reaped, nothing audited", again, err, len(f.AuditOf(session.ActionReap)))
		}
	})

	t.Run("concurrent reapers audit each expired record once", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		f := NewFixture(t, b.Store)
		start := f.Clock.Now()
		for i := 0; i < 6; i++ {
			tn := []string{"acme", "globex"}[i%2]
			issued := f.Bootstrap(t, tn, fmt.Sprintf("u%d", i), identity.RoleOperator)
			for j := 0; j <= i%3; j++ {
				f.OpenContext(t, issued.ServiceToken, session.ModuleAudit)
			}
		}
		// 6 tokens, 1+2+3+1+2+3 contexts, 6 request ids.
		f.Clock.Set(start.Add(session.DefaultTokenTTL + time.Minute))
		var wg sync.WaitGroup
		reports := make([]session.ReapReport, 3)
		errs := make([]error, len(reports))
		for i := range reports {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reports[i], errs[i] = f.Service.Reap(ctx)
			}()
		}
		wg.Wait()
		var tokens, contexts int
		for i, r := range reports {
			if errs[i] != nil || r.Errors != 0 {
				t.Fatalf("run %d: %+v err=%v", i, r, errs[i])
			}
			tokens += r.Tokens
			contexts += r.Contexts
		}
		var auditTokens, auditContexts int
		for _, r := range f.AuditOf(session.ActionReap) {
			var d struct{ Tokens, Contexts int }
			if err := json.Unmarshal(r.Details, &d); err != nil {
				t.Fatalf("details %s: %v", r.Details, err)
			}
			auditTokens += d.Tokens
			auditContexts += d.Contexts
		}
		if tokens != 6 || contexts != 12 || auditTokens != 6 || auditContexts != 12 {
			t.Fatalf("reports %d tokens %d contexts, audits %d/%d; want 6 and 12 each", tokens, contexts, auditTokens, auditContexts)
		}
	})
}

// secretPart is the random part of a service token (after the tenant).
func secretPart(token string) string { return token[len(token)-43:] }
