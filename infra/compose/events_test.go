package compose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
)

// Every function has a sample event in events/<name>.json, and each HTTP sample reaches its
// route through the function's own entry point (its placeholder credentials are refused
// with 401, not answered 404 by a router that does not know the route; public routes
// answer 200).
func TestEveryFunctionHasARoutableSampleEvent(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	e.deps.Tokens = identitytest.RoleTokens{}
	for _, f := range blueprint.Functions {
		t.Run(f.Name, func(t *testing.T) {
			path := filepath.Join("..", "..", "events", f.Name+".json")
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("no sample event for %s: %v", f.Name, err)
			}
			if f.Route == nil || f.Name == blueprint.FuncIngest || f.Name == blueprint.FuncFlowEvent {
				return // the queue, schedule and signed samples run in their own tests
			}
			var ev events.APIGatewayV2HTTPRequest
			loadEvent(t, f.Name+".json", &ev)
			if !slices.Contains(f.Route.GatewayPaths(), strings.TrimPrefix(ev.RouteKey, f.Route.Method+" ")) {
				t.Fatalf("sample routeKey %q, want %s and one of %q", ev.RouteKey, f.Route.Method, f.Route.GatewayPaths())
			}
			h, err := e.deps.HTTPLambda(f.Name)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := h(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			var p struct{ Code string }
			_ = json.Unmarshal([]byte(resp.Body), &p)
			want := http.StatusUnauthorized // the placeholder credentials are refused
			if f.Route.Auth == blueprint.AuthPublic {
				want = http.StatusOK
			}
			if resp.StatusCode != want {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, p.Code, want)
			}
		})
	}
}

func TestSessionReaperScheduleEvent(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var ev events.EventBridgeEvent
	loadEvent(t, blueprint.FuncSessionReaper+".json", &ev)
	rep, err := e.deps.ReapSessionsLambda(context.Background(), ev)
	if err != nil || rep.Errors != 0 {
		t.Fatalf("reaper %+v err=%v", rep, err)
	}
}

func TestFinanceLeaseSweepScheduleEvent(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	var ev events.EventBridgeEvent
	loadEvent(t, blueprint.FuncFinanceLeaseSweep+".json", &ev)
	sweep, err := finance.SweepLambda(context.Background(), e.deps.Base)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sweep(context.Background(), ev)
	if err != nil || rep.TenantsFailed != 0 {
		t.Fatalf("sweep %+v err=%v", rep, err)
	}
}
