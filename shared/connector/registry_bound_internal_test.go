package connector

import (
	"context"
	"fmt"
	"testing"
	"time"
)

type unconfigured struct{}

func (unconfigured) ConnectorConfig(context.Context, string, System) (Config, error) {
	return Config{}, ErrNotConfigured
}

// Asking for the clients of many tenants (say, ids a caller made up) keeps the registry
// within its bound.
func TestRegistryStaysBounded(t *testing.T) {
	r := NewRegistry(unconfigured{}, time.Minute)
	for i := range 3 * maxRegistryEntries {
		if _, err := r.Client(context.Background(), fmt.Sprintf("t-%d", i), SystemCRM); err == nil {
			t.Fatal("want ErrNotConfigured")
		}
	}
	r.mu.Lock()
	n := len(r.entries)
	r.mu.Unlock()
	if n > maxRegistryEntries {
		t.Fatalf("%d registry entries, want at most %d", n, maxRegistryEntries)
	}
}
