package platform

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Sessions is the embedded-session service: host bootstrap (signed like the webhook,
// through the same tenant cache), context bootstrap, teardown, resolution and the reaper.
// Embedded sessions are how an embedded caller proves who it is, so they are platform.
func (b *Base) Sessions() *session.Service {
	// Built on first use, so a function that serves no embedded route does not link it.
	store := Memo(b, sessionStoreKey{}, func() session.Store {
		return session.NewDynamoStore(b.DB, b.Config.Table(blueprint.EmbeddedSessions))
	})
	return &session.Service{Store: store, Tenants: b.TenantsFor(), Audit: b.Audit, Auth: b.HostAuth(tenant.PurposeEmbedded),
		Now: b.now, TokenTTL: b.Config.EmbeddedTokenTTL, ContextTTL: b.Config.EmbeddedContextTTL, Log: b.Log,
		ReapOrder: b.JobMemory(blueprint.EmbeddedSessions, "session reap")}
}

type sessionStoreKey struct{}

// PlatformRoutes are the routes the platform serves itself: embedded sessions, the audit
// trail and AI activity (the governance review is guarded.Routes). Build them only in a
// function that serves one of them (or the local stack); each is a small struct over Base.
func PlatformRoutes(_ context.Context, b *Base) (Routes, error) {
	s := b.Sessions()
	return Routes{
		blueprint.FuncEmbeddedHostBootstrap:    {Handler: s.HostBootstrapHandler()},
		blueprint.FuncEmbeddedContextBootstrap: {Handler: s.ContextBootstrapHandler()},
		blueprint.FuncEmbeddedSessionDelete:    {Handler: s.TeardownHandler()},
		blueprint.FuncAuditList:                {Handler: &audit.Handler{Store: b.AuditStore, Log: b.Audit, Now: b.now}},
		blueprint.FuncAITraces:                 {Handler: &audit.AIActivity{Records: b.AIRecords(), Redactor: lazyRedactor{b}, Kind: audit.KindTrace}},
		blueprint.FuncAICosts:                  {Handler: &audit.AIActivity{Records: b.AIRecords(), Redactor: lazyRedactor{b}, Kind: audit.KindCost}},
	}, nil
}

// ReapSessions is the scheduled session reaper's entry point.
func ReapSessions(_ context.Context, b *Base) (func(context.Context, events.EventBridgeEvent) (session.ReapReport, error), error) {
	return func(ctx context.Context, _ events.EventBridgeEvent) (session.ReapReport, error) {
		return b.Sessions().Reap(ctx)
	}, nil
}
