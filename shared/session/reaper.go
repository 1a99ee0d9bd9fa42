package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenantrun"
)

// ReapReport says what one reaper run removed, over all tenants.
type ReapReport struct {
	Tenants  int `json:"tenants"`
	Tokens   int `json:"tokens"`
	Contexts int `json:"contexts"`
	Requests int `json:"requests"`
	Errors   int `json:"errors"`
	// TenantsTimedOut ran out of their share of the run; TenantsSkipped were left for the
	// next run because its deadline was near.
	TenantsTimedOut int `json:"tenantsTimedOut"`
	TenantsSkipped  int `json:"tenantsSkipped"`
}

// Reap deletes every tenant's expired tokens, contexts and bootstrap replay guards, and
// audits per tenant how many it removed (session.reap, only when it removed something).
// DynamoDB's TTL deletes expired items too, but may lag by days; the reaper is what makes
// "expired" mean "gone".
//
// Runs may overlap: every delete is conditional on the record still being expired and only
// the run that made it counts it, so each record is reaped, counted and audited once, and a
// run after a complete one finds nothing. A tenant that fails is logged and counted; the
// others still run. Reap returns an error only when it cannot list the tenants.
func (s *Service) Reap(ctx context.Context) (ReapReport, error) {
	var rep ReapReport
	tenants, err := s.Tenants.List(ctx)
	if err != nil {
		return rep, fmt.Errorf("list tenants: %w", err)
	}
	now := s.now()
	ids := make([]string, 0, len(tenants))
	for _, t := range tenants {
		ids = append(ids, t.ID)
	}
	// Each tenant a bounded share of the run, another one first each time (tenantrun).
	res := tenantrun.Run(ctx, ids, tenantrun.Plan{Now: s.now, Memory: s.reapMemory()}, func(ctx context.Context, id string) error {
		return s.reapTenant(ctx, id, now, &rep)
	})
	rep.TenantsTimedOut, rep.TenantsSkipped = res.TimedOut, res.Skipped
	if res.MemoryErr != nil {
		s.log().Warn("session reap: which tenants ran out of time is not remembered", "error", res.MemoryErr)
	}
	s.log().Info("session reap finished", "tenants", rep.Tenants, "tokens", rep.Tokens, "contexts", rep.Contexts,
		"requests", rep.Requests, "errors", rep.Errors, "tenantsTimedOut", res.TimedOut, "tenantsSkipped", res.Skipped)
	return rep, nil
}

func (s *Service) reapMemory() tenantrun.Memory {
	if s.ReapOrder != nil {
		return s.ReapOrder
	}
	return &s.reapOrder
}

// reapTenant reaps one tenant's expired records and audits what it removed.
func (s *Service) reapTenant(ctx context.Context, id string, now time.Time, rep *ReapReport) error {
	rep.Tenants++
	got, err := s.Store.DeleteExpired(ctx, id, now)
	if err != nil {
		rep.Errors++
		s.log().Error("session reap failed for a tenant", "tenant", id, "error", err)
	}
	rep.Tokens += got.Tokens
	rep.Contexts += got.Contexts
	rep.Requests += got.Requests
	if got.Total() == 0 {
		return err
	}
	// What was deleted stays deleted even if this record is lost, and no later run
	// will count it again; the log line keeps the numbers.
	if aerr := s.Audit.Write(ctx, audit.Entry{Actor: identity.ForTenant(id, ReaperTrigger),
		ActionType: audit.TypeSession, ActionKey: ActionReap, Result: audit.ResultSuccess, Resource: "sessions",
		Details: map[string]any{"tokens": got.Tokens, "contexts": got.Contexts, "requests": got.Requests,
			"expiredBefore": now.Truncate(time.Second)}}); aerr != nil {
		rep.Errors++
		s.log().Error("audit of a session reap failed", "tenant", id, "tokens", got.Tokens,
			"contexts", got.Contexts, "requests", got.Requests, "error", aerr)
		err = errors.Join(err, aerr)
	}
	return err
}
