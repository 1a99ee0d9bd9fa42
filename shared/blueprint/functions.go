package blueprint

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// Access is what a function may do with a table.
type Access int

// Table access levels; the CDK stack grants exactly these.
const (
	Read Access = iota + 1
	ReadWrite
	// Append is PutItem only: a writer of records that must never be changed or deleted
	// (the audit log) cannot rewrite or delete one, nor read the others.
	Append
	// KeysOnly is GetItem of the key attributes alone: whether a row exists, nothing of
	// what it holds (the tenant a token names exists; its secrets stay out of reach).
	KeysOnly
	// SettingsOnly is GetItem of a tenant's attributes that hold no secret
	// (TenantPlainAttributes; the tenants table only): the console reads which origins may
	// frame it, never a secret or connector.
	SettingsOnly
)

// TenantSettingsAttribute is the tenants table's attribute holding the settings map.
const TenantSettingsAttribute = "settings"

// TenantPlainAttributes are a tenant item's attributes that hold no secret: what every
// tenant reader fetches, and all a SettingsOnly grant may read.
var TenantPlainAttributes = []string{"tenant_id", TenantSettingsAttribute, "created_at", "updated_at", "version", "system_aliases"}

// TableGrant gives a function one access level on one table. Table points at the table's
// declaration (Processed, Tenants, …): a grant that held a copy of the Table could not be
// laid down as data, and every function's binary links this package's function table
// (functions/size_test.go).
type TableGrant struct {
	Table  *Table
	Access Access
}

// Auth is how a route authenticates its caller.
type Auth string

// Route authentication modes.
const (
	// AuthSigned routes verify a Standard Webhooks signature with the tenant's secret.
	AuthSigned Auth = "signed"
	// AuthOperator routes need an identity (operator JWT or embedded session) with the
	// operator role.
	AuthOperator Auth = "operator"
	// AuthApprover routes need an identity with the approver role (validateGuestContext,
	// then requireApproverRole).
	AuthApprover Auth = "approver"
	// AuthAdmin routes need an operator JWT with the admin role: a tenant's settings.
	// Embedded sessions cannot call them (their routes have no module).
	AuthAdmin Auth = "admin"
	// AuthServiceToken routes take an embedded session's service token as
	// "Authorization: Bearer sat_…" and check it themselves (the embedded context bootstrap
	// and the session teardown, which have no context id yet).
	AuthServiceToken Auth = "service_token"
)

// ByJWT reports whether routes of this mode authenticate their callers by operator JWT
// (or an embedded session): operator, approver and admin routes.
func (a Auth) ByJWT() bool { return a == AuthOperator || a == AuthApprover || a == AuthAdmin }

// Route is an HTTP API route in Go 1.22 ServeMux / API Gateway syntax ("{id}" parameters).
type Route struct {
	Method string
	Path   string
	Auth   Auth
	// Module is the embedded module the route belongs to (session.Modules); an embedded
	// context may call only its own module's routes, and none where Module is empty.
	Module string
}

// Pattern is the route as a net/http ServeMux pattern.
func (r Route) Pattern() string { return r.Method + " " + r.Path }

// Secret purposes beyond the host's: connector credentials are sealed as their own.
const PurposeConnectors = "connectors"

// FlowSourcePurposes are the secrets source systems sign flow change events with.
var FlowSourcePurposes = []string{"flow.hosterp", "flow.erp2", "flow.crm", "flow.marketing", "flow.shipping"}

// SecretPurposes lists every purpose a tenant's sealed values have (tenant.Purposes and
// connector credentials); each is sealed under an encryption context naming it.
var SecretPurposes = append([]string{"ingest", "finance", "embedded"}, append(FlowSourcePurposes, PurposeConnectors)...)

// Opens lists the secret purposes f opens, and so may decrypt with the tenants' key, the
// grant conditioned on them: a host-signed route's own (it checks signatures), and
// connector credentials for guard writers and what OpensSecrets marks. No other function
// can open a secret.
func (f Function) Opens() []string {
	var out []string
	if f.Route != nil && f.Route.Auth == AuthSigned {
		out = append(out, f.Verifies...)
	}
	if f.OpensSecrets || f.PublishesAlerts {
		out = append(out, PurposeConnectors)
	}
	return out
}

