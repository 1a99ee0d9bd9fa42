package bounded_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/bounded"
)

func TestMapStaysWithinItsBound(t *testing.T) {
	m := bounded.Map[string, int]{Max: 100}
	m.Store("keep", 1)
	for i := range 10000 {
		m.Store(fmt.Sprint(i), i)
		if n := m.Len(); n > 100 {
			t.Fatalf("%d entries after %d stores, want at most 100", n, i+1)
		}
	}
	// Overwriting a key of a full map evicts nothing.
	m.Store("9999", -1)
	if v, ok := m.Load("9999"); !ok || v != -1 || m.Len() != 100 {
		t.Fatalf("overwrite: %d %v, %d entries", v, ok, m.Len())
	}
	m.Delete("9999")
	if _, ok := m.Load("9999"); ok || m.Len() != 99 {
		t.Fatal("delete")
	}
}

// The zero Map works and holds DefaultMax entries.
func TestZeroMap(t *testing.T) {
	var m bounded.Map[int, bool]
	for i := range bounded.DefaultMax + 50 {
		m.Store(i, true)
	}
	if n := m.Len(); n != bounded.DefaultMax {
		t.Fatalf("%d entries, want %d", n, bounded.DefaultMax)
	}
}

// Update is a check-then-set: of many concurrent callers exactly one sets a key.
func TestUpdateIsAtomic(t *testing.T) {
	var m bounded.Map[string, int]
	var wg sync.WaitGroup
	var mu sync.Mutex
	winners := 0
	for range 64 {
		wg.Go(func() {
			if m.Update("k", func(_ int, ok bool) (int, bool) { return 1, !ok }) {
				mu.Lock()
				winners++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if winners != 1 {
		t.Fatalf("%d callers set the key, want 1", winners)
	}
}
