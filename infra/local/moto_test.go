package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/finance"
)

// The path a LocalStack user takes: AWS_ENDPOINT_URL names one endpoint for every service,
// and the stack starts no emulator of its own. Here that endpoint is moto_server behind the
// gate infra/emulators puts in front of it (Moto.Endpoint), which passes one DynamoDB
// request at a time: moto 5.2.1 checks a write's condition and then writes without a lock,
// so two concurrent conditional puts of one item can both succeed there. On the server
// itself, make demo-flows' step 1d (two first changes of one customer at once) once had
// both runs claim the customer's cross-reference (run 149, 2026-12-02): the later link was
// refused and its run retried a minute later, past the demo's wait. DynamoDB and LocalStack
// (DynamoDB Local) make a conditional write atomic, as the gate does. The demo runs end to
// end — ingest, diagnosis, approve, write-back — then the flows story, then a finance
// approval written to the host ERP.
func TestServesTheDemoOnMotoAlone(t *testing.T) {
	moto, err := emulators.StartMoto(context.Background(), emulators.MotoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer moto.Stop()
	restoreEnv(t)
	for _, k := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "JWT_ISSUER", "STAGE"} {
		os.Unsetenv(k)
	}
	state := t.TempDir()
	for k, v := range map[string]string{"AWS_ENDPOINT_URL": moto.Endpoint, "AWS_ACCESS_KEY_ID": "local",
		"AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1", "LOCAL_STATE_DIR": state,
		"PORT": "0", "RECONCILE_INTERVAL": "1h"} {
		os.Setenv(k, v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	waitServing(t, state, served)

	if kids := childCommands(t); len(kids) != 1 || !strings.Contains(kids[0], "moto_server") {
		t.Fatalf("the stack's process runs %q; want moto_server alone (no dynalite, no fauxqs)", kids)
	}
	if err := demo(ctx); err != nil {
		t.Fatalf("make demo: %v", err)
	}
	api, err := newLocalAPI(ctx, "approver")
	if err != nil {
		t.Fatal(err)
	}
	if so, err := api.fakeRecord("/fake/hosterp" + netsuiteRecordPath + "salesOrder/SO-10042"); err != nil || so["shipcountry"] != "DE" {
		t.Fatalf("the sales order after the demo: %v %v; want shipcountry DE written back", so, err)
	}
	if err := flowsDemo(ctx); err != nil {
		t.Fatalf("make demo-flows: %v", err)
	}
	approveFinance(t, api)
}

// approveFinance approves the first seeded finance approval and reads the ERP record it
// updated.
func approveFinance(t *testing.T, api *localAPI) {
	t.Helper()
	a := finance.DemoApprovals(demoTenant, time.Now())[0]
	// The demo row is above the tenant's confirmation amount, as the console would say.
	code, out, err := api.do("POST", "/api/finance-ops/approvals/"+a.ID+"/approve", []byte(`{"confirm": true}`), nil)
	if err != nil || code != http.StatusOK {
		t.Fatalf("finance approve: %d %s %v", code, out, err)
	}
	var row finance.Approval
	if err := json.Unmarshal(out, &row); err != nil || row.Status != finance.StatusAccepted {
		t.Fatalf("finance approve answered %s (%v)", out, err)
	}
	rec, err := api.fakeRecord("/fake/hosterp" + netsuiteRecordPath + a.Entity + "/" + a.ERPID)
	if err != nil || rec["approvalStatus"] != "approved" {
		t.Fatalf("the host ERP's %s %s after the approve: %v %v", a.Entity, a.ERPID, rec, err)
	}
}

// restoreEnv puts the environment back as it was after the test: serve sets variables for
// the functions it wires, which other tests of this package must not see.
func restoreEnv(t *testing.T) {
	saved := os.Environ()
	t.Cleanup(func() {
		os.Clearenv()
		for _, kv := range saved {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	})
}

// waitServing returns once the stack in state (PORT=0: it writes the address it bound to
// state/base-url) answers ready, having written its state file (the last step before it
// serves), or fails when serve ends first.
func waitServing(t *testing.T, state string, served <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		select {
		case err := <-served:
			t.Fatalf("serve ended before serving: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
		base, err := os.ReadFile(filepath.Join(state, "base-url"))
		var resp *http.Response
		if err == nil {
			resp, err = http.Get(string(base) + "/local/ready")
		}
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusNoContent {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stack did not become ready: %v", err)
		}
	}
	// Ready promises what `make token` and the scripts read: a token minted before
	// local.env is written carries the wrong issuer.
	if _, err := os.Stat(filepath.Join(state, "local.env")); err != nil {
		t.Fatalf("ready before its state was written: %v", err)
	}
}

// childCommands lists the command lines of this process's children.
func childCommands(t *testing.T) []string {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(tasks) == 0 {
		t.Skipf("no /proc children lists here (%v)", err)
	}
	var out []string
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			out = append(out, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
		}
	}
	return out
}
