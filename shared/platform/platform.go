// Package platform is what every function shares and no feature owns: configuration from
// the environment, the AWS clients, the platform's stores (tenants, audit, embedded
// sessions, governance), the DLP scanner, the guard every connector write passes, the
// authentication in front of routes and the Lambda adapters. It knows no feature: a
// feature's wiring takes a *Base and builds its own handlers (syncerror/wire.Routes,
// finance.Routes, toolcatalog.Routes), and a function's main starts one of them.
package platform

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/sealed"
	"github.com/syncassist/syncassist/shared/sealed/kmskey"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenantrun"
	"github.com/syncassist/syncassist/shared/webhook"
)

// Base is the platform, built once per process (a Lambda's cold start). Fields are ready
// after Load; the methods build what only some functions need, once, on first use.
type Base struct {
	Config Config
	AWS    aws.Config
	DB     *dynamodb.Client
	Log    *slog.Logger
	// Getenv reads the environment; features read their own settings through it.
	Getenv func(string) string
	// Now is the clock of everything built from Base; tests move it.
	Now     func() time.Time
	Tenants tenant.Store
	// HostTenants is what host-signed routes (and the features' settings reads) read
	// tenants through: a tenant.Cache over Tenants, or Tenants itself when the cache is off.
	// In a deployed function it fetches only the secrets the function serves (ServeOnly).
	HostTenants tenant.Reader
	AuditStore  audit.Store
	Audit       *audit.Log
	// Tokens verifies operator JWTs; nil when no issuer is configured, and in functions
	// that mount no operator route (Start, StartSigned), which link no JWT verifier.
	Tokens identity.TokenVerifier
	// Keeper seals tenants' secrets at rest and opens them where they are used (nil:
	// stored as given). Only functions granted the key may open one.
	Keeper tenant.Keeper

	dlp        func() *dlp.Scanner
	storesOnce sync.Once
	stores     govStores
	memo       sync.Map // key → *memoEntry, for Memo
}

type memoEntry struct {
	once sync.Once
	v    any
}

// Memo returns what build returned the first time key was asked of b: the parts built
// outside this package (the guard's wiring) are built once per process, on first use, like
// the Base's own.
func Memo[T any](b *Base, key any, build func() T) T {
	e, _ := b.memo.LoadOrStore(key, &memoEntry{})
	m := e.(*memoEntry)
	m.once.Do(func() { m.v = build() })
	return m.v.(T)
}

// Load builds the Base from the environment (AWSConfigFromEnv), honouring AWS_ENDPOINT_URL
// and AWS_ENDPOINT_URL_<SERVICE> (the emulators), ready to mount any route (New).
func Load(_ context.Context) (*Base, error) {
	b, err := loadBase()
	if err != nil {
		return nil, err
	}
	b.verifyOperators()
	return b, nil
}

// loadBase is Load without the operator token verifier: what a function that mounts no
// operator route starts from.
func loadBase() (*Base, error) {
	cfg, err := ConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := AWSConfigFromEnv(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	return newBase(cfg, awsCfg, os.Getenv), nil
}

// New builds the Base from a read Config, with the operator token verifier when an issuer
// is configured: it can mount every route (the local stack, tests).
func New(cfg Config, awsCfg aws.Config, getenv func(string) string) *Base {
	b := newBase(cfg, awsCfg, getenv)
	b.verifyOperators()
	return b
}

// verifyOperators sets Tokens, the operator JWT verifier, when an issuer is configured.
// It is apart from newBase so that only the functions that mount operator routes
// (StartHTTP) link the verifier: the JWT library, the JWKS client and their keys' parsers.
func (b *Base) verifyOperators() {
	if b.Config.JWT.Issuer != "" {
		b.Tokens = identity.NewJWTVerifier(b.Config.JWT)
	}
}

// newBase builds the Base every function shares.
func newBase(cfg Config, awsCfg aws.Config, getenv func(string) string) *Base {
	b := &Base{
		Config: cfg,
		AWS:    awsCfg,
		Log:    httpapi.NewLogger(cfg.LogLevel),
		Getenv: getenv,
		Now:    time.Now,
		dlp:    sync.OnceValue(dlp.NewScanner),
	}
	b.DB = dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) { o.BaseEndpoint = b.Endpoint("DynamoDB") })
	b.Keeper = b.newKeeper()
	tenants := tenant.NewDynamoStore(b.DB, cfg.Table(blueprint.Tenants))
	tenants.Keeper = b.Keeper
	b.Tenants = tenants
	b.AuditStore = audit.NewDynamoStore(b.DB, cfg.Table(blueprint.Audit))
	b.Audit = &audit.Log{Store: b.AuditStore, Redactor: lazyRedactor{b}, Now: b.now}
	b.Audit.PseudonymKey = b.pseudonymKey()
	b.HostTenants = b.hostTenants(b.Tenants)
	return b
}

