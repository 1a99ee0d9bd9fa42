package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// Limits of one tenant's host ERP poll in one reconcile run, so that one tenant's ERP (slow,
// endless, or answering the same page forever) cannot starve the others: the rest is
// polled by the next run.
const (
	// MaxPollPages bounds the pages read per tenant and run (of reconcilePage items).
	MaxPollPages = 20
	// MaxPollTime bounds the time spent polling one tenant's host ERP per run.
	MaxPollTime = time.Minute
	// MaxClockSkew is how far in the future an occurredAt may lie before it is treated
	// as now for the watermark: a host clock running ahead, or a wrong date, must not
	// pin the watermark in the future and hide every error after it.
	MaxClockSkew = 5 * time.Minute
)

// ErrRepeatedCursor means the host ERP answered a page cursor it had already given in
// the same poll: following it would loop forever.
var ErrRepeatedCursor = errors.New("host ERP repeated a page cursor")

// pollHost claims the sync errors the host ERP recorded since the tenant's watermark,
// through the same claim path as the webhook, and advances the watermark to the newest
// error claimed. A poll cut short by MaxPollPages or MaxPollTime advances the watermark
// only if the pages came oldest first (so nothing unseen lies before the newest seen);
// otherwise the next run starts from the same watermark, and claims already made fall
// away as duplicates. The watermark moves only if no overlapping run moved it meanwhile,
// and the poll window includes it, so an error at exactly that time is seen again and
// falls away as a duplicate.
func (rc *Reconcile) pollHost(ctx context.Context, tenantID string, rep *Report) error {
	if rc.Host == nil || rc.Watermarks == nil {
		return nil
	}
	prev, err := rc.Watermarks.Watermark(ctx, tenantID)
	if err != nil {
		return err
	}
	since := prev
	if since.IsZero() {
		first := rc.FirstPoll
		if first <= 0 {
			first = 24 * time.Hour
		}
		since = rc.now().Add(-first)
	}
	budget := rc.PollTime
	if budget <= 0 {
		budget = MaxPollTime
	}
	pctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	p := poll{rc: rc, tenantID: tenantID, rep: rep, newest: prev, ordered: true, cursors: map[string]bool{}}
	complete, err := p.run(pctx, since)
	cut := !complete && (err == nil || errors.Is(err, ErrRepeatedCursor) || pctx.Err() != nil)
	if !complete && !cut {
		return err // the host failed: nothing advances
	}
	if cut {
		rep.PollsCut++
		rc.log().Warn("host ERP poll cut short; the next run goes on", "tenant", tenantID, "pages", p.pages, "error", err)
	}
	if p.newest.After(prev) && (complete || p.ordered) {
		if err := rc.Watermarks.AdvanceWatermark(ctx, tenantID, prev, p.newest); err != nil && !errors.Is(err, syncerror.ErrStateChanged) {
			return err
		}
	}
	if errors.Is(err, ErrRepeatedCursor) {
		return err
	}
	return nil
}

// poll is one tenant's host ERP poll in progress.
type poll struct {
	rc       *Reconcile
	tenantID string
	rep      *Report
	newest   time.Time
	last     time.Time // the occurredAt of the previous item, for ordered
	ordered  bool      // every item so far came at or after the one before it
	cursors  map[string]bool
	pages    int
}

// run reads pages until the host has no more (complete) or a limit stops it.
func (p *poll) run(ctx context.Context, since time.Time) (complete bool, err error) {
	cursor := ""
	for {
		if p.pages == MaxPollPages {
			return false, nil
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		items, next, err := p.rc.Host.ListSyncErrors(ctx, p.tenantID, since, cursor, reconcilePage)
		if errors.Is(err, syncerror.ErrWriterNotConfigured) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		p.pages++
		if err := p.claim(ctx, items); err != nil {
			return false, err
		}
		if next == "" {
			return true, nil
		}
		if p.cursors[next] {
			return false, fmt.Errorf("%w after %d pages", ErrRepeatedCursor, p.pages)
		}
		p.cursors[next] = true
		cursor = next
	}
}

func (p *poll) claim(ctx context.Context, items []json.RawMessage) error {
	rc := p.rc
	now := rc.now()
	for _, raw := range items {
		p.rep.Polled++
		rec, err := syncerror.ParseRecord(raw, p.tenantID)
		if err != nil {
			p.rep.Invalid++
			rc.log().Warn("host ERP listed an invalid sync error", "tenant", p.tenantID, "error", err)
			continue
		}
		at := rec.OccurredAt
		if at.After(now.Add(MaxClockSkew)) {
			at = now
		}
		if at.Before(p.last) {
			p.ordered = false
		}
		p.last = at
		if at.After(p.newest) {
			p.newest = at
		}
		c, res, sendErr, err := claimPath{rc.Claims, rc.Queue, rc.Mask}.claim(ctx, rec, syncerror.SourceReconcile, syncerror.Arrival{}, now)
		if err != nil {
			return err
		}
		if res != syncerror.FoldCreated {
			continue
		}
		p.rep.Claimed++
		if sendErr != nil {
			p.rep.SendFailed++
			rc.log().Warn("enqueue of a polled claim failed; the next run re-enqueues it", "tenant", p.tenantID, "id", c.ID, "error", sendErr)
		}
	}
	return nil
}
