package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/webhook"
)

// embedded plays the host ERP and its sidecar against the running local stack: it opens an
// embedded session for a demo user (signed with the demo tenant's embedded secret), opens a
// context for the sync-errors module, and shows a panel call made with both.
func embedded(ctx context.Context) error {
	st, err := readState()
	if err != nil {
		return err
	}
	base, tenantID := st["LOCAL_API_URL"], st["DEMO_TENANT"]
	key, err := webhook.ParseSecret(st["DEMO_EMBEDDED_SECRET"])
	if err != nil {
		return err
	}
	post := func(path string, body []byte, header http.Header) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header = header
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, fmt.Errorf("POST %s (is `make run` running?): %w", path, err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		return resp.StatusCode, out, err
	}

	body := []byte(`{"userId":"erp-user-17","hostAccountId":"acct-0042","roles":["operator"]}`)
	h := http.Header{}
	h.Set(intake.HeaderTenantID, tenantID)
	webhook.Sign(key, webhook.NewMessageID(), time.Now(), body).Set(h)
	code, out, err := post("/api/embedded/host/bootstrap", body, h)
	if err != nil {
		return err
	}
	fmt.Printf("1. Host bootstrap (signed like the webhook): %d\n   %s\n", code, out)
	var session struct {
		SessionID, ServiceToken string
	}
	if code != http.StatusCreated || json.Unmarshal(out, &session) != nil {
		return fmt.Errorf("host bootstrap answered %d", code)
	}

	h = http.Header{}
	h.Set("Authorization", "Bearer "+session.ServiceToken)
	code, out, err = post("/api/embedded/context/bootstrap", []byte(`{"module":"sync-errors"}`), h)
	if err != nil {
		return err
	}
	fmt.Printf("2. Context bootstrap for module sync-errors: %d\n   %s\n", code, out)
	var c struct{ EmbeddedContextID string }
	if code != http.StatusCreated || json.Unmarshal(out, &c) != nil {
		return fmt.Errorf("context bootstrap answered %d", code)
	}
	fmt.Printf(`3. The panel calls the operator routes with both:
   curl -s %s/api/sync-error-assist/proposals \
     -H 'Authorization: Bearer %s' \
     -H 'X-Embedded-Context-Id: %s'
   (the service token is shown once; teardown: curl -X DELETE %s/api/embedded/session -H 'Authorization: Bearer %s')
`, base, session.ServiceToken, c.EmbeddedContextID, base, session.ServiceToken)
	return nil
}
