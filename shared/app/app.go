// Package app is the one wiring function of the service: it reads the environment, builds
// the AWS clients, stores and domain services once, and hands each Lambda (and the local
// stack, which mounts them all) the same handlers.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Config is what the environment tells a function.
type Config struct {
	Stage            string
	ProcessedTable   string
	TenantsTable     string
	DiagnosisQueue   string
	WebhookTolerance time.Duration
	StuckAfter       time.Duration
	DiagnosisStale   time.Duration
	// TenantCacheTTL is how long the ingest may trust a cached tenant configuration; zero
	// reads the store on every request.
	TenantCacheTTL time.Duration
	LogLevel       slog.Level
}

// ConfigFromEnv reads Config. Table names default to the stage's physical names, so a
// developer needs to set only STAGE; in AWS the CDK stack sets every variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{Stage: getenv("STAGE")}
	if c.Stage == "" {
		c.Stage = "dev"
	}
	name := func(t blueprint.Table) string {
		if v := getenv(t.EnvVar); v != "" {
			return v
		}
		return blueprint.PhysicalName(c.Stage, t.Name)
	}
	c.ProcessedTable = name(blueprint.Processed)
	c.TenantsTable = name(blueprint.Tenants)
	c.DiagnosisQueue = getenv(blueprint.Diagnosis.EnvVar)
	c.TenantCacheTTL = 10 * time.Second
	if v := getenv("TENANT_CACHE_TTL"); v != "" {
		ttl, err := time.ParseDuration(v)
		if err != nil || ttl < 0 {
			return Config{}, fmt.Errorf("TENANT_CACHE_TTL=%q: want a duration such as 10s, or 0 to disable", v)
		}
		c.TenantCacheTTL = ttl
	}
	var err error
	for _, d := range []struct {
		env string
		dst *time.Duration
		def time.Duration
	}{
		{"WEBHOOK_TOLERANCE", &c.WebhookTolerance, webhook.DefaultTolerance},
		{"RECONCILE_STUCK_AFTER", &c.StuckAfter, syncerror.DefaultStuckAfter},
		{"DIAGNOSIS_STALE_AFTER", &c.DiagnosisStale, syncerror.DefaultDiagnosisStale},
	} {
		*d.dst = d.def
		if v := getenv(d.env); v != "" {
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst <= 0 {
				return Config{}, fmt.Errorf("%s=%q: want a positive duration such as 5m", d.env, v)
			}
		}
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return Config{}, fmt.Errorf("LOG_LEVEL=%q: want debug, info, warn or error", v)
		}
	}
	return c, nil
}

// Deps are the built dependencies. Build them once per process (a Lambda's cold start).
type Deps struct {
	Config  Config
	Log     *slog.Logger
	Tenants tenant.Store
	// IngestTenants is what the ingest reads tenants through: a tenant.Cache over Tenants,
	// or Tenants itself when the cache is off.
	IngestTenants tenant.Reader
	Claims        syncerror.ClaimStore
	Queue         syncerror.Queue
	Now           func() time.Time
}

// Load builds Deps from the environment with the AWS SDK's default configuration, which
// honours AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SERVICE> (LocalStack, the emulators).
func Load(ctx context.Context) (*Deps, error) {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	db := dynamodb.NewFromConfig(awsCfg)
	d := &Deps{
		Config:  cfg,
		Log:     NewLogger(cfg.LogLevel),
		Tenants: dynamostore.NewTenants(db, cfg.TenantsTable),
		Claims:  dynamostore.NewClaims(db, cfg.ProcessedTable),
		Now:     time.Now,
	}
	d.IngestTenants = d.Tenants
	if cfg.TenantCacheTTL > 0 {
		d.IngestTenants = &tenant.Cache{Store: d.Tenants, TTL: cfg.TenantCacheTTL}
	}
	if cfg.DiagnosisQueue != "" {
		d.Queue = sqsqueue.NewSender(sqs.NewFromConfig(awsCfg), cfg.DiagnosisQueue)
	} else {
		d.Queue = missingQueue{}
	}
	return d, nil
}

// NewLogger returns the JSON logger every function uses.
func NewLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// missingQueue fails every send with a clear error; a function that sends without
// DIAGNOSIS_QUEUE_URL still claims (the reconcile re-enqueues later) and says why.
type missingQueue struct{}

func (missingQueue) Send(context.Context, syncerror.Message) error {
	return fmt.Errorf("%s is not set", blueprint.Diagnosis.EnvVar)
}

// Ingest returns the webhook handler.
func (d *Deps) Ingest() *syncerror.Ingest {
	return &syncerror.Ingest{
		Tenants:  d.IngestTenants,
		Claims:   d.Claims,
		Queue:    d.Queue,
		Verifier: webhook.Verifier{Tolerance: d.Config.WebhookTolerance, Now: d.Now},
		Now:      d.Now,
	}
}

// Worker returns the diagnosis worker.
func (d *Deps) Worker() *syncerror.Worker {
	return &syncerror.Worker{Claims: d.Claims, Log: d.Log, Now: d.Now, StaleAfter: d.Config.DiagnosisStale}
}

// Reconcile returns the reconcile.
func (d *Deps) Reconcile() *syncerror.Reconcile {
	return &syncerror.Reconcile{Tenants: d.Tenants, Claims: d.Claims, Queue: d.Queue, Log: d.Log, Now: d.Now,
		StuckAfter: d.Config.StuckAfter}
}

// RouteHandler returns the plain HTTP handler of an HTTP function, by blueprint name.
func (d *Deps) RouteHandler(name string) (http.Handler, error) {
	switch name {
	case blueprint.FuncIngest:
		return d.Ingest(), nil
	}
	return nil, fmt.Errorf("no HTTP handler for function %q", name)
}

// Mux mounts the routes of fns on one ServeMux: one function's route for its Lambda, every
// HTTP function for the local stack. Unknown paths answer problem+json 404.
func (d *Deps) Mux(fns []blueprint.Function) (http.Handler, error) {
	mux := http.NewServeMux()
	for _, f := range fns {
		if f.Route == nil {
			continue
		}
		h, err := d.RouteHandler(f.Name)
		if err != nil {
			return nil, err
		}
		mux.Handle(f.Route.Pattern(), h)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "route_not_found",
			"No route "+r.Method+" "+strings.TrimSpace(r.URL.Path)+"."))
	})
	return httpapi.Instrument(d.Log, mux), nil
}

// FunctionNamed returns the blueprint function called name.
func FunctionNamed(name string) (blueprint.Function, error) {
	for _, f := range blueprint.Functions {
		if f.Name == name {
			return f, nil
		}
	}
	return blueprint.Function{}, fmt.Errorf("no function %q in the blueprint", name)
}
