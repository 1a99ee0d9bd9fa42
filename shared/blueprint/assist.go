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
func init() {
	const proposals = "/api/sync-error-assist/proposals"
	fn := func(name, desc, method, path string, auth Auth, module string, tables ...TableGrant) Function {
		return Function{Name: name, Description: desc, Route: &Route{Method: method, Path: path, Auth: auth, Module: module},
			Tables: authenticatedTables(tables...), Timeout: 10 * time.Second, MemoryMB: 256}
	}
	change := []TableGrant{{Processed, ReadWrite}, {Audit, Append}}
	revert := fn(FuncProposalRevert, "Reverts an approved fix within 24 hours where the record still holds it, through the guard (approvers)",
		"POST", proposals+"/{id}/revert", AuthApprover, "sync-errors",
		TableGrant{Processed, ReadWrite}, TableGrant{Tenants, Read}, TableGrant{Audit, Append}, TableGrant{Governance, ReadWrite})
	revert.Timeout, revert.PublishesAlerts = 30*time.Second, true
	Functions = append(Functions,
		fn(FuncApprovalPolicyGet, "Shows the tenant's approval policy (admins)", "GET", "/api/settings/approval-policy", AuthAdmin, "",
			TableGrant{Processed, Read}),
		fn(FuncApprovalPolicyPut, "Replaces the tenant's approval policy, validated whole and audited (admins)", "PUT",
			"/api/settings/approval-policy", AuthAdmin, "", change...),
		fn(FuncKnowledgeList, "Lists what the tenant learned from decisions (admins)", "GET", "/api/settings/knowledge", AuthAdmin, "",
			TableGrant{Processed, Read}),
		fn(FuncKnowledgePut, "Corrects a learned fix (admins)", "PUT", "/api/settings/knowledge/{id}", AuthAdmin, "", change...),
		fn(FuncKnowledgeDelete, "Forgets a learned fix (admins)", "DELETE", "/api/settings/knowledge/{id}", AuthAdmin, "", change...),
		revert,
		fn(FuncAutomationList, "Lists what auto rules applied or, in shadow, would have applied", "GET",
			"/api/sync-error-assist/automation", AuthOperator, "sync-errors", TableGrant{Processed, Read}),
		fn(FuncInsights, "Counts the window's sync errors by class and outcome, and each auto rule's agreement with people", "GET",
			"/api/sync-error-assist/insights", AuthOperator, "sync-errors", TableGrant{Processed, Read}, TableGrant{Tenants, SettingsOnly}),
	)
}
