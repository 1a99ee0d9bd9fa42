package platform_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
)

func signedRequest(method, path string) events.APIGatewayV2HTTPRequest {
	r := events.APIGatewayV2HTTPRequest{RawPath: path, Headers: map[string]string{}}
	r.RequestContext.HTTP.Method, r.RequestContext.HTTP.Path = method, path
	return r
}

// A function whose route verifies its caller itself (the ingest's signature) is served by
// SignedLambda without the operators' token verifier, and reaches its handler; an
// unknown path is still 404.
func TestSignedLambdaServesARouteThatVerifiesItsCaller(t *testing.T) {
	b := &platform.Base{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	reached := false
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true; w.WriteHeader(http.StatusAccepted) })
	h, err := b.SignedLambda(blueprint.FuncIngest, platform.Routes{blueprint.FuncIngest: {Handler: ok}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h(context.Background(), signedRequest("POST", blueprint.IngestRoute.Path))
	if err != nil || res.StatusCode != http.StatusAccepted || !reached {
		t.Fatalf("ingest = %d %v (handler reached %v), want 202", res.StatusCode, err, reached)
	}
	if res, _ := h(context.Background(), signedRequest("POST", "/api/elsewhere")); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path = %d, want 404", res.StatusCode)
	}
}

// SignedLambda mounts no operator authentication, so it refuses a function whose route
// needs it (operator, approver, admin) instead of serving the route unauthenticated.
func TestSignedLambdaRefusesOperatorRoutes(t *testing.T) {
	b := &platform.Base{Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, f := range blueprint.HTTPFunctions() {
		_, err := b.SignedLambda(f.Name, platform.Routes{f.Name: {Handler: ok}})
		if platform.CallerVerified(f.Route.Auth) {
			if err != nil {
				t.Errorf("%s (%q): %v", f.Name, f.Route.Auth, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "StartHTTP") {
			t.Errorf("%s (%q): SignedLambda = %v, want a refusal naming StartHTTP", f.Name, f.Route.Auth, err)
		}
	}
	if platform.CallerVerified("some-new-auth") {
		t.Error("an unknown Auth is taken as verified by its route")
	}
}

// A Base serves embedded sessions without a SessionStore set: Sessions builds the table's
// store on first use (so functions that never call it do not link it), once.
func TestSessionsBuildTheirStoreOnFirstUse(t *testing.T) {
	vars := map[string]string{"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"}
	cfg, err := platform.ConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	awsCfg, err := platform.AWSConfigFromEnv(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	b := platform.New(cfg, awsCfg, env(vars))
	first := b.Sessions().Store
	if first == nil || b.Sessions().Store != first {
		t.Fatalf("session store %v, then %v: want one store, built once", first, b.Sessions().Store)
	}
}
