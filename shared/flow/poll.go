package flow

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Watermark is how far the poll of one source (system and entity) has read. Every poll
// flow of that source shares it: one read of the source serves them all.
type Watermark struct {
	Source Endpoint `json:"source"`
	// Since is where the next poll reads from: changes at or after it. Changes exactly at
	// Since are read again and recognised by their event id, so a change that landed in
	// the same instant as the last one read is not lost.
	Since time.Time `json:"since"`
	// Cursor is the source's own next page, kept only when a whole page of changes
	// carried Since's time, where moving Since on cannot make progress. It is the
	// source's URL or offset, kept in the store and not shown.
	Cursor   string    `json:"-"`
	PolledAt time.Time `json:"polledAt,omitzero"`
	// Changes is how many changes the last poll found that no poll had found before.
	Changes int `json:"changes"`
	// Error is the last poll's failure in words (the connector's error class, never
	// values); empty when it read to the end or to its budget.
	Error string `json:"error,omitempty"`
}

// ChangeSource reads a source system's changed records; the tenants' connectors
// implement it (connector.Client.Changes), reads needing no guard.
type ChangeSource interface {
	Changes(ctx context.Context, tenantID string, system connector.System, entity string, since time.Time, cursor string, limit int) (connector.ChangePage, error)
}

// Defaults of a Poller.
const (
	// DefaultPollBudget bounds the changes one poll of one source hands to the executor;
	// the rest waits for the next poll, so one busy source cannot hold a run past its
	// Lambda's timeout.
	DefaultPollBudget = 500
	// DefaultPollPage is how many changes a poll asks the source for at once.
	DefaultPollPage = 100
)

// Poller runs poll flows: for each source a tenant's enabled poll flows read from, it
// reads the records changed since the source's watermark and hands each change to the
// executor as an event, then moves the watermark on.
type Poller struct {
	Exec   *Executor
	Source ChangeSource
	Budget int
	Page   int
}

// PollReport is what one poll of a tenant did.
type PollReport struct {
	Sources int `json:"sources"`
	Changes int `json:"changes"`
	Runs    int `json:"runs"`
	Failed  int `json:"failed"`
	// Skipped counts sources left for the next poll because the deadline was near.
	Skipped int `json:"skipped"`
}

// Poll polls every source of the tenant's enabled poll flows once. A source that fails
// is counted and recorded on its watermark; the others are still polled.
func (p *Poller) Poll(ctx context.Context, tenantID string) (PollReport, error) {
	flows, err := p.Exec.Store.Flows(ctx, tenantID)
	if err != nil {
		return PollReport{}, fmt.Errorf("read flows: %w", err)
	}
	var rep PollReport
	var errs []error
	for _, src := range PollSources(flows) {
		if nearDeadline(ctx) {
			// Left for the next poll, and not marked polled: its watermark says when it
			// was last really read.
			rep.Skipped++
			continue
		}
		rep.Sources++
		changes, runs, err := p.pollSource(ctx, tenantID, src, flows)
		rep.Changes, rep.Runs = rep.Changes+changes, rep.Runs+runs
		if err != nil {
			rep.Failed++
			errs = append(errs, fmt.Errorf("poll %s: %w", src, err))
		}
	}
	return rep, errors.Join(errs...)
}

