package bounded_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
)

// A value is read once per TTL; a moved generation or an expired entry reads it again;
// an error is returned and not kept; a TTL of 0 reads every time.
func TestExpiringReadsThroughOncePerTTL(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var gen atomic.Uint64
	e := &bounded.Expiring[string, int]{TTL: 10 * time.Second, Now: func() time.Time { return now }, Gen: &gen}
	reads, fail := 0, false
	get := func() (int, error) {
		return e.Get("t1", func() (int, error) {
			reads++
			if fail {
				return 0, errors.New("down")
			}
			return reads, nil
		})
	}
	for i, step := range []struct {
		do        func()
		want      int
		wantReads int
		wantErr   bool
	}{
		{func() {}, 1, 1, false},
		{func() { now = now.Add(9 * time.Second) }, 1, 1, false},
		{func() { now = now.Add(2 * time.Second) }, 2, 2, false}, // expired
		{func() { gen.Add(1) }, 3, 3, false},                     // changed in this process
		{func() { gen.Add(1); fail = true }, 0, 4, true},         // an error is not kept
		{func() { fail = false }, 5, 5, false},
		{func() {}, 5, 5, false},
	} {
		step.do()
		got, err := get()
		if got != step.want || reads != step.wantReads || (err != nil) != step.wantErr {
			t.Fatalf("step %d: got %d, %v after %d reads; want %d after %d", i, got, err, reads, step.want, step.wantReads)
		}
	}
	e.TTL = 0
	if _, _ = get(); reads != 6 {
		t.Fatalf("TTL 0: %d reads, want one more", reads)
	}
}
