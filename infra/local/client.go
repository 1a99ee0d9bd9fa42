package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// localAPI calls the running local stack as the demo tenant: with a development token of
// one role, or signed with one of the tenant's secrets like the host ERP or a source system.
type localAPI struct {
	ctx     context.Context
	base    string
	tenant  string
	auth    string
	secrets map[tenant.Purpose]string
}

// newLocalAPI reads the running stack's state and mints a token of role.
func newLocalAPI(ctx context.Context, role string) (*localAPI, error) {
	st, err := readState()
	if err != nil {
		return nil, err
	}
	root, err := emulators.FindRoot()
	if err != nil {
		return nil, err
	}
	var tok bytes.Buffer
	if err := mintDevToken(&tok, root, devTokenOptions{role: role, tenant: st["DEMO_TENANT"], subject: "demo-" + role, ttl: time.Hour}); err != nil {
		return nil, err
	}
	secrets := map[tenant.Purpose]string{}
	for p, env := range secretEnv {
		secrets[p] = st[env]
	}
	return &localAPI{ctx: ctx, base: st["LOCAL_API_URL"], tenant: st["DEMO_TENANT"],
		auth: "Bearer " + strings.TrimSpace(tok.String()), secrets: secrets}, nil
}

// do sends one request; a nil header sends the token.
func (a *localAPI) do(method, path string, body []byte, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(a.ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if header == nil {
		header = http.Header{"Authorization": {a.auth}}
	}
	req.Header = header
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s (is `make run` running?): %w", method, path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// signed posts body signed with the tenant's secret of purpose p, under a webhook-id of
// its own.
func (a *localAPI) signed(p tenant.Purpose, path string, body []byte) (int, []byte, error) {
	return a.signedAs(p, path, webhook.NewMessageID(), body)
}

// flowEvent posts body, the change event eventID of system, as a relay following
// docs/flow-sources.md does: under the webhook-id derived from the event
// (flow.EventMessageID), which the service records no claim of.
func (a *localAPI) flowEvent(system connector.System, eventID string, body []byte) (int, []byte, error) {
	return a.signedAs(tenant.FlowPurpose(string(system)), "/api/flows/events/"+string(system), flow.EventMessageID(system, eventID), body)
}

func (a *localAPI) signedAs(p tenant.Purpose, path, msgID string, body []byte) (int, []byte, error) {
	key, err := webhook.ParseSecret(a.secrets[p])
	if err != nil {
		return 0, nil, fmt.Errorf("the %s secret (%s in .local/local.env; restart `make run` if it is missing): %w", p, secretEnv[p], err)
	}
	h := http.Header{}
	webhook.Sign(key, msgID, time.Now(), body).Set(h)
	h.Set(intake.HeaderTenantID, a.tenant)
	return a.do("POST", path, body, h)
}
