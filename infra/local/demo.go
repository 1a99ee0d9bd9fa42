package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/webhook"
)

// demo walks the whole sync-error flow against the running local stack, printing each
// step: the host ERP record before, a signed sync error, its diagnosis, the approve, and
// the record after the write-back.
func demo(ctx context.Context) error {
	st, err := readState()
	if err != nil {
		return err
	}
	base, tenantID := st["LOCAL_API_URL"], st["DEMO_TENANT"]
	root, err := emulators.FindRoot()
	if err != nil {
		return err
	}
	var tok bytes.Buffer
	if err := mintDevToken(&tok, root, devTokenOptions{role: "approver", tenant: tenantID, subject: "demo-approver", ttl: time.Hour}); err != nil {
		return err
	}
	auth := "Bearer " + strings.TrimSpace(tok.String())
	call := func(method, path string, body []byte, header map[string]string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil, fmt.Errorf("%s %s (is `make run` running?): %w", method, path, err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		return resp.StatusCode, out, err
	}
	record := "/fake/hosterp/services/rest/record/v1/salesOrder/SO-10042"
	step := func(n int, what string) { fmt.Printf("\n%d. %s\n", n, what) }

	step(1, "The host ERP's sales order before (GET "+record+"):")
	_, before, err := call("GET", record, nil, nil)
	if err != nil {
		return err
	}
	fmt.Printf("   %s\n", before)

	errorID := "ERR-DEMO-" + strings.TrimPrefix(webhook.NewMessageID(), "msg_")[:8]
	step(2, "The host ERP posts a signed sync error ("+errorID+"):")
	body := sampleBody(tenantID, errorID)
	key, err := webhook.ParseSecret(st["DEMO_WEBHOOK_SECRET"])
	if err != nil {
		return err
	}
	h := http.Header{}
	webhook.Sign(key, webhook.NewMessageID(), time.Now(), body).Set(h)
	headers := map[string]string{"Content-Type": "application/json", syncerror.HeaderTenantID: tenantID}
	for k := range h {
		headers[k] = h.Get(k)
	}
	code, out, err := call("POST", blueprint.IngestRoute.Path, body, headers)
	if err != nil {
		return err
	}
	fmt.Printf("   %d %s", code, out)
	var claimed syncerror.IngestResponse
	if code != http.StatusAccepted || json.Unmarshal(out, &claimed) != nil {
		return fmt.Errorf("ingest answered %d", code)
	}

	step(3, "The worker diagnoses it in the background; the operator queue shows the proposal:")
	detailPath := "/api/sync-error-assist/proposals/" + claimed.ID
	var d syncerror.Detail
	for deadline := time.Now().Add(30 * time.Second); ; {
		code, out, err = call("GET", detailPath, nil, map[string]string{"Authorization": auth})
		if err != nil {
			return err
		}
		if code == http.StatusOK && json.Unmarshal(out, &d) == nil && d.Diagnosis == syncerror.DiagnosisReady {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no diagnosis after 30 s (last answer %d %s)", code, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	fmt.Printf("   class %s, confidence %.2f, trace %s\n   %s\n", d.Proposal.Class, d.Proposal.Confidence, d.Proposal.TraceID, d.Proposal.Summary)
	for _, f := range d.Proposal.Fix {
		fmt.Printf("   fix: %s  %v -> %v\n", f.Path, f.Before, f.After)
	}

	step(4, "An approver approves it (POST "+detailPath+"/approve):")
	code, out, err = call("POST", detailPath+"/approve", []byte(`{"note":"approved by make demo"}`),
		map[string]string{"Authorization": auth, "Content-Type": "application/json"})
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("approve answered %d %s", code, out)
	}
	_ = json.Unmarshal(out, &d)
	fmt.Printf("   %d, status %s\n", code, d.Status)

	step(5, "The fix was written back through the governed path; the record after:")
	_, after, err := call("GET", record, nil, nil)
	if err != nil {
		return err
	}
	fmt.Printf("   %s\n", after)
	fmt.Printf("\nThe audit trail: curl -s '%s/api/audit?actionType=syncerror' -H 'Authorization: %s'\n", base, auth)
	return nil
}
