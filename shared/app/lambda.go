package app

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// HTTPHandler is an API Gateway HTTP API (payload v2) Lambda handler.
type HTTPHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// HTTPLambda returns the Lambda entry point of the HTTP function called name: its route on
// a mux, behind the API Gateway v2 adapter.
func (d *Deps) HTTPLambda(name string) (HTTPHandler, error) {
	f, err := FunctionNamed(name)
	if err != nil {
		return nil, err
	}
	if f.Route == nil {
		return nil, fmt.Errorf("function %q has no HTTP route", name)
	}
	h, err := d.Mux([]blueprint.Function{f})
	if err != nil {
		return nil, err
	}
	return httpadapter.NewV2(h).ProxyWithContext, nil
}

// ReconcileLambda is the scheduled reconcile's entry point.
func (d *Deps) ReconcileLambda(ctx context.Context, _ events.EventBridgeEvent) (syncerror.Report, error) {
	return d.RunReconcile(ctx)
}

// HTTPLambdaFromEnv loads the wiring from the environment and returns the entry point of
// the HTTP function called name: all an HTTP function's main needs.
func HTTPLambdaFromEnv(ctx context.Context, name string) (HTTPHandler, error) {
	d, err := Load(ctx)
	if err != nil {
		return nil, err
	}
	return d.HTTPLambda(name)
}
