// The API's shapes as the console reads them. They follow the OpenAPI document
// (shared/apidoc/openapi.json); the demo data is typed by them, so it cannot drift.

export type Role = "operator" | "approver" | "admin";

export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
  correlationId?: string;
  errors?: { field: string; message: string }[];
}

export interface ProposalSummary {
  id: string;
  errorId: string;
  recordType: string;
  recordId: string;
  errorCode: string;
  message: string;
  status: "pending" | "applying" | "approved" | "rejected" | "escalated";
  diagnosis: "queued" | "diagnosing" | "ready" | "failed";
  class?: string;
  confidence?: number;
  claimedAt: string;
}

export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

export interface HistoryEntry {
  at: string;
  actor: string;
  action: string;
  note?: string;
}

export interface Proposal extends ProposalSummary {
  error: {
    errorCode: string;
    message: string;
    integration?: string;
    externalSystem?: string;
    occurredAt: string;
    payload?: Record<string, unknown>;
  };
  proposal: {
    class: string;
    summary: string;
    fix: FieldChange[];
    rationale: string;
    confidence: number;
    traceId: string;
    retryable?: boolean;
  } | null;
  editedFix?: FieldChange[];
  diagnosisError?: string;
  applyError?: string;
  history: HistoryEntry[];
  updatedAt: string;
}

export interface List<T> {
  items: T[];
  nextCursor: string | null;
}

export interface ProposalGroup {
  key: string;
  class: string;
  changes: { path: string; after: unknown }[];
  count: number;
  ids: string[];
  errorIds: string[];
  sample: { id: string; errorId: string; recordType: string; recordId: string; errorCode: string; message: string };
}

export interface ProposalGroupList {
  items: ProposalGroup[];
  scanned: number;
  truncated: boolean;
}

export interface BulkItemResult {
  id: string;
  status: number;
  outcome: "approved" | "rejected" | "failed" | "skipped";
  row?: Proposal;
  problem?: Problem;
}

export interface BulkDecisionResult {
  results: BulkItemResult[];
  succeeded: number;
  failed: number;
}

export interface FinanceApproval {
  id: string;
  erpId: string | null;
  status: "pending" | "applying" | "accepted" | "rejected";
  entity: string;
  amount: string;
  currency: string;
  vendor: string;
  description: string;
  requestedBy: string;
  leaseExpiresAt: string | null;
  lastError: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
  updatedAt?: string;
}

export interface GovernanceApproval {
  id: string;
  time: string;
  tenant: string;
  entity: string;
  declaredOwner: string;
  caller: string;
  target: string;
  resource: string;
  reason: string;
  status: string;
  fields: string[];
  correlationId: string;
  requestedBy: string;
  writeReason?: string;
}

export interface OwnershipRejection {
  id: string;
  time: string;
  entity: string;
  declaredOwner: string;
  caller: string;
  target: string;
  resource: string;
  policy: string;
  correlationId: string;
  fields: string[];
}

export interface LoopDetection {
  id: string;
  time: string;
  entity: string;
  caller: string;
  target: string;
  resource: string;
  breakingCondition: string;
  correlationId: string;
}

export interface AuditRecord {
  id: string;
  at: string;
  actor: { actor?: string; tenantId?: string; roles?: string[] };
  actionType: string;
  actionKey: string;
  result: string;
  resource: string;
  correlationId: string;
  details?: unknown;
}

export interface Trace {
  inferenceId: string;
  claimId?: string;
  operation: string;
  provider: string;
  model: string;
  prompt?: unknown;
  response?: unknown;
  startedAt: string;
  steps: { operation: string; model: string; inputTokens: number; outputTokens: number; error?: string }[];
  dlpFindings?: Record<string, number>;
}

export interface CostRecord {
  inferenceId: string;
  operation: string;
  model: string;
  costUsd: number;
  at: string;
}

export interface CostList extends List<CostRecord> {
  totalUsd: number;
}