// TenantSettings reads tenants without their secrets (the projected read where the store
// offers one: blueprint.SettingsOnly grants nothing more), through a tenant cache when
// the stage has one.
func (b *Base) TenantSettings() tenant.Reader {
	var r tenant.Reader = b.Tenants
	if t, ok := b.Tenants.(*tenant.DynamoStore); ok {
		r = t.ReaderFor()
	}
	if b.Config.TenantCacheTTL > 0 {
		return &tenant.Cache{Store: r, TTL: b.Config.TenantCacheTTL, Now: b.now}
	}
	return r
}

func (b *Base) hostTenants(r tenant.Reader) tenant.Reader {
	if b.Config.TenantCacheTTL > 0 {
		return &tenant.Cache{Store: r, TTL: b.Config.TenantCacheTTL}
	}
	return r
}

// TenantView is a read-only view of the tenants.
type TenantView interface {
	Get(ctx context.Context, id string) (tenant.Config, error)
	List(ctx context.Context) ([]tenant.Config, error)
}

// TenantsFor reads the tenant table fetching the plain attributes and the secrets of
// purposes only (a projection; none: settings alone), so a reader never receives another
// purpose's sealed secrets. Over a store other than the table's it is that store.
func (b *Base) TenantsFor(purposes ...tenant.Purpose) TenantView {
	if s, ok := b.Tenants.(*tenant.DynamoStore); ok {
		return s.ReaderFor(purposes...)
	}
	return b.Tenants
}

// ServeOnly narrows HostTenants to what the function called name serves: the secret
// purposes it opens (blueprint Opens, the purposes its key grant is conditioned on). A
// Lambda serves one function; the local stack, serving all, does not narrow.
func (b *Base) ServeOnly(name string) error {
	f, err := blueprint.FunctionNamed(name)
	if err != nil {
		return err
	}
	var purposes []tenant.Purpose
	for _, p := range f.Opens() {
		purposes = append(purposes, tenant.Purpose(p))
	}
	b.HostTenants = b.hostTenants(b.TenantsFor(purposes...))
	return nil
}

// newKeeper is the tenant secrets' key keeper: the KMS key in AWS, the local key in make
// run, none otherwise.
func (b *Base) newKeeper() tenant.Keeper {
	switch {
	case b.Config.SecretsKeyARN != "":
		return &sealed.Sealer{Wrapper: kmskey.New(b.AWS, b.Endpoint("KMS"), b.Config.SecretsKeyARN)}
	case b.Config.LocalSealingKey != nil:
		return &sealed.Sealer{Wrapper: b.Config.LocalSealingKey}
	}
	return nil
}

// now reads the clock through b.Now, so tests that set Now after Load move every clock.
func (b *Base) now() time.Time { return b.Now() }

// Clock is b's clock as a function value that follows later changes to b.Now.
func (b *Base) Clock() func() time.Time { return b.now }

// DLP is the scanner every outbound payload, prompt and stored record passes.
func (b *Base) DLP() *dlp.Scanner { return b.dlp() }

// HostAuth is the authenticator of host-signed routes: the tenant's webhook secrets,
// through the tenant cache.
func (b *Base) HostAuth(purpose tenant.Purpose) *hostauth.Authenticator[tenant.Config] {
	return &hostauth.Authenticator[tenant.Config]{Purpose: string(purpose), Tenants: tenant.Directory{Reader: b.HostTenants, Keeper: b.Keeper, Purposes: []tenant.Purpose{purpose}},
		Verifier: webhook.Verifier{Tolerance: b.Config.WebhookTolerance, Now: b.now}, Now: b.now}
}

