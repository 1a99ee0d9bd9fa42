// Demo data shown when a read fails, typed by the API's own types so it cannot drift. Every
// record id starts DEMO-, so none can be taken for (or looked up as) a real record.
import type { AuditRecord, FinanceApproval, Flow, FlowRun, FlowXRef, FlowXRefList, GovernanceApproval, List, LoopDetection, OwnershipRejection, Proposal, ProposalGroupList, Settings } from "./types";

const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();

export function demoProposals(): Proposal[] {
  return [
    ["DEMO-1042", "DEMO-SO-1042", "Deutschland", "DE", 4],
    ["DEMO-1043", "DEMO-SO-1043", "Deutschland", "DE", 9],
    ["DEMO-1051", "DEMO-SO-1051", "Österreich", "AT", 26],
  ].map(([errorId, recordId, before, after, min]) => ({
    id: "se_demo" + String(errorId).slice(5),
    errorId: String(errorId),
    recordType: "salesOrder",
    recordId: String(recordId),
    errorCode: "INVALID_FLD_VALUE",
    message: `Invalid shipcountry reference key ${before}`,
    status: "pending",
    diagnosis: "ready",
    class: "value",
    confidence: 0.92,
    claimedAt: ago(Number(min)),
    externalSystem: "webshop",
    retryAttempts: 0, occurrences: 1, firstSeen: ago(Number(min)), lastSeen: ago(Number(min)),
    error: { errorId: String(errorId), errorCode: "INVALID_FLD_VALUE", message: `Invalid shipcountry reference key ${before}`, occurredAt: ago(Number(min)) },
    proposal: {
      class: "value", summary: "Country name instead of ISO code", confidence: 0.92, traceId: "demo",
      rationale: "The field expects an ISO 3166 code; the value is a country name.",
      fix: [{ path: "shipcountry", before, after }],
    },
    history: [{ at: ago(Number(min)), actor: "webhook:demo", action: "claimed" }],
    notes: [],
    updatedAt: ago(Number(min)),
  }));
}

/** demoAutoApplied are the rows behind the Auto-resolved demo records (demo-assist.ts): the
 *  queue's detail shows them when one is opened from there. */
export function demoAutoApplied(): Proposal[] {
  const [base] = demoProposals();
  const row = (n: string, before: string, after: string, min: number, reverted: boolean): Proposal => {
    const fix = [{ path: "shipcountry", before, after }];
    return { ...base, id: "se_demo" + n, errorId: "DEMO-" + n, recordId: "DEMO-SO-" + n, status: reverted ? "reverted" : "approved",
      message: `Invalid shipcountry reference key ${before}`, claimedAt: ago(min + 1),
      error: { ...base.error, errorId: "DEMO-" + n, message: `Invalid shipcountry reference key ${before}`, occurredAt: ago(min + 1) },
      proposal: { ...base.proposal!, fix }, applied: { key: "demo", at: ago(min) },
      history: [{ at: ago(min + 1), actor: "webhook:demo", action: "claimed" },
        { at: ago(min), actor: "policy:auto-country-codes", action: "approved" },
        ...(reverted ? [{ at: ago(60), actor: "dev-approver", action: "reverted" }] : [])] };
  };
  return [row("1060", "Deutschland", "DE", 12, false), row("1061", "Schweiz", "CH", 95, true)];
}

export const demoProposalList = (): List<Proposal> => ({ items: demoProposals(), nextCursor: null });

export function demoGroups(): ProposalGroupList {
  const items = demoProposals().slice(0, 2);
  return {
    items: [{ key: "g_demo", class: "value", changes: [{ path: "shipcountry", after: "DE" }], count: 2,
      ids: items.map((p) => p.id), errorIds: items.map((p) => p.errorId), recordIds: items.map((p) => p.recordId),
      sample: { id: items[0].id, errorId: items[0].errorId, recordType: "salesOrder", recordId: items[0].recordId,
        errorCode: "INVALID_FLD_VALUE", message: items[0].message } }],
    needsPerson: { count: 0, ids: [], errorIds: [] },
    scanned: 3, truncated: false,
  };
}

export function demoFinance(): List<FinanceApproval> {
  return { nextCursor: null, items: [
    { id: "fa_demo1", erpId: "DEMO-VB-2201", status: "pending", entity: "vendorBill", amount: "12500.00", currency: "EUR",
      vendor: "Acme Logistics GmbH", description: "Q4 freight", requestedBy: "ap.clerk", leaseExpiresAt: null,
      lastError: null, decidedBy: null, decidedAt: null, createdAt: ago(40) },
  ] };
}

export function demoApprovals(): List<GovernanceApproval> {
  return { nextCursor: null, items: [
    { id: "ga_demo1", time: ago(12), tenant: "demo", entity: "customer", declaredOwner: "crm", caller: "hosterp",
      target: "crm", resource: "crm/customer/DEMO-C-77", reason: "ownership", status: "pending", fields: ["email"],
      correlationId: "demo", requestedBy: "dev-operator", writeReason: "approve", releaseByRetry: true },
  ] };
}

