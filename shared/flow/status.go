package flow

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// Health is how a target system's writes have gone lately, judged from its flow runs.
type Health string

// Health values. Governance outcomes (rejected, held, loop broken) say nothing about a
// connector and do not count; skipped runs wrote nothing.
const (
	HealthOK       Health = "ok"       // every recent write landed
	HealthDegraded Health = "degraded" // some failed or wait for a retry, others landed
	HealthFailing  Health = "failing"  // the last writes all failed or wait for a retry
	HealthIdle     Health = "idle"     // no write attempted in the window
)

// failingStreak is how many of a system's newest write attempts must have failed for it
// to be failing rather than degraded.
const failingStreak = 3

// maxStatusRuns bounds what one status read scans; a window with more is reported as
// truncated rather than read without limit.
const maxStatusRuns = 2000

// SystemStatus is one target system's recent flow traffic.
type SystemStatus struct {
	System        connector.System `json:"system"`
	Health        Health           `json:"health"`
	Counts        map[Outcome]int  `json:"counts"`
	LastWrittenAt *time.Time       `json:"lastWrittenAt,omitempty"`
	LastFailureAt *time.Time       `json:"lastFailureAt,omitempty"`
	// LastFailure is the newest failure's decision: the target's error class, never values.
	LastFailure string `json:"lastFailure,omitempty"`
	attempts    []Outcome
}

// FlowStatus is one flow's recent runs.
type FlowStatus struct {
	FlowID    string          `json:"flowId"`
	Source    Endpoint        `json:"source"`
	Target    Endpoint        `json:"target"`
	Counts    map[Outcome]int `json:"counts"`
	LastRunAt time.Time       `json:"lastRunAt"`
}

// Status is the integration status: per target system and per flow, over a window.
type Status struct {
	Since     time.Time      `json:"since"`
	RunsRead  int            `json:"runsRead"`
	Truncated bool           `json:"truncated"`
	Systems   []SystemStatus `json:"systems"`
	Flows     []FlowStatus   `json:"flows"`
	// Polls are the watermarks of the sources the enabled poll flows read; a source not
	// polled yet has a zero polledAt.
	Polls []Watermark `json:"polls"`
}

// Status reads the tenant's runs created since, newest first, summarises them, and adds
// where each polled source stands.
func (s *Service) Status(ctx context.Context, tenantID string, since time.Time) (Status, error) {
	st, err := s.runStatus(ctx, tenantID, since)
	if err != nil {
		return Status{}, err
	}
	flows, err := s.Store.Flows(ctx, tenantID)
	if err != nil {
		return Status{}, err
	}
	for _, src := range PollSources(flows) {
		w, err := s.Store.Watermark(ctx, tenantID, src)
		switch {
		case errors.Is(err, ErrNotFound):
			w = Watermark{Source: src, Since: firstSince(flows, src)}
		case err != nil:
			return Status{}, err
		}
		st.Polls = append(st.Polls, w)
	}
	return st, nil
}

func (s *Service) runStatus(ctx context.Context, tenantID string, since time.Time) (Status, error) {
	var runs []Run
	cursor := ""
	for {
		page, next, err := s.Store.Runs(ctx, tenantID, RunQuery{Limit: 200, Cursor: cursor})
		if err != nil {
			return Status{}, err
		}
		for _, r := range page {
			if r.CreatedAt.Before(since) {
				return Summarise(since, runs, false), nil
			}
			if len(runs) == maxStatusRuns {
				return Summarise(since, runs, true), nil
			}
			runs = append(runs, r)
		}
		if next == "" {
			return Summarise(since, runs, false), nil
		}
		cursor = next
	}
}

// Summarise counts runs (newest first) per target system and per flow. Every system is
// listed, idle when no run wrote to it.
func Summarise(since time.Time, runs []Run, truncated bool) Status {
	st := Status{Since: since, RunsRead: len(runs), Truncated: truncated, Systems: []SystemStatus{}, Flows: []FlowStatus{},
		Polls: []Watermark{}}
	systems := map[connector.System]*SystemStatus{}
	for _, sys := range connector.Systems {
		st.Systems = append(st.Systems, SystemStatus{System: sys, Counts: map[Outcome]int{}})
	}
	for i := range st.Systems {
		systems[st.Systems[i].System] = &st.Systems[i]
	}
	flows := map[string]int{}
	for _, r := range runs {
		if sys := systems[r.Target.System]; sys != nil {
			sys.add(r)
		}
		i, ok := flows[r.FlowID]
		if !ok {
			i = len(st.Flows)
			flows[r.FlowID] = i
			st.Flows = append(st.Flows, FlowStatus{FlowID: r.FlowID, Source: r.Source, Target: r.Target,
				Counts: map[Outcome]int{}, LastRunAt: r.CreatedAt})
		}
		st.Flows[i].Counts[r.Outcome]++
	}
	for i := range st.Systems {
		st.Systems[i].Health = health(st.Systems[i].attempts)
	}
	return st
}

// add counts one run, newest first.
func (s *SystemStatus) add(r Run) {
	s.Counts[r.Outcome]++
	at := r.UpdatedAt
	switch r.Outcome {
	case OutcomeWritten:
		if s.LastWrittenAt == nil {
			s.LastWrittenAt = &at
		}
	case OutcomeFailed, OutcomeRetrying:
		if s.LastFailureAt == nil {
			s.LastFailureAt, s.LastFailure = &at, r.Decision
		}
	default:
		return
	}
	s.attempts = append(s.attempts, r.Outcome)
}

// health judges write attempts, newest first.
func health(attempts []Outcome) Health {
	if len(attempts) == 0 {
		return HealthIdle
	}
	failed := 0
	for _, o := range attempts {
		if o != OutcomeWritten {
			failed++
		}
	}
	switch {
	case failed == 0:
		return HealthOK
	case failed == len(attempts) || streak(attempts) >= failingStreak:
		return HealthFailing
	}
	return HealthDegraded
}

// streak counts the newest attempts that did not land.
func streak(attempts []Outcome) int {
	n := 0
	for _, o := range attempts {
		if o == OutcomeWritten {
			break
		}
		n++
	}
	return n
}

// StatusHandler is GET /api/flows/status?hours=24 (1 to 168).
func (s *Service) StatusHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hours := 24
		if v := r.URL.Query().Get("hours"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 168 {
				httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "hours", Message: "must be a whole number from 1 to 168"}})
				return
			}
			hours = n
		}
		since := s.now().Add(-time.Duration(hours) * time.Hour)
		st, err := s.Status(r.Context(), caller(r).TenantID, since)
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The integration status cannot be read right now. Retry shortly.")
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, st)
	})
}