// NeedsSecrets reports whether f opens or seals tenants' secrets (and is told their key).
func (f Function) NeedsSecrets() bool { return len(f.Opens()) > 0 || f.SealsSecrets }

// GatewayPaths are the route's paths in API Gateway syntax. "{id}" means the same to both;
// a ServeMux wildcard "{rest...}" is API Gateway's greedy "{rest+}", which, unlike
// ServeMux's, needs at least one segment, so the prefix before it is a path of its own.
func (r Route) GatewayPaths() []string {
	prefix, last := path.Split(r.Path)
	if !strings.HasPrefix(last, "{") || !strings.HasSuffix(last, "...}") {
		return []string{r.Path}
	}
	greedy := prefix + strings.TrimSuffix(last, "...}") + "+}"
	if prefix != "/" {
		prefix = strings.TrimSuffix(prefix, "/")
	}
	return []string{prefix, greedy}
}

// Function is one Lambda: its folder under functions/, its trigger and what it may touch.
// Exactly one of Route, Queue or Schedule is set.
type Function struct {
	Name        string
	Description string
	Route       *Route
	Queue       *Queue
	Schedule    time.Duration
	Tables      []TableGrant
	SendsTo     []Queue
	Timeout     time.Duration
	MemoryMB    int
	// BatchSize is the SQS event source batch size (queue functions only).
	BatchSize int
	// MaxConcurrency caps the concurrent executions the SQS event source starts (queue
	// functions only; 2 to 1,000). Without it a backlog scales the function towards the
	// account's limit and retries into the tenant's partitions and the AI quota.
	MaxConcurrency int
	// InvokesAI marks functions that call the configured AI provider; on Bedrock they may
	// invoke only the configured model.
	InvokesAI bool
	// OpensSecrets marks a function that uses a tenant's connector credentials without
	// writing through the guard (the reconcile's host poll). See NeedsSecrets.
	OpensSecrets bool
	// PublishesAlerts marks functions that write through the governance guard, which
	// publishes ownership alerts to the alert event bus.
	PublishesAlerts bool
	// Verifies are the tenant secret purposes (tenant.Purpose values) an AuthSigned route
	// checks signatures with: the only host secrets its function may open.
	Verifies []string
	// SealsSecrets marks functions that write tenants' secrets (the settings API's change
	// and rotation): they may make data keys for any purpose, and open none.
	SealsSecrets bool
}

// Function names, which are also their folders under functions/.
const (
	FuncIngest    = "ingest"
	FuncDiagnose  = "diagnose"
	FuncReconcile = "reconcile"
	FuncAuditList = "audit-list"

	FuncProposalsList        = "proposals-list"
	FuncProposalDetail       = "proposal-detail"
	FuncProposalApprove      = "proposal-approve"
	FuncProposalReject       = "proposal-reject"
	FuncProposalEscalate     = "proposal-escalate"
	FuncProposalRetry        = "proposal-retry"
	FuncProposalResolve      = "proposal-resolve"
	FuncGovernanceApprovals  = "governance-approvals"
	FuncGovernanceRejections = "governance-ownership-rejections"
	FuncGovernanceLoops      = "governance-loop-detections"
	FuncGovernanceApprove    = "governance-approval-approve"
	FuncGovernanceDeny       = "governance-approval-deny"
	FuncMCPTools             = "mcp-tools"
	FuncMCP                  = "mcp"

	FuncEmbeddedHostBootstrap    = "embedded-host-bootstrap"
	FuncEmbeddedContextBootstrap = "embedded-context-bootstrap"
	FuncEmbeddedSessionDelete    = "embedded-session-delete"
	FuncSessionReaper            = "session-reaper"
)

// SessionReaperInterval is how often expired embedded sessions are deleted; DynamoDB's TTL
// (which may lag by days) is only the backstop.
const SessionReaperInterval = time.Hour

// FinanceLeaseSweepInterval is how often expired finance approve leases return to
// pending: an approve that died mid-way holds its row for at most a lease plus this.
const FinanceLeaseSweepInterval = 5 * time.Minute

// ReconcileInterval is how often the reconcile runs (the spec's 30 minutes).
const ReconcileInterval = 30 * time.Minute

// IngestRoute is the host ERP's webhook.
var IngestRoute = Route{Method: "POST", Path: "/api/sync-error-assist/ingest", Auth: AuthSigned}

