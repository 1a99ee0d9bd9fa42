// Demo data of the automation panels (Auto-resolved, Insights, the approval policy and the
// knowledge), typed like demo.ts. A module of its own so that it travels in the chunks of
// the panels that show it, not in the first load.
import type { ApprovalPolicy, Automation, InsightCounts, Insights, Knowledge, List } from "./types";

const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();

export const demoAutomation = (): List<Automation> => ({
  items: [
    { claimId: "se_demo1060", errorId: "DEMO-1060", recordType: "salesOrder", recordId: "DEMO-SO-60", ruleId: "auto-country-codes", mode: "enforce", class: "value", at: ago(12), outcome: "applied",
      fix: [{ path: "shipcountry", before: "Deutschland", after: "DE" }] },
    { claimId: "se_demo1061", errorId: "DEMO-1061", recordType: "salesOrder", recordId: "DEMO-SO-61", ruleId: "auto-country-codes", mode: "enforce", class: "value", at: ago(95), outcome: "reverted",
      fix: [{ path: "shipcountry", before: "Schweiz", after: "CH" }], decidedBy: "dev-approver", decidedAt: ago(60) },
  ],
  nextCursor: null,
});

/** counts fills in the figures a row's outcomes imply, as the service computes them. */
const counts = (c: Partial<InsightCounts>): InsightCounts => {
  const r: InsightCounts = { received: 0, foldedOccurrences: 0, autoRetried: 0, resolvedByRetry: 0, resolvedByPeople: 0, rejected: 0,
    autoApplied: 0, reverted: 0, open: 0, medianSecondsToResolve: null, ...c, resolved: 0, autoResolved: 0, autoResolutionRate: null };
  r.autoResolved = r.resolvedByRetry + r.autoApplied;
  r.resolved = r.autoResolved + r.resolvedByPeople;
  r.autoResolutionRate = r.resolved ? r.autoResolved / r.resolved : null;
  return r;
};

/** demoDays spreads the demo window's 42 errors over its eight dates, adding up to the total. */
function demoDays(): Insights["daily"] {
  const per = { received: [4, 6, 5, 7, 3, 8, 6, 3], resolvedByRetry: [1, 1, 1, 2, 0, 2, 1, 0], autoApplied: [1, 1, 0, 1, 1, 1, 1, 0],
    resolvedByPeople: [2, 3, 3, 3, 1, 3, 3, 1], rejected: [0, 1, 0, 0, 0, 1, 1, 0], reverted: [0, 0, 1, 0, 0, 0, 0, 0], open: [0, 0, 0, 1, 1, 1, 0, 2] };
  return per.received.map((_, i) => ({
    date: new Date(Date.now() - (7 - i) * 86400_000).toISOString().slice(0, 10),
    ...counts(Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v[i]]))),
  }));
}

export const demoInsights = (): Insights => ({
  window: "7d", since: ago(7 * 24 * 60), truncated: false, daily: demoDays(),
  rateDefinition: "auto-resolved ÷ resolved: the sync errors a retry or an auto rule resolved (and no one reverted), out of every resolved one (by a retry, an auto rule or a person); rejected, reverted and open ones are not resolved",
  total: counts({ received: 42, foldedOccurrences: 17, autoRetried: 9, resolvedByRetry: 8, resolvedByPeople: 19, rejected: 3,
    autoApplied: 6, reverted: 1, open: 5, medianSecondsToResolve: 1380 }),
  byClass: {
    value: counts({ received: 24, foldedOccurrences: 11, resolvedByPeople: 14, autoApplied: 6, reverted: 1, rejected: 2, open: 1, medianSecondsToResolve: 900 }),
    connection: counts({ received: 9, autoRetried: 9, resolvedByRetry: 8, open: 1, medianSecondsToResolve: 2100 }),
    permission: counts({ received: 5, foldedOccurrences: 6, resolvedByPeople: 3, rejected: 1, open: 1, medianSecondsToResolve: 5400 }),
    reference: counts({ received: 4, resolvedByPeople: 2, open: 2, medianSecondsToResolve: 3000 }),
  },
  bySystem: {
    webshop: counts({ received: 30, foldedOccurrences: 12, resolvedByRetry: 3, resolvedByPeople: 15, autoApplied: 6, reverted: 1, rejected: 2, open: 3, medianSecondsToResolve: 1100 }),
    shipping: counts({ received: 12, foldedOccurrences: 5, autoRetried: 9, resolvedByRetry: 5, resolvedByPeople: 4, rejected: 1, open: 2, medianSecondsToResolve: 1900 }),
  },
  rules: [
    { ruleId: "auto-country-codes", mode: "enforce", wouldHaveApplied: 0, applied: 6, reverted: 1, same: 0, edited: 0, rejected: 0, undecided: 0, agreement: null },
    { ruleId: "shadow-zip-codes", mode: "shadow", wouldHaveApplied: 12, applied: 0, reverted: 0, same: 9, edited: 1, rejected: 1, undecided: 1, agreement: 9 / 11 },
  ],
});

export const demoPolicy = (): ApprovalPolicy => ({
  version: 0,
  rules: [
    { id: "operator-value-fixes", match: { classes: ["value", "missing"], fields: ["@proposed", "!@sensitive"] }, apply: "operator" },
    { id: "approver-everything-else", match: {}, apply: "approver" },
  ],
});

export const demoKnowledge = (): List<Knowledge> => ({
  items: [
    { id: "kn_demo1", version: 3, class: "value", errorCode: "INVALID_FIELD_VALUE", recordType: "salesOrder", field: "shipcountry",
      before: "Deutschland", value: "DE", hasValue: true, approvals: 7, rejections: 0, approvers: ["ana", "ben", "chris"],
      lastApprovedBy: "ana", lastApprovedAt: ago(40), rejected: [], updatedAt: ago(40) },
    { id: "kn_demo2", version: 2, class: "value", errorCode: "INVALID_FIELD_VALUE", recordType: "customer", field: "country",
      before: "Germany", value: null, hasValue: false, approvals: 0, rejections: 1, approvers: [],
      rejected: [{ value: "GER", reason: "not an ISO code", by: "ben", at: ago(300), count: 1 }], updatedAt: ago(300) },
  ],
  nextCursor: null,
});
