package sealed_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/sealed"
)

// countingWrapper counts unwraps, to see the data-key cache work.
type countingWrapper struct {
	sealed.Wrapper
	unwraps atomic.Int64
}

func (c *countingWrapper) Unwrap(ctx context.Context, wrapped []byte, aad map[string]string) ([]byte, error) {
	c.unwraps.Add(1)
	return c.Wrapper.Unwrap(ctx, wrapped, aad)
}

func TestSealAndOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	local, err := sealed.ParseLocalKey(sealed.NewLocalKey())
	if err != nil {
		t.Fatal(err)
	}
	w := &countingWrapper{Wrapper: local}
	s := &sealed.Sealer{Wrapper: w}
	acme := map[string]string{"tenant_id": "acme"}
	v, err := s.Seal(ctx, "whsec_secret-value", acme)
	if err != nil || !sealed.Sealed(v) || strings.Contains(v, "secret-value") {
		t.Fatalf("sealed %q err %v", v, err)
	}
	for range 3 {
		if got, err := s.Open(ctx, v, acme); err != nil || got != "whsec_secret-value" {
			t.Fatalf("open %q err %v", got, err)
		}
	}
	if n := w.unwraps.Load(); n != 1 {
		t.Errorf("%d unwraps for three opens of one value, want 1", n)
	}
	// Another tenant's context cannot open it, even with the data key cached.
	if _, err := s.Open(ctx, v, map[string]string{"tenant_id": "globex"}); !errors.Is(err, sealed.ErrOpen) {
		t.Errorf("open under another context: err %v", err)
	}
	// Nor another master key.
	other, _ := sealed.ParseLocalKey(sealed.NewLocalKey())
	if _, err := (&sealed.Sealer{Wrapper: other}).Open(ctx, v, acme); !errors.Is(err, sealed.ErrOpen) {
		t.Errorf("open under another master key: err %v", err)
	}
	// A damaged value fails closed.
	if _, err := s.Open(ctx, v[:len(v)-4]+"AAAA", acme); !errors.Is(err, sealed.ErrOpen) {
		t.Errorf("open of a damaged value: err %v", err)
	}
	// Plaintext from before sealing opens as it is; sealing off keeps values as they are.
	if got, err := s.Open(ctx, "whsec_legacy", acme); err != nil || got != "whsec_legacy" {
		t.Errorf("legacy plaintext: %q %v", got, err)
	}
	if got, _ := (*sealed.Sealer)(nil).Seal(ctx, "plain", acme); got != "plain" {
		t.Errorf("a nil sealer sealed: %q", got)
	}
	if _, err := (*sealed.Sealer)(nil).Open(ctx, v, acme); !errors.Is(err, sealed.ErrOpen) {
		t.Errorf("a nil sealer opened a sealed value: %v", err)
	}
}
