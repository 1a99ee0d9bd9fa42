package compose_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/webhook"
)

func TestEmbeddedSessionE2E(t *testing.T) {
	e := newEnv(t, sqsqueue.CreateOptions{})
	ctx := context.Background()
	cfg, _ := e.deps.Tenants.Get(ctx, "demo")
	cfg.Settings[session.SettingAllowedRoles] = "operator,approver"
	if err := e.deps.Tenants.Update(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	lam := func(name string) func(events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
		h, err := e.deps.HTTPLambda(name)
		if err != nil {
			t.Fatal(err)
		}
		return func(r events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
			out, err := h(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	body := `{"userId":"u1","hostAccountId":"h1","roles":["approver"]}`
	key, _ := webhook.ParseSecret(fixtureSecret)
	sig := webhook.Sign(key, "msg_e2e", fixtureTime, []byte(body))
	req := func(method, path, body string, hdr map[string]string) events.APIGatewayV2HTTPRequest {
		return events.APIGatewayV2HTTPRequest{RawPath: path, Headers: hdr, Body: body,
			RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}}}
	}
	out := lam(blueprint.FuncEmbeddedHostBootstrap)(req("POST", "/api/embedded/host/bootstrap", body, map[string]string{
		"content-type": "application/json", "x-tenant-id": "demo", "webhook-id": sig.ID, "webhook-timestamp": sig.Timestamp, "webhook-signature": sig.Signature}))
	if out.StatusCode != 201 {
		t.Fatalf("bootstrap %d %s", out.StatusCode, out.Body)
	}
	var issued session.Issued
	_ = json.Unmarshal([]byte(out.Body), &issued)
	out = lam(blueprint.FuncEmbeddedContextBootstrap)(req("POST", "/api/embedded/context/bootstrap", `{"module":"audit"}`, map[string]string{
		"content-type": "application/json", "authorization": "Bearer " + issued.ServiceToken}))
	if out.StatusCode != 201 {
		t.Fatalf("context %d %s", out.StatusCode, out.Body)
	}
	var opened session.OpenedContext
	_ = json.Unmarshal([]byte(out.Body), &opened)
	from := strconv.FormatInt(fixtureTime.Add(-1e12).Unix(), 10)
	_ = from
	out = lam(blueprint.FuncAuditList)(req("GET", "/api/audit", "", map[string]string{
		"authorization": "Bearer " + issued.ServiceToken, "x-embedded-context-id": opened.EmbeddedContextID}))
	t.Logf("audit-list with embedded context: %d %.300s", out.StatusCode, out.Body)
	if out.StatusCode != http.StatusOK {
		t.Fatalf("audit list %d", out.StatusCode)
	}
	out = lam(blueprint.FuncEmbeddedSessionDelete)(req("DELETE", "/api/embedded/session", "", map[string]string{"authorization": "Bearer " + issued.ServiceToken}))
	if out.StatusCode != 204 {
		t.Fatalf("teardown %d %s", out.StatusCode, out.Body)
	}
	e.deps.Now = func() time.Time { return fixtureTime.Add(24 * time.Hour) }
	rep, err := e.deps.ReapSessionsLambda(ctx, events.EventBridgeEvent{})
	t.Logf("reap %+v %v", rep, err)
	if err != nil || rep.Requests != 1 {
		t.Fatalf("reap %+v %v", rep, err)
	}
}
