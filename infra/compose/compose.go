// Package compose puts every feature in one process, built the way each feature's Lambdas
// build it: the local stack, the ingest benchmark and the end-to-end tests use it. In AWS
// no function links it; each links only its own feature.
package compose

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/apidoc"
	"github.com/syncassist/syncassist/shared/apidoc/apicheck"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/flow"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/navcounts"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
	"github.com/syncassist/syncassist/shared/platform/consolesite"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/aidiagnoser"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/ingestwire"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/queuewire"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
	"github.com/syncassist/syncassist/shared/toolcatalog"
)

// Stack is every feature on one platform.
type Stack struct {
	*platform.Base
	Queue     *syncerrorwire.Feature
	Claims    syncerror.ClaimStore
	Finance   *finance.Service
	Flows     *flow.Service
	AI        *aiclient.Client
	AIRecords aiclient.Records
	// Routes are every HTTP function's handler, the console and the OpenAPI document
	// included.
	Routes platform.Routes
	// APICheck, when set, validates every request and response through Mux against the
	// OpenAPI document (issue 36 §2): the handler tests set it, and the local server when
	// SYNCASSIST_API_CHECK is set.
	APICheck *apicheck.Checker
}

// Load builds the Stack from the environment.
func Load(ctx context.Context) (*Stack, error) {
	b, err := platform.Load(ctx)
	if err != nil {
		return nil, err
	}
	return New(ctx, b)
}

// New builds every feature on b.
func New(ctx context.Context, b *platform.Base) (*Stack, error) {
	q, err := queuewire.New(b)
	if err != nil {
		return nil, err
	}
	s := &Stack{Base: b, Queue: q, Claims: q.Claims, AIRecords: aiclient.Records{Store: b.AIRecords()}, Routes: platform.Routes{
		blueprint.FuncOpenAPI: {Handler: apidoc.Handler()},
	}}
	if s.Finance, err = finance.New(b); err != nil {
		return nil, err
	}
	if s.Flows, err = flowwire.New(b); err != nil {
		return nil, err
	}
	if s.AI, err = aiclient.New(ctx, b); err != nil {
		return nil, err
	}
	maps.Copy(s.Routes, toolcatalog.RoutesOn(b, s.AI))
	for _, build := range []platform.RoutesFunc{consolesite.Routes, platform.PlatformRoutes, guarded.Routes, ingestwire.Routes, syncerrorwire.Routes, finance.Routes, flowwire.Routes, settings.Routes, navcounts.Routes} {
		routes, err := build(ctx, b)
		if err != nil {
			return nil, err
		}
		maps.Copy(s.Routes, routes)
	}
	return s, nil
}

// Mux mounts fns' routes, as their Lambdas do; every HTTP function for the local stack,
// behind APICheck when it is set.
func (s *Stack) Mux(fns []blueprint.Function) (http.Handler, error) {
	h, err := s.Base.Mux(fns, s.Routes)
	if err != nil || s.APICheck == nil {
		return h, err
	}
	return s.APICheck.Wrap(h), nil
}

// HTTPLambda is the Lambda entry point of the HTTP function called name.
func (s *Stack) HTTPLambda(name string) (platform.HTTPHandler, error) {
	return s.Base.HTTPLambda(name, s.Routes)
}

// Worker is the diagnosis worker, built now (with the Stack's current logger).
func (s *Stack) Worker() *diagnosis.Worker { return aidiagnoser.Worker(s.Queue, s.AI) }

// ReconcileLambda is the reconcile function's entry point.
func (s *Stack) ReconcileLambda(ctx context.Context, _ events.EventBridgeEvent) (intake.Report, error) {
	return s.Queue.Reconcile().Run(ctx)
}

// ReapSessionsLambda is the session reaper's entry point.
func (s *Stack) ReapSessionsLambda(ctx context.Context, _ events.EventBridgeEvent) (session.ReapReport, error) {
	return s.Sessions().Reap(ctx)
}

// RunBackstops runs the scheduled backstops once: the sync-error reconcile, the finance
// lease sweep, the flow redrive and the flow poll. Each is idempotent and safe to run twice at once.
func (s *Stack) RunBackstops(ctx context.Context) (intake.Report, error) {
	rep, err := s.Queue.Reconcile().Run(ctx)
	if _, ferr := finance.SweepAllLeases(ctx, s.Base, s.Finance); ferr != nil {
		err = errors.Join(err, fmt.Errorf("finance lease sweep: %w", ferr))
	}
	if _, ferr := flowwire.RedriveAll(ctx, s.Base, s.Flows.Exec); ferr != nil {
		err = errors.Join(err, fmt.Errorf("flow redrive: %w", ferr))
	}
	if _, ferr := flowwire.PollAll(ctx, s.Base, s.Flows.Poller); ferr != nil {
		err = errors.Join(err, fmt.Errorf("flow poll: %w", ferr))
	}
	return rep, err
}
