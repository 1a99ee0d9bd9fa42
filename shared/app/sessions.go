package app

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/session"
)

// SessionService returns the embedded-session service: host bootstrap (signed like the
// webhook, through the same tenant cache), context bootstrap, teardown, resolution and the
// reaper.
func (d *Deps) SessionService() *session.Service {
	return &session.Service{Store: d.SessionStore, Tenants: d.Tenants, Audit: d.Audit, Auth: d.HostAuth(),
		Now: d.now, TokenTTL: d.Config.EmbeddedTokenTTL, ContextTTL: d.Config.EmbeddedContextTTL, Log: d.Log}
}

// ReapSessionsLambda is the scheduled session reaper's entry point.
func (d *Deps) ReapSessionsLambda(ctx context.Context, _ events.EventBridgeEvent) (session.ReapReport, error) {
	return d.SessionService().Reap(ctx)
}
