package connector_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// changeBase is after any real clock a test runs at, so the record startProfile seeds
// (at the real time) is older than every changed-since bound below.
var changeBase = time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)

// changeRecord is the i-th record of a changed-since case: an id the vendor would give it
// and fields that make it a valid record there.
func (pc profileCase) changeRecord(i int) (string, map[string]any) {
	fields := maps.Clone(pc.seed)
	id := ""
	switch pc.sys {
	case connector.SystemHostERP:
		id = strconv.Itoa(20000 + i)
	case connector.SystemERP2:
		id = fmt.Sprintf("5d115c9c-44e3-ea11-bb43-%012d", i)
	case connector.SystemCRM:
		id = fmt.Sprintf("001000000000%03dAAA", i)
	case connector.SystemMarketing:
		id = fmt.Sprintf("member%d@example.com", i)
		fields["email_address"] = id
	case connector.SystemShipping:
		id = strconv.Itoa(3000 + i)
		fields["orderKey"] = "SO-" + id
	}
	fields["seq"] = i
	return id, fields
}

// seedChanges puts records 1..n into fake, record i changed at changeBase + i minutes.
func seedChanges(fake *fakesystem.Server, pc profileCase, n int) {
	for i := 1; i <= n; i++ {
		at := changeBase.Add(time.Duration(i) * time.Minute)
		fake.SetClock(func() time.Time { return at })
		id, fields := pc.changeRecord(i)
		fake.Seed(pc.entity, id, fields)
	}
}

// walk reads every page of the changes since since and returns them in order.
func walk(t *testing.T, c *connector.Client, entity string, since time.Time, limit int) []connector.Change {
	t.Helper()
	var all []connector.Change
	cursor := ""
	for range 20 {
		page, err := c.Changes(context.Background(), entity, since, cursor, limit)
		if err != nil {
			t.Fatalf("Changes(cursor %q): %v", cursor, err)
		}
		all = append(all, page.Changes...)
		if cursor = page.NextCursor; cursor == "" {
			return all
		}
	}
	t.Fatal("the pages never end")
	return nil
}

// Every profile's changed-since read finds the records changed at or after the bound,
// oldest first, each as Get reads it, across pages, against its vendor's fake.
func TestContractChanges(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		seedChanges(fake, pc, 5)
		since := changeBase.Add(2 * time.Minute)
		got := walk(t, c, pc.entity, since, 2)
		var ids []string
		for i, ch := range got {
			ids = append(ids, ch.Record.ID)
			want, ok := fake.Get(pc.entity, ch.Record.ID)
			if !ok || !reflect.DeepEqual(ch.Record.Fields, want.Fields) || ch.Record.Version != want.Version || ch.Record.Entity != pc.entity {
				t.Fatalf("change %d = %#v, want the record as Get reads it: %#v", i, ch.Record, want)
			}
			if at := changeBase.Add(time.Duration(i+2) * time.Minute); !ch.ChangedAt.Equal(at) || ch.ChangedAt.Location() != time.UTC {
				t.Fatalf("change %d changed at %v, want %v (UTC)", i, ch.ChangedAt, at)
			}
		}
		var want []string
		for i := 2; i <= 5; i++ {
			id, _ := pc.changeRecord(i)
			want = append(want, id)
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("changes since +2m: %v, want %v (inclusive, oldest first, each once)", ids, want)
		}
		// A bound between two changes leaves the earlier out; one after all finds nothing.
		if got := walk(t, c, pc.entity, since.Add(30*time.Second), 10); len(got) != 3 {
			t.Fatalf("since +2m30s: %d changes, want 3", len(got))
		}
		if got := walk(t, c, pc.entity, changeBase.Add(time.Hour), 10); len(got) != 0 {
			t.Fatalf("since +1h: %d changes, want none", len(got))
		}
	})
}

// A record changed while the pages are read is not lost: it comes later, as changed.
func TestContractChangesWhileReading(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		seedChanges(fake, pc, 4)
		page, err := c.Changes(context.Background(), pc.entity, changeBase, "", 2)
		if err != nil || len(page.Changes) != 2 || page.NextCursor == "" {
			t.Fatalf("first page %+v err %v", page, err)
		}
		later := changeBase.Add(time.Hour)
		fake.SetClock(func() time.Time { return later })
		id, fields := pc.changeRecord(1)
		fields["seq"] = 100
		fake.Seed(pc.entity, id, fields)
		seen := map[string]bool{}
		for _, ch := range page.Changes {
			seen[ch.Record.ID] = true
		}
		for _, ch := range walk(t, c, pc.entity, page.Changes[1].ChangedAt, 2) {
			seen[ch.Record.ID] = true
		}
		for i := 1; i <= 4; i++ {
			if id, _ := pc.changeRecord(i); !seen[id] {
				t.Fatalf("record %s was lost while the pages were read (seen %v)", id, seen)
			}
		}
	})
}

// Failures map to the taxonomy: a transient one is retried within the call, a refused
// entity or an unsupported one says so, and a bad cursor is refused.
func TestContractChangesFailures(t *testing.T) {
	eachProfile(t, func(t *testing.T, pc profileCase) {
		fake, c, _ := startProfile(t, pc, nil)
		seedChanges(fake, pc, 1)
		ctx := context.Background()
		fake.FailNext(1, http.StatusServiceUnavailable)
		if page, err := c.Changes(ctx, pc.entity, changeBase, "", 0); err != nil || len(page.Changes) != 1 {
			t.Fatalf("after one 503: %+v %v, want it retried", page, err)
		}
		fake.FailNext(3, http.StatusServiceUnavailable)
		if _, err := c.Changes(ctx, pc.entity, changeBase, "", 0); !errors.Is(err, connector.ErrUnavailable) {
			t.Fatalf("three 503s: %v, want ErrUnavailable", err)
		}
		for _, bad := range []string{"", "has space", "x'; DROP", "a/b"} {
			if _, err := c.Changes(ctx, bad, changeBase, "", 0); !errors.Is(err, connector.ErrValidation) {
				t.Fatalf("entity %q: %v, want refused", bad, err)
			}
		}
		if _, err := c.Changes(ctx, pc.entity, changeBase, "not-a-cursor", 0); !errors.Is(err, connector.ErrValidation) {
			t.Fatalf("a made-up cursor: %v, want refused", err)
		}
		if pc.sys == connector.SystemShipping {
			if _, err := c.Changes(ctx, "products", changeBase, "", 0); !errors.Is(err, connector.ErrUnsupported) {
				t.Fatalf("ShipStation products: %v, want ErrUnsupported", err)
			}
		}
	})
}

// ShipStation's start is a second early (it keeps orders modified after it), and an hour
// earlier still when Pacific time repeats an hour: 1:30 on the first Sunday of November
// happens twice, and ShipStation may read it as either.
func TestShipStationStartCoversTheRepeatedHour(t *testing.T) {
	summer := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	if got := connector.ShipStationStart(summer); !got.Equal(summer.Add(-time.Second)) {
		t.Fatalf("start for %v = %v, want a second earlier", summer, got)
	}
	// 2026-11-01 08:30 UTC is 01:30 PDT, in the hour that repeats at 09:00 UTC.
	fallBack := time.Date(2026, 11, 1, 8, 30, 0, 0, time.UTC)
	if got := connector.ShipStationStart(fallBack); !got.Equal(fallBack.Add(-time.Second - time.Hour)) {
		t.Fatalf("start for %v = %v, want an hour and a second earlier", fallBack, got)
	}
}