// PollSources are the sources the enabled poll flows read from, sorted.
func PollSources(flows []Flow) []Endpoint {
	var out []Endpoint
	for _, f := range flows {
		if f.Enabled && f.TriggerOrDefault() == TriggerPoll && !slices.Contains(out, f.Source) {
			out = append(out, f.Source)
		}
	}
	slices.SortFunc(out, func(a, b Endpoint) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// pollSource reads src from its watermark and moves it on. The watermark is saved
// whatever happened, so what was handled is not read again and a failure shows.
func (p *Poller) pollSource(ctx context.Context, tenantID string, src Endpoint, flows []Flow) (changes, runs int, err error) {
	w, err := p.Exec.Store.Watermark(ctx, tenantID, src)
	var prev *time.Time
	switch {
	case err == nil:
		at := w.PolledAt
		prev = &at
	case errors.Is(err, ErrNotFound):
		w = Watermark{Source: src, Since: firstSince(flows, src)}
	default:
		return 0, 0, fmt.Errorf("read watermark: %w", err)
	}
	changes, runs, readErr := p.read(ctx, tenantID, &w, flows)
	w.PolledAt, w.Changes, w.Error = p.Exec.now(), changes, ""
	if readErr != nil {
		w.Error = "reading " + src.String() + " failed: " + cmp.Or(connector.ErrorKind(readErr), "internal error")
		httpapi.Logger(ctx).Error("flow poll failed; the next poll starts where it stopped",
			"tenant", tenantID, "source", src.String(), "error", readErr)
	}
	if err := p.Exec.Store.SaveWatermark(ctx, tenantID, w, prev); err != nil {
		if errors.Is(err, ErrTaken) {
			// A concurrent poll saved first; what this one handled is recognised by its
			// event ids when read again.
			return changes, runs, readErr
		}
		return changes, runs, errors.Join(readErr, fmt.Errorf("save watermark: %w", err))
	}
	return changes, runs, readErr
}

// read hands the source's changes to the executor, page by page, moving w.Since (and,
// when a page cannot move it, w.Cursor) on as it goes, and returns how many changes were
// new and the runs they started. On a failure w stops at the change that failed, so the
// next poll starts there.
func (p *Poller) read(ctx context.Context, tenantID string, w *Watermark, flows []Flow) (changes, runs int, err error) {
	for read, pages := 0, 0; read < cmp.Or(p.Budget, DefaultPollBudget) && pages < maxPollPages && !nearDeadline(ctx); pages++ {
		page, err := p.Source.Changes(ctx, tenantID, w.Source.System, w.Source.Entity, w.Since, w.Cursor, cmp.Or(p.Page, DefaultPollPage))
		if err != nil {
			return changes, runs, err
		}
		read += len(page.Changes)
		newest := w.Since
		for _, ch := range page.Changes {
			n, err := p.handle(ctx, tenantID, w.Source, ch, flows)
			if err != nil {
				// Changes come oldest first: everything before this one is handled.
				w.Since, w.Cursor = ch.ChangedAt, ""
				return changes, runs, err
			}
			if n >= 0 {
				changes, runs = changes+1, runs+n
			}
			if ch.ChangedAt.After(newest) {
				newest = ch.ChangedAt
			}
		}
		switch {
		case page.NextCursor == "":
			w.Since, w.Cursor = newest, ""
			return changes, runs, nil
		case newest.After(w.Since):
			// Reading again from the newest change is immune to the source's offsets
			// shifting as records change between pages.
			w.Since, w.Cursor = newest, ""
		default:
			w.Cursor = page.NextCursor
		}
	}
	httpapi.Logger(ctx).Info("flow poll stopped at its budget or deadline; the next poll goes on",
		"tenant", tenantID, "source", w.Source.String(), "changes", changes)
	return changes, runs, nil
}

// maxPollPages bounds the pages one poll of a source reads, budget or not: a source that
// answers empty pages with a next cursor (it filters coarser than asked) still ends.
const maxPollPages = 50

// pollReserve is the time a poll leaves itself before its deadline to save where it got.
const pollReserve = 30 * time.Second

func nearDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < pollReserve
}

// handle starts the runs of one change and returns how many it started, or -1 when the
// change was handled before (read again at the watermark) or cannot be handled.
func (p *Poller) handle(ctx context.Context, tenantID string, src Endpoint, ch connector.Change, flows []Flow) (int, error) {
	if ch.Record.ID == "" || ch.ChangedAt.IsZero() {
		httpapi.Logger(ctx).Warn("flow poll: the source sent a change without a record id or time; skipped",
			"tenant", tenantID, "source", src.String())
		return -1, nil
	}
	ev := polledEvent(src, ch)
	ids, started, err := p.Exec.start(ctx, tenantID, src.System, ev, flows, TriggerPoll)
	switch {
	case err != nil:
		// The error is logged: it names the change by its event id, never by the record's
		// id, which can be personal data (a Mailchimp member's e-mail address).
		return 0, fmt.Errorf("start runs for %s change %s: %w", src, ev.EventID, err)
	case !started:
		return -1, nil
	}
	return len(ids), nil
}

// firstSince is where a source's first poll starts: when the earliest of its poll flows
// was last put, so turning a flow on does not replay the source's history. It is rounded
// down to the second, the coarsest time a vendor keeps: a record changed in the same
// second as the flow was put, after it, would otherwise look older than the flow.
func firstSince(flows []Flow, src Endpoint) time.Time {
	var first time.Time
	for _, f := range flows {
		if f.Enabled && f.TriggerOrDefault() == TriggerPoll && f.Source == src && (first.IsZero() || f.UpdatedAt.Before(first)) {
			first = f.UpdatedAt
		}
	}
	return first.Truncate(time.Second)
}

// polledEvent is a change as an event. Its id is derived from the record and its
// version, so reading the same change again starts nothing.
func polledEvent(src Endpoint, ch connector.Change) Event {
	h := sha256.New()
	for _, part := range []string{src.String(), ch.Record.ID, ch.Record.Version, ch.ChangedAt.UTC().Format(time.RFC3339Nano)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return Event{EventID: PollEventPrefix + base32.StdEncoding.EncodeToString(h.Sum(nil))[:26], Entity: src.Entity,
		RecordID: ch.Record.ID, ChangedAt: ch.ChangedAt.UTC(), Fields: ch.Record.Fields}
}

// PollEventPrefix starts the event id of every change the poll found.
const PollEventPrefix = "poll:"
