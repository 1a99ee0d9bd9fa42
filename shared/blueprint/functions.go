package blueprint

import (
	"fmt"
	"path"
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

// authenticatedTables are the grants of a route that authenticates its callers (operator
// or approver): tables plus the embedded-session table (a call may come from an embedded
// session) and whether the token's tenant exists (KeysOnly, unless tables read tenants).
func authenticatedTables(tables ...TableGrant) []TableGrant {
	out := append(tables, TableGrant{EmbeddedSessions, Read})
	for _, g := range tables {
		if g.Table.Name == TableTenants {
			return out
		}
	}
	return append(out, TableGrant{Tenants, KeysOnly})
}

// TableGrant gives a function one access level on one table.
type TableGrant struct {
	Table  Table
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

// Functions lists every Lambda of the service.
var Functions = []Function{
	{
		Name:        FuncIngest,
		Description: "Verifies a signed sync-error webhook, claims it and enqueues its diagnosis",
		Route:       &IngestRoute,
		Verifies:    []string{"ingest"},
		Tables:      []TableGrant{{Processed, ReadWrite}, {Tenants, Read}},
		SendsTo:     []Queue{Diagnosis},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncDiagnose,
		Description: "Diagnoses claimed sync errors from the diagnosis queue",
		Queue:       &Diagnosis,
		// Governance and alerts: an enforced auto rule applies a fix through the guard.
		Tables:          []TableGrant{{Processed, ReadWrite}, {Tenants, Read}, {Audit, Append}, {AIRecords, ReadWrite}, {Governance, ReadWrite}},
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
		Tables:       []TableGrant{{Processed, ReadWrite}, {Tenants, Read}, {Audit, Append}, {Governance, Read}},
		SendsTo:      []Queue{Diagnosis},
		OpensSecrets: true,
		Timeout:      5 * time.Minute,
		MemoryMB:     256,
	},
	{
		Name:        FuncAuditList,
		Description: "Lists the caller tenant's audit records (approvers)",
		Route:       &Route{Method: "GET", Path: "/api/audit", Auth: AuthApprover, Module: "audit"},
		Tables:      authenticatedTables(TableGrant{Audit, Read}),
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedHostBootstrap,
		Description: "Opens an embedded session for a host user (host-signed) and issues its service token",
		Route:       &Route{Method: "POST", Path: "/api/embedded/host/bootstrap", Auth: AuthSigned},
		Verifies:    []string{"embedded"},
		Tables:      []TableGrant{{EmbeddedSessions, ReadWrite}, {Tenants, Read}, {Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedContextBootstrap,
		Description: "Opens a module context in an embedded session (service token)",
		Route:       &Route{Method: "POST", Path: "/api/embedded/context/bootstrap", Auth: AuthServiceToken},
		Tables:      []TableGrant{{EmbeddedSessions, ReadWrite}, {Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncEmbeddedSessionDelete,
		Description: "Revokes an embedded session's service token and its contexts",
		Route:       &Route{Method: "DELETE", Path: "/api/embedded/session", Auth: AuthServiceToken},
		Tables:      []TableGrant{{EmbeddedSessions, ReadWrite}, {Audit, Append}},
		Timeout:     10 * time.Second,
		MemoryMB:    256,
	},
	{
		Name:        FuncSessionReaper,
		Description: "Every hour, deletes expired embedded service tokens and contexts",
		Schedule:    SessionReaperInterval,
		Tables:      []TableGrant{{EmbeddedSessions, ReadWrite}, {Tenants, Read}, {Audit, Append}},
		Timeout:     5 * time.Minute,
		MemoryMB:    256,
	},
}

// Operator queue and governance routes. Every operator or approver route may be called from
// an embedded session, so each reads the session table.
func init() {
	const proposals = "/api/sync-error-assist/proposals"
	op := func(name, desc, method, path string, auth Auth, module string, tables ...TableGrant) Function {
		return Function{Name: name, Description: desc, Route: &Route{Method: method, Path: path, Auth: auth, Module: module},
			Tables: authenticatedTables(tables...), Timeout: 10 * time.Second, MemoryMB: 256}
	}
	// Operators reach approve; the tenant's approval policy decides who may approve what.
	approve := op(FuncProposalApprove, "Approves a proposal and writes its fix back to the host ERP through the guard, as the approval policy allows",
		"POST", proposals+"/{id}/approve", AuthOperator, "sync-errors",
		TableGrant{Processed, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append}, TableGrant{Governance, ReadWrite})
	approve.Timeout, approve.PublishesAlerts = 30*time.Second, true
	// A retry re-runs the integration that failed: it asks the host ERP through its
	// connector (the approved fix written first through the guard), or re-runs a failed
	// flow run (the flows table: the flow, its cross-reference and the re-run's own run).
	retry := op(FuncProposalRetry, "Retries a sync error: the host ERP re-runs the sync, or the flow runs again from its source",
		"POST", proposals+"/{id}/retry", AuthOperator, "sync-errors",
		TableGrant{Processed, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append}, TableGrant{Governance, ReadWrite},
		TableGrant{Flows, ReadWrite})
	retry.Timeout, retry.PublishesAlerts, retry.OpensSecrets, retry.SendsTo = 30*time.Second, true, true, []Queue{Diagnosis}
	release := op(FuncGovernanceApprove, "Approves a held ownership approval and releases its write through the guard",
		"POST", "/api/governance/approvals/{id}/approve", AuthApprover, "governance",
		TableGrant{Governance, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append})
	release.Timeout, release.PublishesAlerts = 30*time.Second, true
	Functions = append(Functions,
		// The listing and the detail read the tenant's system names (plain attributes only).
		op(FuncProposalsList, "Lists the operator queue", "GET", proposals, AuthOperator, "sync-errors", TableGrant{Processed, Read},
			TableGrant{Tenants, SettingsOnly}),
		op(FuncProposalDetail, "Shows one proposal with its history", "GET", proposals+"/{id}", AuthOperator, "sync-errors", TableGrant{Processed, Read},
			TableGrant{Tenants, SettingsOnly}),
		approve,
		op(FuncProposalReject, "Rejects a proposal", "POST", proposals+"/{id}/reject", AuthOperator, "sync-errors",
			TableGrant{Processed, ReadWrite}, TableGrant{Audit, Append}, TableGrant{Tenants, Read}),
		op(FuncProposalEscalate, "Escalates a proposal", "POST", proposals+"/{id}/escalate", AuthOperator, "sync-errors",
			TableGrant{Processed, ReadWrite}, TableGrant{Audit, Append}, TableGrant{Tenants, Read}),
		retry,
		op(FuncProposalResolve, "Resolves a sync error with a reason and no ERP write", "POST", proposals+"/{id}/resolve", AuthOperator,
			"sync-errors", TableGrant{Processed, ReadWrite}, TableGrant{Audit, Append}, TableGrant{Tenants, Read}),
		op(FuncGovernanceApprovals, "Lists ownership approvals", "GET", "/api/governance/approvals", AuthApprover, "governance",
			TableGrant{Governance, Read}),
		op(FuncGovernanceRejections, "Lists the last hour's ownership rejections", "GET", "/api/governance/ownership-rejections",
			AuthApprover, "governance", TableGrant{Governance, Read}),
		op(FuncGovernanceLoops, "Lists the last hour's loop detections", "GET", "/api/governance/loop-detections",
			AuthApprover, "governance", TableGrant{Governance, Read}),
		release,
		op(FuncGovernanceDeny, "Denies a held ownership approval", "POST", "/api/governance/approvals/{id}/deny", AuthApprover,
			"governance", TableGrant{Governance, ReadWrite}, TableGrant{Audit, Append}),
	)
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
// read them and approvers decide them, also from an embedded session, so those routes read
// the session table. The reconcile sweeps expired approve leases, so it may write rows.
func init() {
	const approvals = "/api/finance-ops/approvals"
	const module = "finance-approvals"
	route := func(name, desc, method, path string, auth Auth, tables ...TableGrant) Function {
		return Function{Name: name, Description: desc, Route: &Route{Method: method, Path: path, Auth: auth, Module: module},
			Tables: authenticatedTables(tables...), Timeout: 10 * time.Second, MemoryMB: 256}
	}
	approve := route(FuncFinanceApprovalApprove, "Approves a finance approval: lease, ERP update through the guard, accept",
		"POST", approvals+"/{id}/approve", AuthApprover,
		TableGrant{FinanceApprovals, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append}, TableGrant{Governance, ReadWrite})
	approve.Timeout, approve.PublishesAlerts = 30*time.Second, true
	Functions = append(Functions,
		route(FuncFinanceApprovalsList, "Lists finance approvals", "GET", approvals, AuthOperator,
			TableGrant{FinanceApprovals, Read}),
		route(FuncFinanceApprovalDetail, "Shows one finance approval", "GET", approvals+"/{id}", AuthOperator,
			TableGrant{FinanceApprovals, Read}),
		approve,
		route(FuncFinanceApprovalReject, "Rejects a finance approval (no ERP write)", "POST", approvals+"/{id}/reject", AuthApprover,
			TableGrant{FinanceApprovals, ReadWrite}, TableGrant{Audit, Append}, TableGrant{Tenants, Read}),
		Function{Name: FuncFinanceApprovalCreate, Description: "Creates a finance approval for the host ERP (host-signed)",
			Route: &Route{Method: "POST", Path: approvals, Auth: AuthSigned}, Verifies: []string{"finance"},
			Tables:  []TableGrant{{FinanceApprovals, ReadWrite}, {Tenants, Read}, {Audit, Append}},
			Timeout: 10 * time.Second, MemoryMB: 256},
		Function{Name: FuncFinanceLeaseSweep,
			Description: "Every 5 minutes: completes or returns to pending finance approvals whose approve lease expired",
			Schedule:    FinanceLeaseSweepInterval,
			// Governance: the write ledger, read before a row returns to pending; Audit: the
			// lease_expired and approve_completed records.
			Tables:  []TableGrant{{FinanceApprovals, ReadWrite}, {Tenants, Read}, {Governance, Read}, {Audit, Append}},
			Timeout: time.Minute, MemoryMB: 256},
	)
}

// The tool catalogue for AI agents. Its tools span several modules, so embedded contexts
// (bound to one module) cannot call it (Module "").
func init() {
	Functions = append(Functions,
		Function{Name: FuncMCPTools, Description: "Lists the tool catalogue for AI agents (operators)",
			Route:  &Route{Method: "GET", Path: "/api/mcp/tools", Auth: AuthOperator},
			Tables: authenticatedTables(), Timeout: 10 * time.Second, MemoryMB: 256},
		Function{Name: FuncMCP, Description: "MCP endpoint (Streamable HTTP, stateless): the four tools for AI agents",
			Route: &Route{Method: "POST", Path: "/api/mcp", Auth: AuthOperator},
			Tables: authenticatedTables(TableGrant{Processed, Read}, TableGrant{Tenants, Read}, TableGrant{Governance, Read},
				TableGrant{Audit, Append}, TableGrant{AIRecords, ReadWrite}),
			InvokesAI: true, Timeout: 30 * time.Second, MemoryMB: 512},
	)
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

// Flow function names: the unified flow write path and its settings.
const (
	FuncFlowEvent     = "flow-event"
	FuncFlowRunsList  = "flow-runs-list"
	FuncFlowRunDetail = "flow-run-detail"
	FuncFlowStatus    = "flow-status"
	FuncFlowsList     = "flow-settings-list"
	FuncFlowDetail    = "flow-settings-detail"
	FuncFlowPut       = "flow-settings-put"
	FuncFlowDelete    = "flow-settings-delete"
	FuncFlowXRefs     = "flow-xrefs"
	FuncFlowXRefFix   = "flow-xref-fix"
	FuncFlowDryRun    = "flow-settings-dry-run"
	FuncFlowMetadata  = "flow-settings-metadata"
	FuncFlowRedrive   = "flow-redrive"
	FuncFlowPoll      = "flow-poll"
)

// FlowRedriveInterval is how often retrying flow runs are attempted again.
const FlowRedriveInterval = 5 * time.Minute

func withGrant(f Function, g TableGrant) Function {
	f.Tables = append(f.Tables, g)
	return f
}

func withOpens(f Function) Function {
	f.OpensSecrets = true
	return f
}

func withTimeout(f Function, d time.Duration) Function {
	f.Timeout = d
	return f
}

// Flow routes. A change event runs flows, whose writes go through the guard (the
// governance table, the alerts) and whose permanent failures become sync errors (the
// processed table and the diagnosis queue). Runs are read by operators; flows are
// settings, read and changed by admins.
func init() {
	const settings = "/api/settings/flows"
	writer := func(f Function) Function {
		f.Tables = append(f.Tables, TableGrant{Flows, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append},
			TableGrant{Governance, ReadWrite}, TableGrant{Processed, ReadWrite})
		f.SendsTo, f.PublishesAlerts, f.Timeout, f.MemoryMB = []Queue{Diagnosis}, true, 30*time.Second, 256
		return f
	}
	// Runs and the status are the embedded integration-status module's; flows (their
	// mappings) are the field-mapping module's, for admins.
	route := func(name, desc, method, path string, auth Auth, access Access) Function {
		tables := []TableGrant{{Flows, access}}
		if access == ReadWrite {
			tables = append(tables, TableGrant{Audit, Append})
		}
		module := "field-mapping"
		if auth == AuthOperator {
			module = "integration-status"
		}
		return Function{Name: name, Description: desc, Route: &Route{Method: method, Path: path, Auth: auth, Module: module},
			Tables: authenticatedTables(tables...), Timeout: 10 * time.Second, MemoryMB: 256}
	}
	Functions = append(Functions,
		writer(Function{Name: FuncFlowEvent, Description: "Runs the tenant's flows for a source system's change event (signed)",
			Route: &Route{Method: "POST", Path: "/api/flows/events/{system}", Auth: AuthSigned}, Verifies: FlowSourcePurposes}),
		writer(Function{Name: FuncFlowRedrive, Description: "Every 5 minutes: retries flow runs and sync errors whose transient failure is due",
			Schedule: FlowRedriveInterval}),
		// The poll reads source systems (a page and, for NetSuite, a read per record) and
		// writes each change through the guard, so it gets minutes rather than seconds.
		withTimeout(writer(Function{Name: FuncFlowPoll, Description: "Every 30 minutes: runs poll flows for the records their source systems changed",
			Schedule: ReconcileInterval}), 5*time.Minute),
		route(FuncFlowRunsList, "Lists flow runs, newest first", "GET", "/api/flows/runs", AuthOperator, Read),
		route(FuncFlowRunDetail, "Shows one flow run", "GET", "/api/flows/runs/{id}", AuthOperator, Read),
		route(FuncFlowXRefs, "Shows a record's counterparts in other systems (the flows' cross-reference)", "GET", "/api/flows/xrefs", AuthOperator, Read),
		route(FuncFlowStatus, "Summarises recent flow runs per target system (health) and per flow", "GET", "/api/flows/status", AuthOperator, Read),
		route(FuncFlowsList, "Lists the tenant's flows (admins)", "GET", settings, AuthAdmin, Read),
		route(FuncFlowDetail, "Shows one flow (admins)", "GET", settings+"/{id}", AuthAdmin, Read),
		withGrant(route(FuncFlowPut, "Creates or replaces a flow and names the cycles it closes (admins)", "PUT", settings+"/{id}", AuthAdmin, ReadWrite),
			// The ownership manifest names who owns each field of a cycle.
			TableGrant{Governance, Read}),
		route(FuncFlowDelete, "Deletes a flow (admins)", "DELETE", settings+"/{id}", AuthAdmin, ReadWrite),
		// The fix-up writes the cross-reference (the flows table) and nothing at the systems.
		route(FuncFlowXRefFix, "Links, re-links or unlinks a record's counterpart by hand, audited (admins)", "PUT", "/api/flows/xrefs",
			AuthAdmin, ReadWrite),
		// The dry run and the metadata read the systems through the tenant's connectors
		// (their credentials) and write nothing there; the dry run reads the manifest and
		// the ledger for the guard's verdict, the metadata caches in the flows table.
		connectorReader(withGrant(route(FuncFlowDryRun, "Runs a flow on one record without writing: target, field diff, the guard's verdicts (admins)",
			"POST", settings+"/{id}/dry-run", AuthAdmin, Read), TableGrant{Governance, Read})),
		connectorReader(route(FuncFlowMetadata, "Lists a vendor's entities or an entity's fields for the flow editor, cached (admins)",
			"GET", "/api/settings/connectors/{system}/metadata", AuthAdmin, ReadWrite)),
	)
}

// connectorReader marks a route that reads the systems through the tenants' connectors:
// it opens their credentials, and reads the tenant's connectors (beyond whether it exists).
func connectorReader(f Function) Function {
	f.OpensSecrets, f.Timeout = true, 30*time.Second
	for i, g := range f.Tables {
		if g.Table.Name == TableTenants {
			f.Tables[i].Access = Read
		}
	}
	return f
}

// Settings function names: a tenant's flags, connectors, manifest overrides and secrets.
const (
	FuncSettingsGet       = "settings-get"
	FuncSettingsPatch     = "settings-patch"
	FuncSettingsOverrides = "settings-manifest-overrides"
	FuncSettingsRotate    = "settings-secret-rotate"
	FuncConnectorTest     = "settings-connector-test"
	// The tenant's system names: the names its hosts send for its systems (issue 33 §4).
	FuncSystemAliasesGet = "settings-system-aliases-get"
	FuncSystemAliasesPut = "settings-system-aliases-put"
)

// Settings routes, admins only. A change seals connector tokens and a rotation secrets
// (neither opens one); manifest overrides live in the governance table. The embedded settings module reaches the read
// and the change of settings (where an embedded session may change flags only); manifest
// overrides and secret rotation are for signed-in admins.
func init() {
	route := func(name, desc, method, path string, tables ...TableGrant) Function {
		module := ""
		if path == "/api/settings" {
			module = "settings"
		}
		return Function{Name: name, Description: desc, Route: &Route{Method: method, Path: path, Auth: AuthAdmin, Module: module},
			Tables: authenticatedTables(tables...), Timeout: 15 * time.Second, MemoryMB: 256,
			SealsSecrets: name == FuncSettingsPatch || name == FuncSettingsRotate}
	}
	Functions = append(Functions,
		route(FuncSettingsGet, "Shows the tenant's settings, connectors (no credentials) and secret dates (admins)", "GET", "/api/settings",
			TableGrant{Tenants, Read}, TableGrant{Governance, Read}),
		route(FuncSettingsPatch, "Changes the tenant's settings and connectors, validated and audited (admins)", "PATCH", "/api/settings",
			TableGrant{Tenants, ReadWrite}, TableGrant{Governance, Read}, TableGrant{Audit, Append}),
		route(FuncSettingsOverrides, "Replaces the tenant's ownership manifest overrides (admins)", "PUT", "/api/settings/manifest-overrides",
			TableGrant{Tenants, Read}, TableGrant{Governance, ReadWrite}, TableGrant{Audit, Append}),
		route(FuncSettingsRotate, "Rotates a host secret; the previous one verifies for 24 hours (admins)", "POST", "/api/settings/webhook-secret/rotate",
			TableGrant{Tenants, ReadWrite}, TableGrant{Governance, Read}, TableGrant{Audit, Append}),
		// The check opens the connector's credential and makes one read with it.
		withOpens(route(FuncConnectorTest, "Checks a connector: one harmless authenticated read through the SSRF guard, audited (admins)",
			"POST", "/api/settings/connectors/{system}/test", TableGrant{Tenants, Read}, TableGrant{Audit, Append})),
		// The names are plain attributes: reading them needs no secret-bearing read.
		route(FuncSystemAliasesGet, "Shows the tenant's system names: its own and the defaults (admins)", "GET",
			"/api/settings/system-aliases", TableGrant{Tenants, SettingsOnly}),
		route(FuncSystemAliasesPut, "Replaces the tenant's own system names, validated and audited (admins)", "PUT",
			"/api/settings/system-aliases", TableGrant{Tenants, ReadWrite}, TableGrant{Audit, Append}),
	)
}
