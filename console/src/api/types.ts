// The API's shapes, generated from the OpenAPI document (npm run console:types writes
// schema.d.ts), so a change on either side fails the type-check. Demo data is typed by
// them too, so it cannot drift.
import type { components } from "./schema";

type S = components["schemas"];

export type Role = "operator" | "approver" | "admin";
export type Problem = S["Problem"];
export type ProposalSummary = S["ProposalSummary"];
export type ProposalList = S["ProposalList"];
export type SystemChoice = NonNullable<ProposalList["systems"]>[number];
export type FieldChange = S["FieldChange"];
export type HistoryEntry = S["HistoryEntry"];
export type Proposal = S["Proposal"];
export type ApproveWritten = S["ApproveWritten"];
export type CoApprovalPending = S["CoApprovalPending"];
export type ApproveOutcomeUnknown = S["ApproveOutcomeUnknown"];
export type ProposalGroup = S["ProposalGroup"];
export type ProposalGroupList = S["ProposalGroupList"];
export type BulkItemResult = S["BulkItemResult"];
export type BulkDecisionResult = S["BulkDecisionResult"];
export type FinanceApproval = S["FinanceApproval"];
export type GovernanceApproval = S["GovernanceApproval"];
export type OwnershipRejection = S["OwnershipRejection"];
export type LoopDetection = S["LoopDetection"];
export type AuditRecord = S["AuditRecord"];
export type AuditList = S["AuditList"];
export type Trace = S["Trace"];
export type CostRecord = S["CostRecord"];
export type CostList = S["CostList"];
export type Flow = S["Flow"];
export type FlowRun = S["FlowRun"];
export type FlowStatus = S["FlowStatus"];
export type FlowInput = S["FlowInput"];
export type FlowSaved = S["FlowSaved"];
export type FlowCycle = S["FlowCycle"];
export type FlowCycleField = S["FlowCycleField"];
export type FlowSystem = S["FlowSystem"];
export type FlowXRef = S["FlowXRef"];
export type FlowXRefList = S["FlowXRefList"];
export type FieldError = S["FieldError"];
export type NavCounts = S["NavCounts"];
export type Settings = S["Settings"];
export type SettingsPatch = S["SettingsPatch"];
export type ManifestOverride = S["ManifestOverride"];
export type SecretRotation = S["SecretRotation"];
export type SecretPurpose = SecretRotation["purpose"];
export type Automation = S["Automation"];
export type Insights = S["Insights"];
export type InsightCounts = S["InsightCounts"];
export type RuleInsight = S["RuleInsight"];
export type ApprovalPolicy = S["ApprovalPolicy"];
export type PolicyRule = S["PolicyRule"];
export type PolicyMatch = S["PolicyMatch"];
export type Knowledge = S["Knowledge"];
export type SystemAliases = S["SystemAliases"];

/** List is the envelope every paged listing shares. */
export interface List<T> {
  items: T[];
  nextCursor: string | null;
}
