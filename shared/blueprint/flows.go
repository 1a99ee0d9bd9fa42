package blueprint

import "time"

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

// Flow routes. A change event runs flows, whose writes go through the guard (the
// governance table, the alerts) and whose permanent failures become sync errors (the
// processed table and the diagnosis queue). Runs are read by operators; flows are
// settings, read and changed by admins. Runs and the status are the embedded
// integration-status module's; flows (their mappings) are the field-mapping module's, for
// admins. A route that changes the flows table also appends to the audit log.
const flowSettingsPath = "/api/settings/flows"

// flowWriterTables are the grants of a function that runs flows.
var flowWriterTables = []TableGrant{{&Flows, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite},
	{&Processed, ReadWrite}}

var flowFunctions = []Function{
	{Name: FuncFlowEvent, Description: "Runs the tenant's flows for a source system's change event (signed)",
		Route: &Route{Method: "POST", Path: "/api/flows/events/{system}", Auth: AuthSigned}, Verifies: FlowSourcePurposes,
		Tables: flowWriterTables, SendsTo: []Queue{Diagnosis}, PublishesAlerts: true, Timeout: 30 * time.Second, MemoryMB: 256},
	{Name: FuncFlowRedrive, Description: "Every 5 minutes: retries flow runs and sync errors whose transient failure is due",
		Schedule: FlowRedriveInterval,
		Tables:   flowWriterTables, SendsTo: []Queue{Diagnosis}, PublishesAlerts: true, Timeout: 30 * time.Second, MemoryMB: 256},
	// The poll reads source systems (a page and, for NetSuite, a read per record) and
	// writes each change through the guard, so it gets minutes rather than seconds.
	{Name: FuncFlowPoll, Description: "Every 30 minutes: runs poll flows for the records their source systems changed",
		Schedule: ReconcileInterval,
		Tables:   flowWriterTables, SendsTo: []Queue{Diagnosis}, PublishesAlerts: true, Timeout: 5 * time.Minute, MemoryMB: 256},
	{Name: FuncFlowRunsList, Description: "Lists flow runs, newest first",
		Route:  &Route{Method: "GET", Path: "/api/flows/runs", Auth: AuthOperator, Module: "integration-status"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowRunDetail, Description: "Shows one flow run",
		Route:  &Route{Method: "GET", Path: "/api/flows/runs/{id}", Auth: AuthOperator, Module: "integration-status"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowXRefs, Description: "Shows a record's counterparts in other systems (the flows' cross-reference)",
		Route:  &Route{Method: "GET", Path: "/api/flows/xrefs", Auth: AuthOperator, Module: "integration-status"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowStatus, Description: "Summarises recent flow runs per target system (health) and per flow",
		Route:  &Route{Method: "GET", Path: "/api/flows/status", Auth: AuthOperator, Module: "integration-status"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowsList, Description: "Lists the tenant's flows (admins)",
		Route:  &Route{Method: "GET", Path: flowSettingsPath, Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowDetail, Description: "Shows one flow (admins)",
		Route:  &Route{Method: "GET", Path: flowSettingsPath + "/{id}", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	// The ownership manifest (the governance table) names who owns each field of a cycle.
	{Name: FuncFlowPut, Description: "Creates or replaces a flow and names the cycles it closes (admins)",
		Route:  &Route{Method: "PUT", Path: flowSettingsPath + "/{id}", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, ReadWrite}, {&Audit, Append}, {&Governance, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncFlowDelete, Description: "Deletes a flow (admins)",
		Route:  &Route{Method: "DELETE", Path: flowSettingsPath + "/{id}", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
	// The fix-up writes the cross-reference (the flows table) and nothing at the systems.
	{Name: FuncFlowXRefFix, Description: "Links, re-links or unlinks a record's counterpart by hand, audited (admins)",
		Route:  &Route{Method: "PUT", Path: "/api/flows/xrefs", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
	// The dry run and the metadata read the systems through the tenant's connectors: they
	// open their credentials (OpensSecrets) and read the tenant's connectors (Tenants Read,
	// beyond whether it exists), and write nothing there. The dry run reads the manifest and
	// the ledger for the guard's verdict, the metadata caches in the flows table.
	{Name: FuncFlowDryRun, Description: "Runs a flow on one record without writing: target, field diff, the guard's verdicts (admins)",
		Route:  &Route{Method: "POST", Path: flowSettingsPath + "/{id}/dry-run", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, Read}, {&Tenants, Read}, {&Governance, Read}}, OpensSecrets: true,
		Timeout: 30 * time.Second, MemoryMB: 256},
	{Name: FuncFlowMetadata, Description: "Lists a vendor's entities or an entity's fields for the flow editor, cached (admins)",
		Route:  &Route{Method: "GET", Path: "/api/settings/connectors/{system}/metadata", Auth: AuthAdmin, Module: "field-mapping"},
		Tables: []TableGrant{{&Flows, ReadWrite}, {&Audit, Append}, {&Tenants, Read}}, OpensSecrets: true,
		Timeout: 30 * time.Second, MemoryMB: 256},
}
