package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/infra/compose"
	"github.com/syncassist/syncassist/infra/emulators"
	"github.com/syncassist/syncassist/shared/apidoc/apicheck"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/console"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/identity/devissuer"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/settings"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/tenant"
)

const demoTenant = "demo"

// localStateDir is where the stack keeps its dev-issuer key and local.env. LOCAL_STATE_DIR
// lets a second stack (the browser tests) run beside a developer's without sharing them.
func localStateDir(root string) string {
	return envOr("LOCAL_STATE_DIR", filepath.Join(root, ".local"))
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func serve(ctx context.Context) error {
	root, err := emulators.FindRoot()
	if err != nil {
		return err
	}
	stateDir := localStateDir(root)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	// The port is bound first and held: PORT=0 lets the system pick one (the browser tests
	// start a stack per worker so), and the address is written to the state dir at once. A
	// free port picked by the caller and bound here seconds later, once the emulators run,
	// could be taken in between: a CI run saw another test's server answer there, then go.
	ln, err := net.Listen("tcp", "127.0.0.1:"+envOr("PORT", "3000"))
	if err != nil {
		return fmt.Errorf("listen (set PORT to use another port, 0 for any free one): %w", err)
	}
	srv := serveEarly(ln, slog.Default())
	defer srv.stop()
	baseURL := "http://" + ln.Addr().String()
	// Renamed into place, so a reader never sees it half written; removed when the stack
	// stops, so a reader never finds the address of a stack gone.
	urlFile := filepath.Join(stateDir, "base-url")
	if err := os.WriteFile(urlFile+".tmp", []byte(baseURL), 0o600); err != nil {
		return err
	}
	if err := os.Rename(urlFile+".tmp", urlFile); err != nil {
		return err
	}
	defer os.Remove(urlFile)
	if os.Getenv("STAGE") == "" {
		os.Setenv("STAGE", "local")
	}
	if os.Getenv("RETRY_SCHEDULE") == "" {
		os.Setenv("RETRY_SCHEDULE", localRetrySchedule)
	}
	stage := os.Getenv("STAGE")
	// The demo tenant's connectors are the fakes on this server: a local stage may point a
	// connector at loopback over http, which no deployed stage may.
	os.Setenv(settings.EnvLocalConnectors, "true")

	// Emulators unless the SDK's standard variables point elsewhere (LocalStack, AWS).
	if os.Getenv("AWS_ENDPOINT_URL") == "" && os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		logFile, err := os.Create(filepath.Join(stateDir, "emulators.log"))
		if err != nil {
			return err
		}
		defer logFile.Close()
		emu, err := emulators.Start(ctx, emulators.Options{Root: root, Log: logFile})
		if err != nil {
			return err
		}
		defer emu.Stop()
		for _, kv := range emu.Env() {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	}

	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return err
	}
	if err := exportCredentials(ctx, awsCfg); err != nil {
		return err
	}
	// A short visibility timeout locally, so a failed diagnosis comes back in seconds.
	vis, err := strconv.Atoi(envOr("LOCAL_VISIBILITY_TIMEOUT_SECONDS", "30"))
	if err != nil || vis <= 0 {
		return fmt.Errorf("LOCAL_VISIBILITY_TIMEOUT_SECONDS: want a positive number of seconds")
	}
	prov, err := compose.Provision(ctx, awsCfg, stage, sqsqueue.CreateOptions{VisibilityTimeoutSeconds: vis})
	if err != nil {
		return err
	}
	for k, v := range prov.Env() {
		os.Setenv(k, v)
	}
	queues, sq := prov.Queues, sqs.NewFromConfig(awsCfg)

	// The development JWT issuer: its key lives in .local so tokens from `make token`
	// survive restarts; the API verifies them through its JWKS like any real issuer.
	issuer, err := devissuer.Load(filepath.Join(stateDir, "dev-issuer.pem"))
	if err != nil {
		return err
	}
	issuer.URL = baseURL + "/dev-issuer"
	if os.Getenv("JWT_ISSUER") == "" {
		os.Setenv("JWT_ISSUER", issuer.URL)
		os.Setenv("JWT_AUDIENCE", issuer.Audience)
		os.Setenv("JWT_JWKS_URL", issuer.URL+devissuer.JWKSPath)
	}

	// The console signs in against the dev issuer with the same code flow it uses against
	// a real provider; only the issuer's page differs.
	if os.Getenv(console.EnvIssuer) == "" {
		os.Setenv(console.EnvIssuer, issuer.URL)
		os.Setenv(console.EnvClientID, "syncassist-console")
		os.Setenv(console.EnvDevSignIn, "true")
	}

	// Tenant secrets are sealed locally too, with a key kept in .local, so make run
	// stores them as a deployed stack does (there, under the KMS key).
	if os.Getenv("LOCAL_SEALING_KEY") == "" {
		key, err := localSealingKey(filepath.Join(stateDir, "sealing.key"))
		if err != nil {
			return err
		}
		os.Setenv("LOCAL_SEALING_KEY", key)
	}

	deps, err := compose.Load(ctx)
	if err != nil {
		return err
	}
	slog.SetDefault(deps.Log) // redacted, as in a function (platform.Start)
	fixed := map[tenant.Purpose]string{}
	for p, env := range secretEnv {
		fixed[p] = os.Getenv(env)
	}
	secrets, err := seedDemoTenant(ctx, tenant.Admin{Store: deps.Tenants, Keeper: deps.Keeper}, fixed)
	if err != nil {
		return err
	}
	secret := secrets[tenant.PurposeIngest]

	findings, err := checkAPI(deps)
	if err != nil {
		return err
	}
	api, err := deps.Mux(blueprint.HTTPFunctions())
	if err != nil {
		return err
	}
	fakes := newFakeSystems(time.Now())
	// Demo finance approvals, and the host ERP records they update (Create is idempotent).
	for _, a := range finance.DemoApprovals(demoTenant, time.Now()) {
		if _, err := deps.Finance.Store.Create(ctx, a); err != nil {
			return fmt.Errorf("seed finance approval %s: %w", a.ID, err)
		}
		if a.ERPID != "" {
			fakes[connector.SystemHostERP].Seed(a.Entity, a.ERPID, map[string]any{
				"approvalStatus": "pendingApproval", "amount": a.Amount, "currency": a.Currency, "vendor": a.Vendor})
		}
	}
	if err := fakes.configure(ctx, tenant.Admin{Store: deps.Tenants}, baseURL); err != nil {
		return err
	}
	if err := seedDemoFlows(ctx, deps, fakes); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/dev-issuer/", http.StripPrefix("/dev-issuer", issuer.Handler()))
	fakes.mount(mux)
	// Local only: run the reconcile now instead of waiting for the timer (make reconcile).
	mux.HandleFunc("POST /local/reconcile", func(w http.ResponseWriter, r *http.Request) {
		rep, err := deps.RunBackstops(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rep)
	})
	// Local only: 200 once local.env is written and the demo queue seeded. Tests and
	// scripts wait for this, not for the first answer: a token minted before local.env
	// exists carries the default issuer and is refused (a busy machine showed it).
	var ready atomic.Bool
	mux.HandleFunc("GET /local/ready", func(w http.ResponseWriter, r *http.Request) {
		if !ready.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	if findings != nil {
		mux.Handle("GET /local/api-findings", findings)
	}
	mux.Handle("/", api)
	srv.set(mux)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		q := queues[blueprint.Diagnosis.Name]
		fn, _ := blueprint.FunctionNamed(blueprint.FuncDiagnose)
		(&sqsqueue.Poller{Client: sq, QueueURL: q.URL, QueueARN: q.ARN, Handler: deps.Worker().HandleBatch,
			BatchSize: int32(fn.BatchSize), Visibility: time.Duration(vis) * time.Second, Log: deps.Log}).Run(ctx)
	}()
	every, err := time.ParseDuration(envOr("RECONCILE_INTERVAL", blueprint.ReconcileInterval.String()))
	if err != nil || every <= 0 {
		return fmt.Errorf("RECONCILE_INTERVAL: want a positive duration such as 1m")
	}
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := deps.RunBackstops(ctx); err != nil {
					deps.Log.Error("reconcile", "error", err)
				}
			}
		}
	}()

	seedDemoQueue(ctx, deps, baseURL, secret)

	if err := writeState(stateDir, baseURL, secrets); err != nil {
		return err
	}
	ready.Store(true)
	printBanner(baseURL, secrets, every, stateDir)

	<-ctx.Done()
	fmt.Println("\nstopping: HTTP server, poller, reconcile timer, emulators")
	srv.stop()
	wg.Wait()
	return nil
}

