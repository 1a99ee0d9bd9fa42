package connector_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

type sourceKey struct {
	tenant string
	system connector.System
}

// countingSource is a ConfigSource over a map that counts its reads.
type countingSource struct {
	mu      sync.Mutex
	configs map[sourceKey]connector.Config
	reads   atomic.Int64
	delay   time.Duration
	// holdFirst makes the first read last until its caller's ctx ends, whatever the
	// scheduler does (a 10 ms deadline against a 50 ms delay raced under load).
	holdFirst bool
}

var _ connector.ConfigSource = (*countingSource)(nil)

func (s *countingSource) ConnectorConfig(ctx context.Context, tenantID string, system connector.System) (connector.Config, error) {
	if s.reads.Add(1) == 1 && s.holdFirst {
		<-ctx.Done()
		return connector.Config{AllowLoopback: true}, ctx.Err()
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return connector.Config{AllowLoopback: true}, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cfg, ok := s.configs[sourceKey{tenantID, system}]
	if !ok {
		return connector.Config{AllowLoopback: true}, connector.ErrNotConfigured
	}
	return cfg, nil
}

func (s *countingSource) set(tenant string, system connector.System, cfg connector.Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.configs[sourceKey{tenant, system}] = cfg
}

func newSource() *countingSource {
	return &countingSource{configs: map[sourceKey]connector.Config{
		{"acme", connector.SystemHostERP}: {BaseURL: "https://erp.acme.test"},
		{"acme", connector.SystemCRM}:     {System: connector.SystemCRM, BaseURL: "https://crm.acme.test"},
		{"globex", connector.SystemHostERP}: {
			System: connector.SystemHostERP, BaseURL: "https://erp.globex.test",
		},
	}}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("caches per tenant and system", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		reg := connector.NewRegistry(src, time.Hour)
		a1, err := reg.Client(ctx, "acme", connector.SystemHostERP)
		if err != nil {
			t.Fatal(err)
		}
		a2, _ := reg.Client(ctx, "acme", connector.SystemHostERP)
		crm, _ := reg.Client(ctx, "acme", connector.SystemCRM)
		g, _ := reg.Client(ctx, "globex", connector.SystemHostERP)
		if a1 != a2 || a1 == crm || a1 == g {
			t.Fatal("clients are not cached per (tenant, system)")
		}
		if a1.System() != connector.SystemHostERP || crm.System() != connector.SystemCRM {
			t.Fatal("client built for the wrong system")
		}
		if n := src.reads.Load(); n != 3 {
			t.Fatalf("config reads = %d, want 3", n)
		}
	})

	t.Run("not configured is passed on and not cached", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		reg := connector.NewRegistry(src, time.Hour)
		_, err := reg.Client(ctx, "acme", connector.SystemShipping)
		if !errors.Is(err, connector.ErrNotConfigured) {
			t.Fatalf("Client = %v, want ErrNotConfigured", err)
		}
		src.set("acme", connector.SystemShipping, connector.Config{AllowLoopback: true, BaseURL: "https://ship.acme.test"})
		if _, err := reg.Client(ctx, "acme", connector.SystemShipping); err != nil {
			t.Fatalf("a tenant configured after a miss: %v", err)
		}
	})

	t.Run("rebuilt after the TTL", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		reg := connector.NewRegistry(src, time.Minute)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		connector.SetRegistryClock(reg, func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
		first, _ := reg.Client(ctx, "acme", connector.SystemHostERP)
		mu.Lock()
		now = now.Add(59 * time.Second)
		mu.Unlock()
		if again, _ := reg.Client(ctx, "acme", connector.SystemHostERP); again != first {
			t.Fatal("rebuilt before the TTL")
		}
		mu.Lock()
		now = now.Add(2 * time.Second)
		mu.Unlock()
		if later, _ := reg.Client(ctx, "acme", connector.SystemHostERP); later == first {
			t.Fatal("not rebuilt after the TTL")
		}
		if n := src.reads.Load(); n != 2 {
			t.Fatalf("config reads = %d, want 2", n)
		}
	})

	t.Run("forget", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		reg := connector.NewRegistry(src, time.Hour)
		first, _ := reg.Client(ctx, "acme", connector.SystemHostERP)
		reg.Forget("acme", connector.SystemHostERP)
		if again, _ := reg.Client(ctx, "acme", connector.SystemHostERP); again == first {
			t.Fatal("Forget kept the client")
		}
	})

	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		src.set("acme", connector.SystemERP2, connector.Config{AllowLoopback: true, System: connector.SystemCRM, BaseURL: "https://x.test"})
		src.set("acme", connector.SystemMarketing, connector.Config{AllowLoopback: true, BaseURL: "gopher://x.test"})
		reg := connector.NewRegistry(src, 0)
		cases := []struct {
			tenant string
			system connector.System
			want   error
		}{
			{"acme", "ledger", connector.ErrUnsupported},
			{"", connector.SystemHostERP, connector.ErrInvalidConfig},
			{"acme", connector.SystemERP2, connector.ErrInvalidConfig},
			{"acme", connector.SystemMarketing, connector.ErrInvalidConfig},
		}
		for _, tc := range cases {
			if _, err := reg.Client(ctx, tc.tenant, tc.system); !errors.Is(err, tc.want) {
				t.Errorf("Client(%q, %q) = %v, want %v", tc.tenant, tc.system, err, tc.want)
			}
		}
	})

	t.Run("concurrent first calls read once", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		src.delay = 20 * time.Millisecond
		reg := connector.NewRegistry(src, time.Hour)
		clients := make([]*connector.Client, 20)
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				c, err := reg.Client(ctx, "acme", connector.SystemHostERP)
				if err != nil {
					t.Error(err)
				}
				clients[i] = c
			})
		}
		wg.Wait()
		for _, c := range clients {
			if c != clients[0] {
				t.Fatal("concurrent callers got different clients")
			}
		}
		if n := src.reads.Load(); n != 1 {
			t.Fatalf("config reads = %d, want 1", n)
		}
	})

	t.Run("a waiter whose loader gave up loads itself", func(t *testing.T) {
		t.Parallel()
		src := newSource()
		src.holdFirst = true
		reg := connector.NewRegistry(src, time.Hour)
		// The loader's ctx ends while it reads; its error must not reach the waiter.
		short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		var wg sync.WaitGroup
		var loaderErr error
		wg.Go(func() { _, loaderErr = reg.Client(short, "acme", connector.SystemHostERP) })
		for src.reads.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		if _, err := reg.Client(ctx, "acme", connector.SystemHostERP); err != nil {
			t.Fatalf("waiter: %v", err)
		}
		wg.Wait()
		if !errors.Is(loaderErr, context.DeadlineExceeded) {
			t.Fatalf("loader = %v, want its own deadline", loaderErr)
		}
		if n := src.reads.Load(); n != 2 {
			t.Fatalf("config reads = %d, want 2", n)
		}
	})

	t.Run("serves a working client", func(t *testing.T) {
		t.Parallel()
		fake := fakesystem.New(connector.SystemHostERP)
		fake.RequireToken("tok")
		fake.Seed("customer", "C-1", map[string]any{"credit": 1})
		srv := httptest.NewServer(fake.Handler())
		t.Cleanup(srv.Close)
		src := newSource()
		src.set("acme", connector.SystemHostERP, connector.Config{AllowLoopback: true, BaseURL: srv.URL, Token: "tok"})
		c, err := connector.NewRegistry(src, 0).Client(ctx, "acme", connector.SystemHostERP)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.CloseIdleConnections)
		if _, err := c.Get(ctx, "customer", "C-1"); err != nil {
			t.Fatalf("Get: %v", err)
		}
	})
}
