package governancetest

import (
	"context"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// Flaps is an in-memory governance.FlapCounter, safe for concurrent use.
type Flaps struct {
	mu     sync.Mutex
	counts map[flapKey]int
}

type flapKey struct {
	tenant, key, field string
	window             time.Time
}

var _ governance.FlapCounter = (*Flaps)(nil)

// CountWrites implements governance.FlapCounter.
func (f *Flaps) CountWrites(_ context.Context, tenant, key string, window time.Time, fields []string, limit int) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.counts == nil {
		f.counts = map[flapKey]int{}
	}
	var over []string
	for _, field := range fields {
		k := flapKey{tenant, key, field, window.UTC()}
		if f.counts[k] >= limit {
			over = append(over, field)
			continue
		}
		f.counts[k]++
	}
	return over, nil
}