// secretEnv names, per purpose, the variable that fixes the demo tenant's secret and the
// local.env entry it is written to: DEMO_FLOW_SECRET_<SYSTEM> for a flow source's.
var secretEnv = func() map[tenant.Purpose]string {
	m := map[tenant.Purpose]string{
		tenant.PurposeIngest:   "DEMO_WEBHOOK_SECRET",
		tenant.PurposeFinance:  "DEMO_FINANCE_SECRET",
		tenant.PurposeEmbedded: "DEMO_EMBEDDED_SECRET",
	}
	for _, sys := range tenant.FlowSources {
		m[tenant.FlowPurpose(sys)] = "DEMO_FLOW_SECRET_" + strings.ToUpper(sys)
	}
	return m
}()

// seedDemoTenant makes the demo tenant exist with both flags on. Each purpose's secret is
// the one fixed (DEMO_*_SECRET) when set, else the stored one, else a fresh one.
func seedDemoTenant(ctx context.Context, admin tenant.Admin, fixed map[tenant.Purpose]string) (map[tenant.Purpose]string, error) {
	secrets, err := admin.Create(ctx, demoTenant, fixed)
	switch {
	case errors.Is(err, tenant.ErrExists):
		cfg, gerr := admin.Show(ctx, demoTenant)
		if gerr != nil {
			return nil, gerr
		}
		secrets = map[tenant.Purpose]string{}
		for _, p := range tenant.Purposes {
			for _, s := range *cfg.Secrets(p) {
				if s.RetireAt.IsZero() {
					secrets[p] = s.Value
				}
			}
			// A fixed secret that differs, or a purpose stored before it had secrets.
			if (fixed[p] != "" && fixed[p] != secrets[p]) || secrets[p] == "" {
				if secrets[p], err = admin.RotateSecret(ctx, demoTenant, p, fixed[p], 0); err != nil {
					return nil, err
				}
			}
		}
	case err != nil:
		return nil, err
	}
	for _, k := range tenant.FeatureFlags {
		if err := admin.Set(ctx, demoTenant, k, "true"); err != nil {
			return nil, err
		}
	}
	if err := admin.Set(ctx, demoTenant, tenant.KeyEmbeddedAllowedRoles, "operator,approver"); err != nil {
		return nil, err
	}
	return secrets, nil
}

