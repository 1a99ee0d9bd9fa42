import { expect, test } from "@playwright/test";
import { accessible, signIn } from "./support/browser";
import { api, base, DEMO_FINANCE_SECRET, postSyncError, signedHeaders, token, waitDiagnosed } from "./support/stack";

test("finance: approve ends accepted, a row without an ERP id goes back with the reason, reject asks a reason", async ({ page }) => {
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Finance" }).click();
  await accessible(page, "finance");

  const badge = page.getByRole("listitem").filter({ has: page.getByRole("link", { name: "Finance" }) }).locator(".count");
  await expect(badge).toHaveAttribute("title", /^\d+ pending$/);
  const pending = Number((await badge.getAttribute("title"))!.split(" ")[0]);
  await page.getByRole("cell", { name: "FA-2026-0141" }).click();
  const d = page.getByRole("region", { name: "FA-2026-0141" });
  await d.getByRole("button", { name: "Approve" }).click();
  // €12,480 is above the tenant's confirmation amount (finance_ops.confirm_above, 10000 by
  // default): the API changed nothing, and the approver is asked with amount and currency.
  const ask = page.getByRole("dialog", { name: "Approve FA-2026-0141?" });
  await expect(ask).toContainText("€12,480.00 for Nordwind Logistik GmbH");
  await accessible(page, "finance confirm");
  await ask.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Approved FA-2026-0141: accepted" })).toBeAttached();
  await expect(d.getByText("accepted", { exact: true })).toBeVisible();
  await expect(page.getByRole("cell", { name: "FA-2026-0141" })).toHaveCount(0); // no longer pending
  await expect(badge).toHaveAttribute("title", `${pending - 1} pending`); // the nav count follows at once

  // Without an ERP id there is nothing to update: no Approve, and the reason is said.
  await page.getByRole("cell", { name: "FA-2026-0144" }).click();
  const bad = page.getByRole("region", { name: "FA-2026-0144" });
  await expect(bad.getByText("Approve is not offered: this approval names no ERP record")).toBeVisible();
  await expect(bad.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(bad.getByText("pending", { exact: true })).toBeVisible();

  await page.getByRole("cell", { name: "FA-2026-0143" }).click();
  await page.getByRole("region", { name: "FA-2026-0143" }).getByRole("button", { name: "Reject" }).click();
  const dialog = page.getByRole("dialog", { name: "Reject finance approval" });
  await dialog.getByLabel("Reason").fill("Hotel above the travel policy");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("region", { name: "FA-2026-0143" }).getByText("rejected", { exact: true })).toBeVisible();
});

test("governance: the three tabs, as the spec's dashboard asks", async ({ page }) => {
  const asked: string[] = [];
  page.on("request", (r) => asked.push(r.url()));
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Governance" }).click();
  await expect(page.getByRole("tab", { name: "Pending approvals" })).toHaveAttribute("aria-selected", "true");
  await expect.poll(() => asked.some((u) => u.includes("/api/governance/approvals?reason=ownership&status=pending"))).toBe(true);
  await accessible(page, "governance pending");
  for (const tab of ["Ownership rejections", "Loop detections"]) {
    await page.getByRole("tab", { name: tab }).click();
    await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
    await accessible(page, "governance " + tab);
  }
});

test("audit: filter by action type", async ({ page }) => {
  await waitDiagnosed(await postSyncError(`E2E-AUDIT-${Date.now()}`)); // leaves ai.inference records
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Audit" }).click();
  await page.getByLabel("Action type").selectOption("ai");
  await expect(page.getByRole("cell", { name: "ai.inference" }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: "syncerror.approve" })).toHaveCount(0);
  await accessible(page, "audit");
});

// A host-ERP update of a contact's marketingOptIn, which the manifest gives to the
// marketing platform under require_approval, is held for an approver other than the one
// who asked for it.
async function heldApproval(tag: string): Promise<string> {
  const approvalId = `FA-HELD-${tag}-${Date.now()}`;
  const body = JSON.stringify({ approvalId, erpId: "CT-3001", entity: "contact", amount: "0", currency: "EUR",
    vendor: "n/a", description: "opt-in change from the web form", fields: { marketingOptIn: true } });
  const created = await fetch(base() + "/api/finance-ops/approvals", { method: "POST", headers: signedHeaders(body, DEMO_FINANCE_SECRET), body });
  expect(created.status).toBe(201);
  // Requested by the admin: four eyes, the console's approver may release it.
  const t = await token("admin");
  const r = await fetch(`${base()}/api/finance-ops/approvals/${approvalId}/approve`, { method: "POST", headers: { Authorization: "Bearer " + t } });
  const p = (await r.json()) as { code: string; detail: string };
  expect(p.code).toBe("ownership_approval_required");
  return /\((ap_[a-z0-9]+)\)/.exec(p.detail)![1];
}

test("governance: an approver releases one held write and denies another", async ({ page }) => {
  const release = await heldApproval("A");
  const deny = await heldApproval("D");
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Governance" }).click();
  const rows = page.getByRole("row").filter({ hasText: "hosterp/contact/CT-3001" });
  await expect(rows).toHaveCount(2);
  await rows.first().getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Approved the held write" })).toBeAttached();
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole("button", { name: "Deny" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Denied the held write" })).toBeAttached();
  await expect(rows).toHaveCount(0);
  const decided = await api<{ items: { id: string; status: string }[] }>("approver", "/api/governance/approvals?reason=ownership&status=approved");
  const denied = await api<{ items: { id: string; status: string }[] }>("approver", "/api/governance/approvals?reason=ownership&status=denied");
  expect([...decided.items, ...denied.items].map((i) => i.id).sort()).toEqual(expect.arrayContaining([release, deny].sort()));
  expect(decided.items.length + denied.items.length).toBeGreaterThanOrEqual(2);
});
