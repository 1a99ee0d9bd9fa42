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

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/session"
	"github.com/syncassist/syncassist/shared/sqsqueue"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Config is what the environment tells a function.
type Config struct {
	Stage           string
	ProcessedTable  string
	TenantsTable    string
	AuditTable      string
	AIRecordsTable  string
	SessionsTable   string
	GovernanceTable string
	FinanceTable    string
	// LoopWindow is how far back the guard looks for a reciprocal write.
	LoopWindow time.Duration
	// ConnectorTimeout bounds one attempt of a connector call.
	ConnectorTimeout time.Duration
	DiagnosisQueue   string
	WebhookTolerance time.Duration
	StuckAfter       time.Duration
	DiagnosisStale   time.Duration
	// TenantCacheTTL is how long the ingest may trust a cached tenant configuration; zero
	// reads the store on every request.
	TenantCacheTTL time.Duration
	// EmbeddedTokenTTL and EmbeddedContextTTL are the lifetimes of embedded service tokens
	// and module contexts.
	EmbeddedTokenTTL, EmbeddedContextTTL time.Duration
	LogLevel                             slog.Level
	// JWT configures operator token verification; an empty Issuer leaves authenticated
	// routes answering 503 identity_unavailable.
	JWT identity.JWTConfig
	// CORSOrigins may call the API from a browser besides its own origin (the local
	// stack; in AWS the HTTP API answers CORS itself).
	CORSOrigins []string
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
	c.AuditTable = name(blueprint.Audit)
	c.AIRecordsTable = name(blueprint.AIRecords)
	c.SessionsTable = name(blueprint.EmbeddedSessions)
	c.GovernanceTable = name(blueprint.Governance)
	c.FinanceTable = name(blueprint.FinanceApprovals)
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
		{"EMBEDDED_TOKEN_TTL", &c.EmbeddedTokenTTL, session.DefaultTokenTTL},
		{"LOOP_WINDOW", &c.LoopWindow, governance.DefaultLoopWindow},
		{"CONNECTOR_TIMEOUT", &c.ConnectorTimeout, connector.DefaultTimeout},
		{"EMBEDDED_CONTEXT_TTL", &c.EmbeddedContextTTL, session.DefaultContextTTL},
	} {
		*d.dst = d.def
		if v := getenv(d.env); v != "" {
			if *d.dst, err = time.ParseDuration(v); err != nil || *d.dst <= 0 {
				return Config{}, fmt.Errorf("%s=%q: want a positive duration such as 5m", d.env, v)
			}
		}
	}
	c.JWT = identity.JWTConfig{Issuer: getenv("JWT_ISSUER"), Audience: getenv("JWT_AUDIENCE"), JWKSURL: getenv("JWT_JWKS_URL")}
	if c.JWT.Audience == "" {
		c.JWT.Audience = "syncassist"
	}
	if c.JWT.JWKSURL == "" && c.JWT.Issuer != "" {
		c.JWT.JWKSURL = strings.TrimSuffix(c.JWT.Issuer, "/") + "/.well-known/jwks.json"
	}
	if c.CORSOrigins, err = httpapi.ParseOrigins(getenv("CORS_ALLOWED_ORIGINS")); err != nil {
		return Config{}, fmt.Errorf("CORS_ALLOWED_ORIGINS: %w", err)
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
	Finance       finance.Store
	Queue         syncerror.Queue
	AuditStore    audit.Store
	Audit         *audit.Log
	DLP           *dlp.Scanner
	AIRecords     *dynamostore.AIRecords
	// Connectors builds and caches the tenants' connector clients.
	Connectors *connector.Registry
	// Manifests and Ledger are the guard's ownership manifests and write ledger.
	Manifests governance.ManifestSource
	Ledger    governance.Ledger
	// Guard is the one chokepoint every connector write passes.
	Guard *governance.Guard
	// Governance serves the governance read and approval routes.
	Governance *governance.Service
	// AI is the governed AI client: the only way to a provider.
	AI       *ai.Governed
	AIConfig ai.ProviderConfig
	// Tokens verifies operator JWTs; nil when no issuer is configured.
	Tokens identity.TokenVerifier
	// SessionStore holds embedded sessions; Sessions resolves them (a *session.Service).
	SessionStore session.Store
	Sessions     identity.SessionResolver
	Now          func() time.Time
	// Static serves routes built outside this wiring, by function name (StaticRoutes).
	Static map[string]http.Handler

	aiProvider, aiModel string
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
		Config:       cfg,
		Log:          httpapi.NewLogger(cfg.LogLevel),
		Tenants:      dynamostore.NewTenants(db, cfg.TenantsTable),
		Claims:       dynamostore.NewClaims(db, cfg.ProcessedTable),
		Finance:      dynamostore.NewFinance(db, cfg.FinanceTable),
		AuditStore:   dynamostore.NewAudit(db, cfg.AuditTable),
		SessionStore: dynamostore.NewSessions(db, cfg.SessionsTable),
		Now:          time.Now,
	}
	if cfg.JWT.Issuer != "" {
		d.Tokens = identity.NewJWTVerifier(cfg.JWT)
	}
	d.DLP = dlp.NewScanner()
	d.Connectors = connector.NewRegistry(connectorConfigs{d.Tenants, cfg.ConnectorTimeout}, connector.DefaultRegistryTTL)
	d.Audit = &audit.Log{Store: d.AuditStore, Redactor: recordRedactor{d.DLP}, Now: d.now}
	d.AIRecords = dynamostore.NewAIRecords(db, cfg.AIRecordsTable)
	if d.AIConfig, err = ai.ProviderConfigFromEnv(os.Getenv); err != nil {
		return nil, err
	}
	d.AIConfig.AWSConfig = &awsCfg
	if arn := os.Getenv("OPENAI_API_KEY_SECRET_ARN"); d.AIConfig.Name == "openai" && d.AIConfig.OpenAIAPIKey == "" && arn != "" {
		if d.AIConfig.OpenAIAPIKey, err = secretValue(ctx, awsCfg, arn); err != nil {
			return nil, fmt.Errorf("OpenAI API key: %w", err)
		}
	}
	provider, err := ai.NewProvider(ctx, d.AIConfig)
	if err != nil {
		return nil, fmt.Errorf("AI provider: %w", err)
	}
	d.AI = ai.NewGoverned(provider, promptScanner{d.DLP}, d.AIRecords, d.AIRecords, aiAuditor{d.Audit}).WithClock(d.now)
	d.Sessions = d.SessionService()
	if err := d.buildGovernance(awsCfg, dynamostore.NewGovernance(db, cfg.GovernanceTable)); err != nil {
		return nil, err
	}
	d.aiProvider, d.aiModel = provider.Name(), d.AIConfig.Model
	if d.aiModel == "" && d.aiProvider == "rules" {
		d.aiModel = ai.RulesModel
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

// now reads the clock through d.Now, so tests that set Now after Load move every clock.
func (d *Deps) now() time.Time { return d.Now() }

// missingQueue fails every send with a clear error; a function that sends without
// DIAGNOSIS_QUEUE_URL still claims (the reconcile re-enqueues later) and says why.
type missingQueue struct{}

func (missingQueue) Send(context.Context, syncerror.Message) error {
	return fmt.Errorf("%s is not set", blueprint.Diagnosis.EnvVar)
}

// Ingest returns the webhook handler.
func (d *Deps) Ingest() *syncerror.Ingest {
	return &syncerror.Ingest{Auth: d.HostAuth(), Claims: d.Claims, Queue: d.Queue, Now: d.Now}
}

// HostAuth returns the authenticator of host-signed routes (webhook secret, cached tenants).
func (d *Deps) HostAuth() *hostauth.Authenticator {
	return &hostauth.Authenticator{Tenants: d.IngestTenants,
		Verifier: webhook.Verifier{Tolerance: d.Config.WebhookTolerance, Now: d.now}, Now: d.now}
}

// Worker returns the diagnosis worker.
func (d *Deps) Worker() *syncerror.Worker {
	return &syncerror.Worker{Claims: d.Claims, Log: d.Log, Now: d.Now, StaleAfter: d.Config.DiagnosisStale,
		Diagnoser: governedDiagnoser{g: d.AI, provider: d.aiProvider, model: d.aiModel, now: d.Now}}
}

// Reconcile returns the reconcile.
func (d *Deps) Reconcile() *syncerror.Reconcile {
	return &syncerror.Reconcile{Tenants: d.Tenants, Claims: d.Claims, Queue: d.Queue, Log: d.Log, Now: d.Now,
		StuckAfter: d.Config.StuckAfter, Host: hostErrors{d.Connectors}, Watermarks: d.Claims, Audit: d.Audit}
}

// FinanceService returns the finance approvals' service: rows in the finance table, the ERP
// update through the guard, creates authenticated like the webhook.
func (d *Deps) FinanceService() *finance.Service {
	return &finance.Service{Store: d.Finance, ERP: finance.GuardUpdater{Guard: d.Guard}, Audit: d.Audit,
		HostAuth: d.HostAuth(), Now: d.now}
}

// SweepFinanceLeases returns every tenant's finance approvals whose approve lease expired
// to pending. Finance approvals do not depend on the sync-error flags, so every tenant is
// swept; one tenant's failure is logged and the others are still swept.
func (d *Deps) SweepFinanceLeases(ctx context.Context) (int, error) {
	tenants, err := d.Tenants.List(ctx)
	if err != nil {
		return 0, fmt.Errorf("list tenants: %w", err)
	}
	svc, total := d.FinanceService(), 0
	for _, t := range tenants {
		n, err := svc.SweepExpiredLeases(ctx, t.ID, d.now())
		total += n
		if err != nil {
			d.Log.Error("finance lease sweep failed", "tenant", t.ID, "error", err)
		}
	}
	d.Log.Info("finance lease sweep finished", "leasesExpired", total)
	return total, nil
}

// RunReconcile is the 30-minute backstop: the sync-error reconcile, then the finance
// lease sweep. Both are idempotent and safe to run twice at once.
func (d *Deps) RunReconcile(ctx context.Context) (syncerror.Report, error) {
	rep, err := d.Reconcile().Run(ctx)
	if _, ferr := d.SweepFinanceLeases(ctx); ferr != nil {
		d.Log.Error("finance lease sweep", "error", ferr)
	}
	return rep, err
}

// RouteHandler returns the plain HTTP handler of an HTTP function, by blueprint name.
// Handlers given in d.Static come first: the console and the OpenAPI document, which their
// own Lambdas serve without this wiring, so no other Lambda links their embedded files.
func (d *Deps) RouteHandler(name string) (http.Handler, error) {
	if h, ok := d.Static[name]; ok {
		return h, nil
	}
	switch name {
	case blueprint.FuncIngest:
		return d.Ingest(), nil
	case blueprint.FuncEmbeddedHostBootstrap:
		return d.SessionService().HostBootstrapHandler(), nil
	case blueprint.FuncEmbeddedContextBootstrap:
		return d.SessionService().ContextBootstrapHandler(), nil
	case blueprint.FuncEmbeddedSessionDelete:
		return d.SessionService().TeardownHandler(), nil
	case blueprint.FuncAuditList:
		return &audit.Handler{Store: d.AuditStore, Now: d.Now}, nil
	case blueprint.FuncProposalsList:
		return d.Operator().ListHandler(), nil
	case blueprint.FuncProposalDetail:
		return d.Operator().DetailHandler(), nil
	case blueprint.FuncProposalApprove:
		return d.Operator().ApproveHandler(), nil
	case blueprint.FuncProposalReject:
		return d.Operator().RejectHandler(), nil
	case blueprint.FuncProposalEscalate:
		return d.Operator().EscalateHandler(), nil
	case blueprint.FuncFinanceApprovalsList:
		return d.FinanceService().ListHandler(), nil
	case blueprint.FuncFinanceApprovalDetail:
		return d.FinanceService().DetailHandler(), nil
	case blueprint.FuncFinanceApprovalApprove:
		return d.FinanceService().ApproveHandler(), nil
	case blueprint.FuncFinanceApprovalReject:
		return d.FinanceService().RejectHandler(), nil
	case blueprint.FuncFinanceApprovalCreate:
		return d.FinanceService().CreateHandler(), nil
	case blueprint.FuncMCPTools:
		return d.Catalog().ToolsHandler(), nil
	case blueprint.FuncMCP:
		return d.Catalog().MCPHandler(), nil
	case blueprint.FuncProposalGroups:
		return d.Operator().GroupsHandler(), nil
	case blueprint.FuncProposalsBulk:
		return d.Operator().BulkHandler(), nil
	case blueprint.FuncAITraces:
		return &audit.AIActivity{Records: d.AIRecords, Redactor: recordRedactor{d.DLP}, Kind: audit.KindTrace}, nil
	case blueprint.FuncAICosts:
		return &audit.AIActivity{Records: d.AIRecords, Redactor: recordRedactor{d.DLP}, Kind: audit.KindCost}, nil
	case blueprint.FuncGovernanceApprovals, blueprint.FuncGovernanceRejections, blueprint.FuncGovernanceLoops,
		blueprint.FuncGovernanceApprove, blueprint.FuncGovernanceDeny:
		return d.governanceHandler(name), nil
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
		h = d.authenticated(*f.Route, h)
		if f.Name == blueprint.FuncMCPTools {
			// The catalogue answers even the middleware's 401/403 in its own envelope.
			h = d.Catalog().ListEnvelope(h)
		}
		mux.Handle(f.Route.Pattern(), h)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusNotFound, "route_not_found",
			"No route "+r.Method+" "+strings.TrimSpace(r.URL.Path)+"."))
	})
	return httpapi.Instrument(d.Log, httpapi.CORS(d.Config.CORSOrigins, mux)), nil
}

