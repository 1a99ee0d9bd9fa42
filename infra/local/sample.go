package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/webhook"
)

// sampleBody is a realistic sync error from the host ERP: a sales order whose ship country
// the target system rejects.
func sampleBody(tenantID, errorID string) []byte { return sampleBodyFor(tenantID, errorID, "SO-10042") }

// sampleBodyFor is the sample sync error about the sales order recordID.
func sampleBodyFor(tenantID, errorID, recordID string) []byte {
	b, _ := json.Marshal(map[string]any{
		"tenantId":       tenantID,
		"errorId":        errorID,
		"recordType":     "salesOrder",
		"recordId":       recordID,
		"errorCode":      "INVALID_FIELD_VALUE",
		"message":        "Invalid value for field shipcountry: 'Deutschland' is not a valid ISO 3166 country code",
		"occurredAt":     time.Now().UTC().Format(time.RFC3339),
		"integration":    "webshop-orders",
		"externalSystem": "webshop",
		"direction":      "inbound",
		"payload":        map[string]any{"shipcountry": "Deutschland", "shipzip": "10115", "total": 129.5, "currency": "EUR"},
	})
	return b
}

// curlCommand prints a ready-to-paste signed request.
func curlCommand(url, tenantID, secret string, body []byte, now time.Time) string {
	key, err := webhook.ParseSecret(secret)
	if err != nil {
		return "# cannot sign: " + err.Error()
	}
	h := webhook.Sign(key, webhook.NewMessageID(), now, body)
	return fmt.Sprintf("curl -i -X POST %s \\\n  -H 'Content-Type: application/json' \\\n  -H '%s: %s' \\\n  -H 'webhook-id: %s' \\\n  -H 'webhook-timestamp: %s' \\\n  -H 'webhook-signature: %s' \\\n  --data-binary %s",
		url, intake.HeaderTenantID, tenantID, h.ID, h.Timestamp, h.Signature, shellQuote(string(body)))
}

// shellQuote wraps s in single quotes for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func readState() (map[string]string, error) {
	root, err := emulators.FindRoot()
	if err != nil {
		return nil, err
	}
	st, err := readDevEnv(filepath.Join(localStateDir(root), "local.env"))
	if err == nil && st["LOCAL_API_URL"] == "" {
		err = errors.New("no running local stack found: start it with `make run`")
	}
	return st, err
}

// sample signs and posts one sample sync error to the running local stack.
func sample(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	errorID := fs.String("error-id", "", "the host's errorId (default: a fresh one; repeat one to see a duplicate)")
	printOnly := fs.Bool("print", false, "print the signed curl instead of sending")
	if err := fs.Parse(args); err != nil {
		return err
	}
	st, err := readState()
	if err != nil {
		return err
	}
	if *errorID == "" {
		*errorID = "ERR-" + strings.TrimPrefix(webhook.NewMessageID(), "msg_")
	}
	tenantID, secret, base := st["DEMO_TENANT"], st["DEMO_WEBHOOK_SECRET"], st["LOCAL_API_URL"]
	body := sampleBody(tenantID, *errorID)
	url := base + blueprint.IngestRoute.Path
	if *printOnly {
		fmt.Println(curlCommand(url, tenantID, secret, body, time.Now()))
		return nil
	}
	status, out, err := postSigned(ctx, url, tenantID, secret, body)
	if err != nil {
		return fmt.Errorf("post to the local stack at %s (is `make run` running?): %w", base, err)
	}
	fmt.Printf("POST %s errorId=%s\n%s\n%s", url, *errorID, status, out)
	return nil
}

// postSigned posts body to url signed with the tenant's secret, as the host ERP does.
func postSigned(ctx context.Context, url, tenantID, secret string, body []byte) (string, []byte, error) {
	key, err := webhook.ParseSecret(secret)
	if err != nil {
		return "", nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(intake.HeaderTenantID, tenantID)
	webhook.Sign(key, webhook.NewMessageID(), time.Now(), body).Set(req.Header)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.Status, out, nil
}