// Functions lists every Lambda of the service: its core functions, then each feature's
// (init).
var Functions []Function

// The service's core functions: the ingest, its workers and the embedded sessions.
var coreFunctions = []Function{
	{
		Name:        FuncIngest,
		Description: "Verifies a signed sync-error webhook, claims it and enqueues its diagnosis",
		Route:       &IngestRoute,
		Verifies:    []string{"ingest"},
		Tables:      []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}},
		SendsTo:     []Queue{Diagnosis},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncDiagnose,
		Description: "Diagnoses claimed sync errors from the diagnosis queue",
		Queue:       &Diagnosis,
		// Governance and alerts: an enforced auto rule applies a fix through the guard.
		Tables:          []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&AIRecords, ReadWrite}, {&Governance, ReadWrite}},
		PublishesAlerts: true,
		InvokesAI:       true,
		Timeout:         DiagnosisWorkerTimeout,
		MemoryMB:        512,
		BatchSize:       10,
		// 12 concurrent batches drain the 167-a-second burst README's Scale section models;
		// 20 leaves room for slower AI answers and keeps a backlog from scaling past the
		// rate one tenant's partitions take (about 200 sync errors a second).
		MaxConcurrency: DiagnosisMaxConcurrency,
	},
	{
		Name:        FuncReconcile,
		Description: "Every 30 minutes: re-enqueues stuck claims, polls the host ERP for missed sync errors, returns expired apply leases",
		Schedule:    ReconcileInterval,
		// Governance: the lease sweep asks the write ledger whether a stopped approve wrote.
		Tables:       []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, Read}},
		SendsTo:      []Queue{Diagnosis},
		OpensSecrets: true,
		Timeout:      5 * time.Minute,
		MemoryMB:     256,
	},
	{
		Name:        FuncAuditList,
		Description: "Lists the caller tenant's audit records (approvers)",
		Route:       &Route{Method: "GET", Path: "/api/audit", Auth: AuthApprover, Module: "audit"},
		Tables:      []TableGrant{{&Audit, Read}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedHostBootstrap,
		Description: "Opens an embedded session for a host user (host-signed) and issues its service token",
		Route:       &Route{Method: "POST", Path: "/api/embedded/host/bootstrap", Auth: AuthSigned},
		Verifies:    []string{"embedded"},
		Tables:      []TableGrant{{&EmbeddedSessions, ReadWrite}, {&Tenants, Read}, {&Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedContextBootstrap,
		Description: "Opens a module context in an embedded session (service token)",
		Route:       &Route{Method: "POST", Path: "/api/embedded/context/bootstrap", Auth: AuthServiceToken},
		Tables:      []TableGrant{{&EmbeddedSessions, ReadWrite}, {&Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedSessionDelete,
		Description: "Revokes an embedded session's service token and its contexts",
		Route:       &Route{Method: "DELETE", Path: "/api/embedded/session", Auth: AuthServiceToken},
		Tables:      []TableGrant{{&EmbeddedSessions, ReadWrite}, {&Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncSessionReaper,
		Description: "Every hour, deletes expired embedded service tokens and contexts",
		Schedule:    SessionReaperInterval,
		Tables:      []TableGrant{{&EmbeddedSessions, ReadWrite}, {&Tenants, Read}, {&Audit, Append}},
		Timeout:     5 * time.Minute,
		MemoryMB:    256,
	},
}

// The authenticated routes' table grants and the build of Functions. Every operator,
// approver or admin route may be called from an embedded session (and checks that the
// token's tenant exists), so the lists below name each route's own tables and init adds
// those reads. The lists are package-level literals, which the compiler lays down as data:
// every function's binary links this package's initialisers, and the same table built by
// code (helpers returning Functions, each grant a copy of its Table) was 69 KiB of them
// (functions/size_test.go).
func init() {
	Functions = slices.Concat(coreFunctions, assistFunctions, consoleFunctions, queueFunctions, financeFunctions,
		mcpFunctions, flowFunctions, settingsFunctions)
	for i, f := range Functions {
		if f.Route != nil && f.Route.Auth.ByJWT() {
			Functions[i].Tables = authenticatedTables(f.Tables)
		}
	}
}

// authenticatedTables are the grants of a route that authenticates its callers: tables
// plus the embedded-session table and whether the token's tenant exists (KeysOnly, unless
// tables read tenants). The result never shares tables' backing array.
func authenticatedTables(tables []TableGrant) []TableGrant {
	out := append(slices.Clip(tables), TableGrant{&EmbeddedSessions, Read})
	for _, g := range tables {
		if g.Table.Name == TableTenants {
			return out
		}
	}
	return append(out, TableGrant{&Tenants, KeysOnly})
}

const proposalsPath = "/api/sync-error-assist/proposals"

// Operator queue and governance routes.
var queueFunctions = []Function{
	// The listing and the detail read the tenant's system names (plain attributes only).
	{Name: FuncProposalsList, Description: "Lists the operator queue",
		Route:  &Route{Method: "GET", Path: proposalsPath, Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, Read}, {&Tenants, SettingsOnly}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncProposalDetail, Description: "Shows one proposal with its history",
		Route:  &Route{Method: "GET", Path: proposalsPath + "/{id}", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, Read}, {&Tenants, SettingsOnly}}, Timeout: 10 * time.Second, MemoryMB: 256},
	// Operators reach approve; the tenant's approval policy decides who may approve what.
	{Name: FuncProposalApprove,
		Description: "Approves a proposal and writes its fix back to the host ERP through the guard, as the approval policy allows",
		Route:       &Route{Method: "POST", Path: proposalsPath + "/{id}/approve", Auth: AuthOperator, Module: "sync-errors"},
		Tables:      []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite}},
		Timeout:     30 * time.Second, MemoryMB: 256, PublishesAlerts: true},
	{Name: FuncProposalReject, Description: "Rejects a proposal",
		Route:  &Route{Method: "POST", Path: proposalsPath + "/{id}/reject", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}, {&Tenants, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncProposalEscalate, Description: "Escalates a proposal",
		Route:  &Route{Method: "POST", Path: proposalsPath + "/{id}/escalate", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}, {&Tenants, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	// A retry re-runs the integration that failed: it asks the host ERP through its
	// connector (the approved fix written first through the guard), or re-runs a failed
	// flow run (the flows table: the flow, its cross-reference and the re-run's own run).
	{Name: FuncProposalRetry, Description: "Retries a sync error: the host ERP re-runs the sync, or the flow runs again from its source",
		Route: &Route{Method: "POST", Path: proposalsPath + "/{id}/retry", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite},
			{&Flows, ReadWrite}},
		SendsTo: []Queue{Diagnosis}, Timeout: 30 * time.Second, MemoryMB: 256, PublishesAlerts: true, OpensSecrets: true},
	{Name: FuncProposalResolve, Description: "Resolves a sync error with a reason and no ERP write",
		Route:  &Route{Method: "POST", Path: proposalsPath + "/{id}/resolve", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}, {&Tenants, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncGovernanceApprovals, Description: "Lists ownership approvals",
		Route:  &Route{Method: "GET", Path: "/api/governance/approvals", Auth: AuthApprover, Module: "governance"},
		Tables: []TableGrant{{&Governance, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncGovernanceRejections, Description: "Lists the last hour's ownership rejections",
		Route:  &Route{Method: "GET", Path: "/api/governance/ownership-rejections", Auth: AuthApprover, Module: "governance"},
		Tables: []TableGrant{{&Governance, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncGovernanceLoops, Description: "Lists the last hour's loop detections",
		Route:  &Route{Method: "GET", Path: "/api/governance/loop-detections", Auth: AuthApprover, Module: "governance"},
		Tables: []TableGrant{{&Governance, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncGovernanceApprove, Description: "Approves a held ownership approval and releases its write through the guard",
		Route:   &Route{Method: "POST", Path: "/api/governance/approvals/{id}/approve", Auth: AuthApprover, Module: "governance"},
		Tables:  []TableGrant{{&Governance, ReadWrite}, {&Tenants, Read}, {&Audit, Append}},
		Timeout: 30 * time.Second, MemoryMB: 256, PublishesAlerts: true},
	{Name: FuncGovernanceDeny, Description: "Denies a held ownership approval",
		Route:  &Route{Method: "POST", Path: "/api/governance/approvals/{id}/deny", Auth: AuthApprover, Module: "governance"},
		Tables: []TableGrant{{&Governance, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
}

// Finance approval function names (ARCHITECTURE.md "Finance approvals").
const (
	FuncFinanceApprovalsList   = "finance-approvals-list"
	FuncFinanceApprovalDetail  = "finance-approval-detail"
	FuncFinanceApprovalApprove = "finance-approval-approve"
	FuncFinanceApprovalReject  = "finance-approval-reject"
	FuncFinanceApprovalCreate  = "finance-approval-create"
	FuncFinanceLeaseSweep      = "finance-lease-sweep"
)

// Finance approval routes. The host ERP creates rows (signed like the webhook); operators
// read them and approvers decide them, also from an embedded session. The reconcile sweeps
// expired approve leases, so it may write rows.
const financeApprovalsPath = "/api/finance-ops/approvals"

var financeFunctions = []Function{
	{Name: FuncFinanceApprovalsList, Description: "Lists finance approvals",
		Route:  &Route{Method: "GET", Path: financeApprovalsPath, Auth: AuthOperator, Module: "finance-approvals"},
		Tables: []TableGrant{{&FinanceApprovals, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFinanceApprovalDetail, Description: "Shows one finance approval",
		Route:  &Route{Method: "GET", Path: financeApprovalsPath + "/{id}", Auth: AuthOperator, Module: "finance-approvals"},
		Tables: []TableGrant{{&FinanceApprovals, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFinanceApprovalApprove, Description: "Approves a finance approval: lease, ERP update through the guard, accept",
		Route:   &Route{Method: "POST", Path: financeApprovalsPath + "/{id}/approve", Auth: AuthApprover, Module: "finance-approvals"},
		Tables:  []TableGrant{{&FinanceApprovals, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite}},
		Timeout: 30 * time.Second, MemoryMB: 256, PublishesAlerts: true},
	{Name: FuncFinanceApprovalReject, Description: "Rejects a finance approval (no ERP write)",
		Route:  &Route{Method: "POST", Path: financeApprovalsPath + "/{id}/reject", Auth: AuthApprover, Module: "finance-approvals"},
		Tables: []TableGrant{{&FinanceApprovals, ReadWrite}, {&Audit, Append}, {&Tenants, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFinanceApprovalCreate, Description: "Creates a finance approval for the host ERP (host-signed)",
		Route: &Route{Method: "POST", Path: financeApprovalsPath, Auth: AuthSigned}, Verifies: []string{"finance"},
		Tables:  []TableGrant{{&FinanceApprovals, ReadWrite}, {&Tenants, Read}, {&Audit, Append}},
		Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFinanceLeaseSweep,
		Description: "Every 5 minutes: completes or returns to pending finance approvals whose approve lease expired",
		Schedule:    FinanceLeaseSweepInterval,
		// Governance: the write ledger, read before a row returns to pending; Audit: the
		// lease_expired and approve_completed records.
		Tables:  []TableGrant{{&FinanceApprovals, ReadWrite}, {&Tenants, Read}, {&Governance, Read}, {&Audit, Append}},
		Timeout: time.Minute, MemoryMB: 256},
}

// The tool catalogue for AI agents. Its tools span several modules, so embedded contexts
// (bound to one module) cannot call it (Module "").
var mcpFunctions = []Function{
	{Name: FuncMCPTools, Description: "Lists the tool catalogue for AI agents (operators)",
		Route:   &Route{Method: "GET", Path: "/api/mcp/tools", Auth: AuthOperator},
		Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncMCP, Description: "MCP endpoint (Streamable HTTP, stateless): the four tools for AI agents",
		Route: &Route{Method: "POST", Path: "/api/mcp", Auth: AuthOperator},
		Tables: []TableGrant{{&Processed, Read}, {&Tenants, Read}, {&Governance, Read},
			{&Audit, Append}, {&AIRecords, ReadWrite}},
		InvokesAI: true, Timeout: 30 * time.Second, MemoryMB: 512},
}

// HTTPFunctions returns the functions behind HTTP routes.
func HTTPFunctions() []Function {
	var out []Function
	for _, f := range Functions {
		if f.Route != nil {
			out = append(out, f)
		}
	}
	return out
}

// FunctionNamed returns the function called name.
func FunctionNamed(name string) (Function, error) {
	for _, f := range Functions {
		if f.Name == name {
			return f, nil
		}
	}
	return Function{}, fmt.Errorf("no function %q in the blueprint", name)
}