export const demoRejections = (): List<OwnershipRejection> => ({ nextCursor: null, items: [
  { id: "or_demo1", time: ago(18), entity: "item", declaredOwner: "hosterp", caller: "shipping", target: "hosterp",
    resource: "hosterp/item/DEMO-IT-9", policy: "reject_with_alert", correlationId: "demo", fields: ["weight"] },
] });

export const demoLoops = (): List<LoopDetection> => ({ nextCursor: null, items: [
  { id: "ld_demo1", time: ago(33), entity: "customer", caller: "crm", target: "hosterp", resource: "hosterp/customer/DEMO-C-77",
    breakingCondition: "same payload hash within 5m", correlationId: "demo" },
] });

export const demoAudit = (): List<AuditRecord> => ({ nextCursor: null, items: [
  { id: "au_demo1", at: ago(3), actor: { actor: "dev-approver" }, actionType: "syncerror", actionKey: "syncerror.approve",
    result: "success", resource: "syncerror/se_demo1042", correlationId: "demo" },
  { id: "au_demo2", at: ago(4), actor: { actor: "tenant:demo" }, actionType: "ai", actionKey: "ai.inference",
    result: "success", resource: "inference/se_demo1042-a1", correlationId: "demo" },
] });

const customerFlow: Pick<Flow, "source" | "target"> = {
  source: { system: "hosterp", entity: "customer" }, target: { system: "crm", entity: "Account" },
};

export function demoFlows(): { items: Flow[] } {
  return { items: [
    { id: "erp-customer-to-crm", enabled: true, ...customerFlow, trigger: "event", mapping: { Name: "companyName", Phone: "phone" }, updatedAt: ago(600) },
    { id: "crm-account-to-erp", enabled: true, source: customerFlow.target, target: customerFlow.source, trigger: "event",
      mapping: { phone: "Phone", email: "Email" }, filter: { Type: "Customer" }, updatedAt: ago(600) },
    { id: "shipping-order-to-erp", enabled: true, source: shippingOrders, target: { system: "hosterp", entity: "salesOrder" },
      trigger: "poll", mapping: { shipStatus: "orderStatus" }, updatedAt: ago(600) },
  ] };
}

const shippingOrders = { system: "shipping", entity: "orders" } as const;

export function demoFlowRuns(): List<FlowRun> {
  const run = (id: string, outcome: FlowRun["outcome"], decision: string, min: number, extra: Partial<FlowRun> = {}): FlowRun => ({
    id: "run_DEMO" + id.padEnd(22, "A"), flowId: "crm-account-to-erp", eventId: "EV-DEMO-" + id, recordId: "DEMO-C-2001",
    source: customerFlow.target, target: customerFlow.source, fields: ["email"], outcome, decision, attempts: 1,
    changedAt: ago(min), createdAt: ago(min), updatedAt: ago(min), ...extra,
  });
  return { nextCursor: null, items: [
    run("1", "failed", "the target refused the write: validation (HTTP 400, code INVALID_FLD_VALUE)", 3, { syncErrorId: "se_demo1042" }),
    run("2", "loop_broken", "same payload hash as hosterp→crm write", 12, { fields: ["phone"] }),
    run("3", "written", "written", 30, { flowId: "erp-customer-to-crm", source: customerFlow.source, target: customerFlow.target, fields: ["Phone"] }),
  ] };
}

/** demoXRefs links the demo customer both ways, whatever record was asked for. */
export function demoXRefs(src: FlowXRef["source"]): FlowXRefList {
  const other = src.system === "crm" ? customerFlow.source : customerFlow.target;
  return { items: [{ source: src, target: { ...other, id: src.system === "crm" ? "DEMO-C-2001" : "DEMO-001000000001" }, state: "linked",
    anchor: src.id, action: "created", flowId: "erp-customer-to-crm", createdAt: ago(600), updatedAt: ago(600) }] };
}

export function demoSettings(): Settings {
  const at = (min: number) => new Date(Date.now() + min * 60_000).toISOString();
  return {
    tenantId: "demo",
    settings: { "sync_error_assist.enabled": "true", "sync_error_assist.webhook_enabled": "yes",
      "embedded.allowed_roles": "operator,approver" },
    connectors: {
      hosterp: { baseUrl: "https://erp.example.com/api", hasToken: true },
      crm: { baseUrl: "https://crm.example.com", hasToken: true },
      shipping: { baseUrl: "https://ship.example.com/v2", hasToken: false },
    },
    secrets: {
      ingest: { currentSince: ago(60 * 24 * 30), retiringAt: [at(60 * 20)] },
      finance: { currentSince: ago(60 * 24 * 90), retiringAt: [] },
      embedded: { currentSince: ago(60 * 24 * 12), retiringAt: [] },
    },
    manifestOverrides: [
      { entity: "customer", field: "phone", owner: "hosterp", policy: "require_approval" },
      { entity: "shipment", owner: "shipping", policy: "source_wins" },
    ],
    updatedAt: ago(45),
  };
}
