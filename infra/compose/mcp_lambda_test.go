package compose_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/identity/identitytest"
	"github.com/syncassist/syncassist/shared/sqsqueue"
)

// Through API Gateway's adapter (which splits header values on commas), an MCP request
// still negotiates: the sample tools/list event answers the four tools.
func TestMCPThroughTheLambdaAdapter(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	e.deps.Tokens = identitytest.RoleTokens{}
	var ev events.APIGatewayV2HTTPRequest
	loadEvent(t, blueprint.FuncMCP+".json", &ev)
	ev.Headers["authorization"] = "Bearer operator@demo"
	h, err := e.deps.HTTPLambda(blueprint.FuncMCP)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h(context.Background(), ev)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d err=%v body %s", resp.StatusCode, err, resp.Body)
	}
	for _, name := range []string{"service.field_mapping_suggest", "service.integration_status", "service.governance_check", "service.mcp_discover"} {
		if !strings.Contains(resp.Body, name) {
			t.Fatalf("tools/list lacks %s: %s", name, resp.Body)
		}
	}
}