// authenticated puts a route behind its authentication: signed routes verify their own
// signature; operator and approver routes get validateGuestContext then the role check.
func (d *Deps) authenticated(route blueprint.Route, h http.Handler) http.Handler {
	var tokens identity.TokenVerifier = unavailableVerifier{}
	if d.Tokens != nil {
		tokens = d.Tokens
	}
	// Embedded callers may reach only their context's module (RequireModule); signed and
	// service-token routes authenticate in their handlers.
	switch route.Auth {
	case blueprint.AuthOperator:
		return identity.Authenticate(tokens, d.Sessions, identity.ValidateGuestContext(
			session.RequireModule(route.Module, identity.RequireRole(identity.RoleOperator, h))))
	case blueprint.AuthApprover:
		return identity.Authenticate(tokens, d.Sessions, identity.ValidateGuestContext(
			session.RequireModule(route.Module, identity.RequireApproverRole(h))))
	}
	return h
}

// unavailableVerifier stands in when no JWT issuer is configured, so operator routes say
// 503 identity_unavailable instead of treating every caller as anonymous.
type unavailableVerifier struct{}

func (unavailableVerifier) Verify(context.Context, string) (identity.Principal, error) {
	return identity.Principal{}, fmt.Errorf("JWT_ISSUER is not configured: %w", identity.ErrJWKSUnavailable)
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