// localSealingKey reads the local stack's sealing key from path, making one the first time.
func localSealingKey(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	key := sealed.NewLocalKey()
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("local sealing key: %w", err)
	}
	return key, nil
}

func writeState(dir, baseURL string, secrets map[tenant.Purpose]string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "LOCAL_API_URL=%s\nDEMO_TENANT=%s\nLOCAL_SEALING_KEY=%s\n", baseURL, demoTenant, os.Getenv("LOCAL_SEALING_KEY"))
	for _, p := range tenant.Purposes {
		fmt.Fprintf(&b, "%s=%s\n", secretEnv[p], secrets[p])
	}
	for _, k := range []string{"STAGE", "JWT_ISSUER", "JWT_AUDIENCE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_SQS", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", settings.EnvLocalConnectors, blueprint.Diagnosis.EnvVar} {
		if v := os.Getenv(k); v != "" {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
		}
	}
	return os.WriteFile(filepath.Join(dir, "local.env"), []byte(b.String()), 0o600)
}

func printBanner(baseURL string, secrets map[tenant.Purpose]string, every time.Duration, stateDir string) {
	secret := secrets[tenant.PurposeIngest]
	body := sampleBody(demoTenant, "ERR-"+time.Now().UTC().Format("20060102-150405"))
	banner := fmt.Sprintf(`
Sync-error triage is running locally.

  console          %s/  (sign in as operator, approver or admin)
  API              %s  (OpenAPI document: /api/openapi.json)
  DynamoDB         %s
  SQS              %s
  demo tenant      %s (both flags 'true')
  webhook secret   %s  (sync errors)
  finance secret   %s  (finance approval create)
  embedded secret  %s  (embedded host bootstrap)
%s  backstops        every %s (the reconcile, the lease sweep, the flow redrive and the flow poll)
  state            %s/local.env (used by make sample / make tenantctl)

Post a signed sample sync error (this signature is valid for 5 minutes; `+"`make sample`"+` signs a fresh one):

%s

Expect 202 {"id":"se_...","status":"pending","duplicate":false}; post it again for "duplicate":true.

The whole flow, step by step, in another terminal:
  make demo                              sync error -> diagnosis -> approve -> write-back into the fake host ERP
  make demo-flows                        flows across the fake systems: ERP -> CRM and shipping, an ownership
                                         rejection, a loop broken, a failed write triaged, a change only a poll sees
  make sample                            post another signed sample
  TOKEN=$(make -s token ROLE=approver)   a development JWT (ROLE=operator|approver|admin)
  curl -s API_URL/api/sync-error-assist/proposals -H "Authorization: Bearer $TOKEN"
  curl -s API_URL/fake/hosterp/services/rest/record/v1/salesOrder/SO-10042     the fake host ERP's record
  make embedded                          open an embedded session and a module context, as a host ERP would
  make reconcile                         run the backstops now (the reconcile finds ERR-MISSED-0001, whose webhook never came)

Ctrl-C stops everything.
`, baseURL, baseURL, cmp.Or(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"), os.Getenv("AWS_ENDPOINT_URL"), "AWS"), cmp.Or(os.Getenv("AWS_ENDPOINT_URL_SQS"), os.Getenv("AWS_ENDPOINT_URL"), "AWS"), demoTenant, secret, secrets[tenant.PurposeFinance], secrets[tenant.PurposeEmbedded], flowSecretLines(secrets), every, stateDir,
		curlCommand(baseURL+blueprint.IngestRoute.Path, demoTenant, secret, body, time.Now()))
	fmt.Print(strings.ReplaceAll(banner, "API_URL", baseURL))
}

// flowSecretLines lists each flow source's secret for the banner.
func flowSecretLines(secrets map[tenant.Purpose]string) string {
	var b strings.Builder
	for _, sys := range tenant.FlowSources {
		fmt.Fprintf(&b, "  %-16s %s  (%s's flow change events)\n", "flow "+sys, secrets[tenant.FlowPurpose(sys)], sys)
	}
	return b.String()
}

// demoOrders are the fake host ERP's extra sales orders the demo queue is about.
var demoOrders = []string{"SO-10043", "SO-10044"}

// seedDemoQueue gives a newcomer's console something to work: the host ERP posts a sync
// error per demo order through the real signed webhook, and the reconcile runs once,
// finding ERR-MISSED-0001 whose webhook never came. Both are idempotent across restarts
// (a redelivery is a duplicate); a failure is logged, never fatal.
func seedDemoQueue(ctx context.Context, deps *compose.Stack, baseURL, secret string) {
	for _, id := range demoOrders {
		body := sampleBodyFor(demoTenant, "ERR-DEMO-"+strings.TrimPrefix(id, "SO-"), id)
		if status, out, err := postSigned(ctx, baseURL+blueprint.IngestRoute.Path, demoTenant, secret, body); err != nil || status[0] != '2' {
			deps.Log.Warn("demo sync error not posted", "order", id, "status", status, "body", string(out), "error", err)
		}
	}
	if _, err := deps.RunBackstops(ctx); err != nil {
		deps.Log.Warn("startup reconcile", "error", err)
	}
}

// exportCredentials puts the region and credentials the SDK's default chain found (a
// profile, say, for LocalStack) into the environment, where the functions read them as
// they do in Lambda (platform.AWSConfigFromEnv).
func exportCredentials(ctx context.Context, cfg aws.Config) error {
	if os.Getenv("AWS_REGION") == "" && cfg.Region != "" {
		os.Setenv("AWS_REGION", cfg.Region)
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") != "" || cfg.Credentials == nil {
		return nil
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("AWS credentials: %w", err)
	}
	os.Setenv("AWS_ACCESS_KEY_ID", creds.AccessKeyID)
	os.Setenv("AWS_SECRET_ACCESS_KEY", creds.SecretAccessKey)
	if creds.SessionToken != "" {
		os.Setenv("AWS_SESSION_TOKEN", creds.SessionToken)
	}
	return nil
}

// checkAPI puts the API behind the OpenAPI document when SYNCASSIST_API_CHECK is set (the
// browser tests set it): every request and answer is validated, and the findings so far are
// served at GET /local/api-findings for the run's teardown to fail on. Nil when unset.
func checkAPI(deps *compose.Stack) (http.Handler, error) {
	if os.Getenv(apicheck.EnvCheck) == "" {
		return nil, nil
	}
	c, err := apicheck.New()
	if err != nil {
		return nil, err
	}
	deps.APICheck = c
	return c.Handler(), nil
}
