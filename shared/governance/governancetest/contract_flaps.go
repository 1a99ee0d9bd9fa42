package governancetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// RunFlapCounterContract runs the cases every governance.FlapCounter must pass;
// newCounter returns an empty counter for each case, its own: the cases run side by side
// (t.Parallel).
func RunFlapCounterContract(t *testing.T, newCounter func(t *testing.T) governance.FlapCounter) {
	ctx := context.Background()
	count := func(t *testing.T, c governance.FlapCounter, tenant, key string, window time.Time, fields ...string) []string {
		t.Helper()
		over, err := c.CountWrites(ctx, tenant, key, window, fields, 3)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(over)
		return over
	}

	t.Run("fields at the limit are not counted and are answered", func(t *testing.T) {
		t.Parallel()
		c := newCounter(t)
		for i := range 3 {
			if over := count(t, c, "t1", "crm/Account/C-1", base, "Phone", "Email"); len(over) != 0 {
				t.Fatalf("write %d: over %v", i+1, over)
			}
		}
		// Email was written three times; Fax is new: only Email is over.
		if over := count(t, c, "t1", "crm/Account/C-1", base, "Email", "Fax"); !slices.Equal(over, []string{"Email"}) {
			t.Fatalf("over %v, want [Email]", over)
		}
		if over := count(t, c, "t1", "crm/Account/C-1", base, "Fax", "Fax#x"); len(over) != 0 {
			t.Fatalf("Fax counted twice: over %v", over)
		}
		if over := count(t, c, "t1", "crm/Account/C-1", base, "Phone", "Email", "Fax"); !slices.Equal(over, []string{"Email", "Phone"}) {
			t.Fatalf("over %v, want [Email Phone]", over)
		}
	})

	t.Run("windows, records and tenants count apart", func(t *testing.T) {
		t.Parallel()
		c := newCounter(t)
		for range 3 {
			count(t, c, "t1", "crm/Account/C-1", base, "Phone")
		}
		for _, k := range []struct {
			tenant, key string
			window      time.Time
		}{{"t2", "crm/Account/C-1", base}, {"t1", "crm/Account/C-2", base}, {"t1", "crm/Account/C-1#", base},
			{"t1", "crm/Account/C-1", base.Add(10 * time.Minute)}} {
			if over := count(t, c, k.tenant, k.key, k.window, "Phone"); len(over) != 0 {
				t.Fatalf("%+v shares a counter: over %v", k, over)
			}
		}
	})

	t.Run("concurrent writes never pass the limit", func(t *testing.T) {
		t.Parallel()
		c := newCounter(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		counted := 0
		for range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				over, err := c.CountWrites(ctx, "t1", "hosterp/customer/C-1", base, []string{"phone"}, 3)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if len(over) == 0 {
					counted++
				}
			}()
		}
		wg.Wait()
		if counted != 3 {
			t.Fatalf("%d writes counted, want exactly the limit of 3", counted)
		}
	})

	t.Run("many fields in one write", func(t *testing.T) {
		t.Parallel()
		c := newCounter(t)
		fields := make([]string, 100)
		for i := range fields {
			fields[i] = fmt.Sprintf("field_%03d_with_a_rather_long_name_to_fill_the_expression", i)
		}
		for range 3 {
			if over := count(t, c, "t1", "crm/Account/C-1", base, fields...); len(over) != 0 {
				t.Fatalf("over %d fields", len(over))
			}
		}
		if over := count(t, c, "t1", "crm/Account/C-1", base, fields...); len(over) != 100 {
			t.Fatalf("over %d fields, want 100", len(over))
		}
	})
}