// RecordRedactor is audit.Redactor over DLP's record policy.
type RecordRedactor struct{ Scanner *dlp.Scanner }

// RedactJSON masks what the record policy finds in doc.
func (p RecordRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	r, err := p.Scanner.ScanJSON(dlp.Record, doc)
	if err != nil {
		return nil, err
	}
	return r.Output, nil
}

// lazyRedactor builds the scanner on the first record, not at start: a function that
// writes no audit record never compiles the DLP patterns.
type lazyRedactor struct{ b *Base }

func (l lazyRedactor) RedactJSON(ctx context.Context, doc []byte) ([]byte, error) {
	return RecordRedactor{l.b.DLP()}.RedactJSON(ctx, doc)
}

func (l lazyRedactor) RedactText(ctx context.Context, text string) (string, error) {
	return RecordRedactor{l.b.DLP()}.RedactText(ctx, text)
}

// RedactText masks what the record policy finds in text.
func (p RecordRedactor) RedactText(_ context.Context, text string) (string, error) {
	return p.Scanner.RedactString(dlp.Record, text)
}

// AIRecords is the store of AI reasoning traces and cost records.
func (b *Base) AIRecords() *audit.AIRecords {
	return audit.NewAIRecords(b.DB, b.Config.Table(blueprint.AIRecords))
}

// EachTenant runs fn for every tenant, for the scheduled jobs that sweep all of them
// (tenantrun): each run starts at another tenant, each tenant gets a bounded share of the
// time left before the context's deadline, tenants that ran out of time last run go last,
// and a run near its deadline leaves the rest to the next one. One tenant's failure is
// logged under job and counted, and the others still run; only failing to list the
// tenants is an error. Timeouts and tenants left over are logged and emitted as metrics.
//
// Which tenants ran out of time is kept in table (one the job writes already), so a cold
// start remembers it.
func (b *Base) EachTenant(ctx context.Context, job string, table blueprint.Table, fn func(ctx context.Context, tenantID string) error) (failed int, err error) {
	// The job's metrics in as few EMF lines as they fit.
	defer emf.Collect(ctx).Flush()
	tenants, err := b.TenantsFor().List(ctx) // the ids alone are needed: no secret is fetched
	if err != nil {
		return 0, fmt.Errorf("list tenants: %w", err)
	}
	ids := make([]string, 0, len(tenants))
	for _, t := range tenants {
		ids = append(ids, t.ID)
	}
	res := tenantrun.Run(ctx, ids, tenantrun.Plan{Now: b.now, Memory: b.JobMemory(table, job)}, fn)
	for id, err := range res.Errors {
		b.Log.Error(job+" failed", "tenant", id, "error", err)
	}
	if res.MemoryErr != nil {
		b.Log.Warn(job+": which tenants ran out of time is not remembered", "error", res.MemoryErr)
	}
	if res.Skipped > 0 || res.TimedOut > 0 {
		b.Log.Warn(job+" ran out of time", "tenantsTimedOut", res.TimedOut, "tenantsSkipped", res.Skipped)
	}
	emf.Emit(emf.Metric{Time: b.now(), Dimensions: []string{"job"}, Fields: map[string]any{"job": job},
		Counts: map[string]float64{"TenantsRun": float64(res.Ran), "TenantsFailed": float64(res.Failed),
			"TenantsTimedOut": float64(res.TimedOut), "TenantsSkipped": float64(res.Skipped)}})
	return res.Failed, nil
}

// JobMemory is where job keeps which tenants ran out of time (tenantrun): an item of
// table, which the job writes already. A Base without DynamoDB (unit tests) keeps it in
// the process.
func (b *Base) JobMemory(table blueprint.Table, job string) tenantrun.Memory {
	if b.DB == nil {
		return Memo(b, jobMemoryKey{job}, func() *tenantrun.InProcess { return &tenantrun.InProcess{} })
	}
	return tenantrun.Dynamo{DB: b.DB, Table: b.Config.Table(table), Keys: table, Job: job}
}

type jobMemoryKey struct{ job string }
