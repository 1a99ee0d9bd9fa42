package automation

import (
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// DayCounts are the figures of the rows that arrived on one UTC day.
type DayCounts struct {
	Date string `json:"date"` // YYYY-MM-DD
	Counts
}

// maxDays bounds the trend (the longest window is 30 days, which touches 31 dates).
const maxDays = 32

type daily struct {
	first time.Time
	days  []DayCounts
}

// newDaily holds one entry for each UTC date from since's to now's.
func newDaily(since, now time.Time) *daily {
	first := since.UTC().Truncate(24 * time.Hour)
	d := &daily{first: first}
	for t := first; !t.After(now.UTC()) && len(d.days) < maxDays; t = t.Add(24 * time.Hour) {
		d.days = append(d.days, DayCounts{Date: t.Format(time.DateOnly)})
	}
	return d
}

// add counts c on the day it was claimed (a row outside the days is left out).
func (d *daily) add(c syncerror.Claim) {
	i := int(c.ClaimedAt.UTC().Sub(d.first) / (24 * time.Hour))
	if c.ClaimedAt.Before(d.first) || i >= len(d.days) {
		return
	}
	d.days[i].add(c)
}

func (d *daily) finish() []DayCounts {
	for i := range d.days {
		d.days[i].finish()
	}
	return d.days
}
