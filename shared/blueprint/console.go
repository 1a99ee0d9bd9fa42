package blueprint

import "time"

// AuthPublic routes take no credentials: the console's static assets and the API
// description. They hold nothing a tenant owns.
const AuthPublic Auth = ""

// Console, API description and the routes the console needs beyond the operator queue.
const (
	FuncConsole        = "console"
	FuncOpenAPI        = "openapi"
	FuncAITraces       = "ai-traces-list"
	FuncAICosts        = "ai-costs-list"
	FuncProposalGroups = "proposal-groups"
	FuncProposalsBulk  = "proposals-bulk"
	FuncProposalTriage = "proposal-triage"
	FuncConsoleCounts  = "console-counts"
)

// ConsoleRoute serves the single-page console and its assets. ServeMux's "{path...}" also
// matches "/"; API Gateway's greedy "{path+}" does not, so the stack routes the prefix too.
var ConsoleRoute = Route{Method: "GET", Path: "/{path...}", Auth: AuthPublic}

// VersionPath answers the build's version stamp. It has no route of its own: the console's
// catch-all route brings it to the console function, which answers it.
const VersionPath = "/api/version"

// OpenAPIRoute serves the API's OpenAPI 3.1 document.
var OpenAPIRoute = Route{Method: "GET", Path: "/api/openapi.json", Auth: AuthPublic}

// UnroutedFunction is behind the deployed API's $default route: it answers what no route
// matches as the local stack answers it (405 with Allow on a routed path, 404 elsewhere;
// platform.Unrouted). The OpenAPI function does: public, small, and it holds no data.
const UnroutedFunction = FuncOpenAPI

// The console's own functions and the routes it needs beyond the operator queue.
var consoleFunctions = []Function{
	{Name: FuncConsole, Description: "Serves the operator console (static, embedded assets; each tenant's frame-ancestors)",
		Route: &ConsoleRoute, Tables: []TableGrant{{&Tenants, SettingsOnly}},
		Timeout: 5 * time.Second, MemoryMB: 128},
	{Name: FuncOpenAPI, Description: "Serves the API's OpenAPI 3.1 document",
		Route: &OpenAPIRoute, Timeout: 5 * time.Second, MemoryMB: 128},
	{Name: FuncAITraces, Description: "Lists the reasoning traces of a sync error's inferences (approvers)",
		Route:  &Route{Method: "GET", Path: "/api/ai/traces", Auth: AuthApprover, Module: "audit"},
		Tables: []TableGrant{{&AIRecords, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncAICosts, Description: "Lists the cost records of a sync error's inferences (approvers)",
		Route:  &Route{Method: "GET", Path: "/api/ai/costs", Auth: AuthApprover, Module: "audit"},
		Tables: []TableGrant{{&AIRecords, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncProposalGroups, Description: "Groups pending proposals that share a diagnosis (class, field, proposed value)",
		Route: &Route{Method: "GET", Path: "/api/sync-error-assist/proposal-groups", Auth: AuthOperator, Module: "sync-errors"},
		// The system filter reads the tenant's system names (plain attributes only).
		Tables: []TableGrant{{&Processed, Read}, {&Tenants, SettingsOnly}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncProposalsBulk,
		Description: "Approves (as the approval policy allows), rejects, retries or resolves a group of proposals, each through its own route",
		Route:       &Route{Method: "POST", Path: proposalsPath + "/bulk", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite},
			{&Flows, ReadWrite}},
		SendsTo: []Queue{Diagnosis}, OpensSecrets: true, PublishesAlerts: true, Timeout: 30 * time.Second, MemoryMB: 512},
	{Name: FuncProposalTriage, Description: "Assigns, tags or notes a sync error (audited; notes are DLP-masked)",
		Route:   &Route{Method: "POST", Path: proposalsPath + "/{id}/triage", Auth: AuthOperator, Module: "sync-errors"},
		Tables:  []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}, {&Tenants, Read}},
		Timeout: 10 * time.Second, MemoryMB: 256},
	// The nav's badges in one request instead of three listings. Embedded sessions show
	// one module and no navigation, so the route has no module.
	{Name: FuncConsoleCounts, Description: "Counts what waits in the queue, finance and governance for the console's navigation",
		Route:   &Route{Method: "GET", Path: "/api/console/counts", Auth: AuthOperator},
		Tables:  []TableGrant{{&Processed, Read}, {&FinanceApprovals, Read}, {&Governance, Read}},
		Timeout: 10 * time.Second, MemoryMB: 256},
}
