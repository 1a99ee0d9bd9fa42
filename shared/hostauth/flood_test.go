package hostauth_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

// reads counts the store's reads: all of them, and per tenant id for the ids in per (a
// map of every id would itself be the memory the flood test measures).
type reads struct {
	tenant.Reader
	mu  sync.Mutex
	per map[string]int
	all int
}

func (r *reads) Get(ctx context.Context, id string) (tenant.Config, error) {
	r.mu.Lock()
	if _, ok := r.per[id]; ok {
		r.per[id]++
	}
	r.all++
	r.mu.Unlock()
	return r.Reader.Get(ctx, id)
}

func (r *reads) of(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.per[id]
}

type fixture struct {
	store *reads
	auth  *hostauth.Authenticator[tenant.Config]
	now   time.Time
}

// newFixture is the authenticator as the platform wires it for the ingest: a tenant
// cache over the store, one real tenant "acme".
func newFixture(t testing.TB) *fixture {
	store := tenanttest.NewStore()
	if err := store.Create(context.Background(), tenant.Config{ID: "acme",
		WebhookSecrets: []tenant.Secret{{Value: secret, CreatedAt: t0.Add(-time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: &reads{Reader: store, per: map[string]int{"acme": 0}}, now: t0}
	now := func() time.Time { return f.now }
	f.auth = &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.PurposeIngest),
		Tenants:  tenant.Directory{Reader: &tenant.Cache{Store: f.store, TTL: time.Minute, Now: now}},
		Verifier: webhook.Verifier{Now: now}, Now: now}
	return f
}

var body = []byte(`{"errorId":"E-1"}`)

// post sends a webhook for tenantID, signed with key (a forgery unless it is acme's).
func (f *fixture) post(tenantID string, key []byte) int {
	r := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(hostauth.HeaderTenantID, tenantID)
	webhook.Sign(key, "msg_1", f.now, body).Set(r.Header)
	w := httptest.NewRecorder()
	if _, _, ok := f.auth.ReadSigned(w, r, 1<<16, nil); ok {
		return http.StatusOK
	}
	return w.Code
}

func randomTenant() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "t-" + hex.EncodeToString(b)
}

// A forgery flood: floodSize webhooks (200,000 without -race), each for a new random tenant and signed with a key of
// the forger's. Each costs at most one tenant read (one per tenant per interval), the
// process's memory stays bounded, and the real tenant is neither locked out nor read more.
func TestForgeryFloodIsBounded(t *testing.T) {
	const n = floodSize
	f := newFixture(t)
	forged := []byte("forger's own key, 32 bytes long!")
	acme, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	if code := f.post("acme", acme); code != http.StatusOK {
		t.Fatalf("acme before the flood: %d", code)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		id := randomTenant()
		if i%1000 == 0 {
			id = "acme" // forgeries for the real tenant mixed in
		}
		if code := f.post(id, forged); code != http.StatusUnauthorized {
			t.Fatalf("forgery %d for %s: %d", i, id, code)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d forgeries: %d tenant reads, heap %+.1f MiB", n, f.store.all, float64(growth)/(1<<20))
	// acme: the read before the flood, and one fresh read when its first forgery failed
	// against the cached secrets (the clock does not move, so no more).
	if c := f.store.of("acme"); c > 2 {
		t.Fatalf("acme read %d times during the flood, want at most 2", c)
	}
	// Every random tenant is new: at most one read each (it was two: the cached read and a
	// fresh one before refusing).
	if f.store.all > n+2 {
		t.Fatalf("%d reads for %d forgeries, want at most one each", f.store.all, n)
	}
	// Two maps of 10,000 entries each hold what the flood left; 200,000 entries would
	// be tens of MiB.
	if growth > 12<<20 {
		t.Fatalf("the flood grew the heap by %.1f MiB, want a bounded memory (< 12 MiB)", float64(growth)/(1<<20))
	}
	if code := f.post("acme", acme); code != http.StatusOK {
		t.Fatalf("acme after the flood: %d", code)
	}
	runtime.KeepAlive(f)
}

// Repeated forgeries for the same unknown tenants: one read per tenant per interval (the
// cache's TTL), answered from the negative cache in between.
func TestUnknownTenantsReadOncePerInterval(t *testing.T) {
	f := newFixture(t)
	forged := []byte("forger's own key, 32 bytes long!")
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = randomTenant()
		f.store.per[ids[i]] = 0
	}
	for round := range 2 {
		for range 50 {
			for _, id := range ids {
				if code := f.post(id, forged); code != http.StatusUnauthorized {
					t.Fatalf("forgery for %s: %d", id, code)
				}
			}
		}
		// The first request of an interval reads; a second one past MinRefresh may re-read
		// once, fresh, in case the tenant was just created.
		for _, id := range ids {
			if c := f.store.of(id); c > 2*(round+1) {
				t.Fatalf("round %d: tenant %s read %d times, want at most %d", round, id, c, 2*(round+1))
			}
		}
		f.now = f.now.Add(time.Minute)
	}
}
