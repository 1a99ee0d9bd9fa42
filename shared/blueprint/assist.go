package blueprint

import "time"

// Approval policy, learning and automation function names (README "Approval policy and
// learning").
const (
	FuncApprovalPolicyGet = "approval-policy-get"
	FuncApprovalPolicyPut = "approval-policy-put"
	FuncKnowledgeList     = "knowledge-list"
	FuncKnowledgePut      = "knowledge-put"
	FuncKnowledgeDelete   = "knowledge-delete"
	FuncProposalRevert    = "proposal-revert"
	FuncAutomationList    = "automation-list"
	FuncInsights          = "sync-error-insights"
)

// The policy and the knowledge are settings of the queue, kept in the processed table
// beside its rows, for signed-in admins. Revert writes through the guard like approve;
// the automation list and the insights read the queue.
var assistFunctions = []Function{
	{Name: FuncApprovalPolicyGet, Description: "Shows the tenant's approval policy (admins)",
		Route:  &Route{Method: "GET", Path: "/api/settings/approval-policy", Auth: AuthAdmin},
		Tables: []TableGrant{{&Processed, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncApprovalPolicyPut, Description: "Replaces the tenant's approval policy, validated whole and audited (admins)",
		Route:  &Route{Method: "PUT", Path: "/api/settings/approval-policy", Auth: AuthAdmin},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncKnowledgeList, Description: "Lists what the tenant learned from decisions (admins)",
		Route:  &Route{Method: "GET", Path: "/api/settings/knowledge", Auth: AuthAdmin},
		Tables: []TableGrant{{&Processed, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncKnowledgePut, Description: "Corrects a learned fix (admins)",
		Route:  &Route{Method: "PUT", Path: "/api/settings/knowledge/{id}", Auth: AuthAdmin},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncKnowledgeDelete, Description: "Forgets a learned fix (admins)",
		Route:  &Route{Method: "DELETE", Path: "/api/settings/knowledge/{id}", Auth: AuthAdmin},
		Tables: []TableGrant{{&Processed, ReadWrite}, {&Audit, Append}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncProposalRevert,
		Description: "Reverts an approved fix within 24 hours where the record still holds it, through the guard (approvers)",
		Route:       &Route{Method: "POST", Path: proposalsPath + "/{id}/revert", Auth: AuthApprover, Module: "sync-errors"},
		Tables:      []TableGrant{{&Processed, ReadWrite}, {&Tenants, Read}, {&Audit, Append}, {&Governance, ReadWrite}},
		Timeout:     30 * time.Second, MemoryMB: 256, PublishesAlerts: true},
	{Name: FuncAutomationList, Description: "Lists what auto rules applied or, in shadow, would have applied",
		Route:  &Route{Method: "GET", Path: "/api/sync-error-assist/automation", Auth: AuthOperator, Module: "sync-errors"},
		Tables: []TableGrant{{&Processed, Read}}, Timeout: 10 * time.Second, MemoryMB: 256},
	{Name: FuncInsights,
		Description: "Counts the window's sync errors by class and outcome, and each auto rule's agreement with people",
		Route:       &Route{Method: "GET", Path: "/api/sync-error-assist/insights", Auth: AuthOperator, Module: "sync-errors"},
		Tables:      []TableGrant{{&Processed, Read}, {&Tenants, SettingsOnly}}, Timeout: 10 * time.Second, MemoryMB: 256},
}
