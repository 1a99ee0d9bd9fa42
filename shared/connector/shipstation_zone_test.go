package connector_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
)

// ShipStation's dates are Pacific time: the embedded zone keeps both offsets and the
// switch between them (2026: PDT from 8 March 02:00, PST again from 1 November 02:00).
func TestShipStationZoneIsPacificWithDaylightSaving(t *testing.T) {
	z := connector.ShipStationZone()
	for _, c := range []struct {
		utc    string
		name   string
		offset int
	}{
		{"2026-01-15T12:00:00Z", "PST", -8 * 3600},
		{"2026-03-08T09:59:00Z", "PST", -8 * 3600},
		{"2026-03-08T10:00:00Z", "PDT", -7 * 3600},
		{"2026-07-01T12:00:00Z", "PDT", -7 * 3600},
		{"2026-11-01T09:00:00Z", "PST", -8 * 3600},
	} {
		at, _ := time.Parse(time.RFC3339, c.utc)
		if name, off := at.In(z).Zone(); name != c.name || off != c.offset {
			t.Errorf("%s in ShipStation's zone: %s %d, want %s %d", c.utc, name, off, c.name, c.offset)
		}
	}
	if got := z.String(); got != "America/Los_Angeles" {
		t.Errorf("zone name %q", got)
	}
}
