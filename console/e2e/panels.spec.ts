import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { createHash, randomBytes } from "node:crypto";
import { api, base, call, DEMO_EMBEDDED_SECRET, DEMO_FINANCE_SECRET, erpRecord, newSalesOrder, postSyncError, signedHeaders, token, waitDiagnosed } from "./support/stack";

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
  for (const [tab, path] of [["Ownership rejections", "ownership-rejections"], ["Loop detections", "loop-detections"]]) {
    await page.getByRole("tab", { name: tab }).click();
    await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
    // Every tab reads a page of its own size and follows the cursor, never the default first page.
    await expect.poll(() => asked.some((u) => u.includes(`/api/governance/${path}?limit=50`))).toBe(true);
    await accessible(page, "governance " + tab);
  }
});

test("governance: held writes page with the API's cursors and say how many are shown", async ({ page }) => {
  await heldApproval("P1");
  await heldApproval("P2");
  // The real API answers, one row a page, so two held writes already take two pages.
  await page.route("**/api/governance/approvals?*", (r) => {
    const u = new URL(r.request().url());
    u.searchParams.set("limit", "1");
    return r.continue({ url: u.toString() });
  });
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Governance" }).click();
  const rows = page.getByRole("row").filter({ has: page.getByRole("button", { name: "Approve" }) });
  await expect(rows).toHaveCount(1);
  await expect(page.getByText("Showing 1 held write; more to load.")).toBeVisible();
  await accessible(page, "governance paged");
  const more = page.getByRole("button", { name: "Load more" });
  for (let n = 2; await more.isVisible(); n++) {
    await more.click();
    await expect(rows).toHaveCount(n);
  }
  const total = await rows.count();
  expect(total).toBeGreaterThanOrEqual(2);
  await expect(page.getByText(`Showing ${total} held writes, all there are.`)).toBeVisible();
  // Deciding one keeps the pages loaded: only that row leaves.
  await rows.first().getByRole("button", { name: "Deny" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Denied the held write" })).toBeAttached();
  await expect(rows).toHaveCount(total - 1);
  // and leaves no held write behind for the next test
  for (let n = total - 1; n > 0; n--) {
    await rows.first().getByRole("button", { name: "Deny" }).click();
    await expect(rows).toHaveCount(n - 1);
  }
  await expect(page.getByText("No held writes wait for an approver.")).toBeVisible();
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

test("audit: filter by actor, typed as an e-mail or clicked in a row, kept in the URL without the address", async ({ page }) => {
  // A host session for a user whose id is an e-mail address: the log stores the mask and a pseudonym.
  const email = `auditee.${Date.now()}@example.com`;
  const boot = JSON.stringify({ userId: email, hostAccountId: "1234567", roles: ["operator"] });
  await expect.poll(async () => (await fetch(base() + "/api/embedded/host/bootstrap", { method: "POST",
    headers: signedHeaders(boot, DEMO_EMBEDDED_SECRET), body: boot })).status, { timeout: 15_000 }).toBe(201);
  await waitDiagnosed(await postSyncError(`E2E-ACTOR-${Date.now()}`)); // records of other actors

  await signIn(page, "approver");
  await page.getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("cell", { name: "ai.inference" }).first()).toBeVisible();
  const filter = page.getByRole("search", { name: "Filter by actor" });
  await filter.getByLabel("Actor").fill(email.toUpperCase());
  await filter.getByRole("button", { name: "Filter" }).click();
  // The address is answered as the log stores it: the field, the rows and the URL show the pseudonym.
  await expect(filter.getByLabel("Actor")).toHaveValue(/^\[REDACTED:EMAIL\] ~p:[0-9a-f]{16}$/);
  const stored = await filter.getByLabel("Actor").inputValue();
  await expect(page.getByRole("cell", { name: "session.bootstrap" })).toHaveCount(1);
  await expect(page.getByRole("cell", { name: "ai.inference" })).toHaveCount(0);
  await expect(page.getByRole("row").filter({ hasText: stored })).toHaveCount(1);
  await expect.poll(() => new URL(page.url()).searchParams.get("actor")).toBe(stored);
  expect(page.url().toLowerCase()).not.toContain("example.com");
  // Typed again over its own stored form, the address is replaced again.
  await filter.getByLabel("Actor").fill(email);
  await filter.getByRole("button", { name: "Filter" }).click();
  await expect(filter.getByLabel("Actor")).toHaveValue(stored);
  await expect(page.locator("body")).not.toContainText("example.com");
  await accessible(page, "audit by actor");

  // A reload keeps the filter; combined with the action type it still holds. The URL takes
  // the actor once the log answered for it (an address typed stays out of it), so the
  // reload waits for that answer (with the axe run above skipped, the reload came first).
  await expect.poll(() => new URL(page.url()).searchParams.get("actor")).toBe(stored);
  await page.reload();
  await expect(page.getByRole("search", { name: "Filter by actor" }).getByLabel("Actor")).toHaveValue(stored);
  await page.getByLabel("Action type").selectOption("ai");
  await expect(page.getByText("No records of")).toBeVisible();
  await page.getByLabel("Action type").selectOption("");

  // Everyone again, then a click on an actor in a row filters by that actor.
  await page.getByRole("button", { name: "Everyone" }).click();
  await expect(page.getByRole("cell", { name: "ai.inference" }).first()).toBeVisible();
  const someone = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "ai.inference" }) }).first().getByRole("button");
  const who = (await someone.getAttribute("title"))!.replace(/^Show only (.*)'s records$/, "$1");
  await someone.click();
  await expect.poll(() => new URL(page.url()).searchParams.get("actor")).toBe(who);
  await expect(page.getByRole("row").filter({ hasText: stored })).toHaveCount(0);
  await expect(page.getByRole("search", { name: "Filter by actor" }).getByLabel("Actor")).toHaveValue(who);

  // A refused filter (here a shared link with an over-long actor) says which field and why.
  await page.goto("/audit?actor=" + "x".repeat(300));
  await expect(page.getByRole("alert").filter({ hasText: "The audit log could not be read." }))
    .toContainText("actor must be at most 256 characters, without control characters");
  await accessible(page, "audit refused filter");
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
  // Which system tried to write which field, who asked for it, and which rule held it.
  await expect(rows.first()).toContainText("→ hosterp: contact marketingOptIn");
  await expect(rows.first()).toContainText("finance.approve");
  await expect(rows.first()).toContainText("dev-admin");
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

/** tokenOf is a token of the dev issuer for user, who holds role (token's flow, named). */
async function tokenOf(user: string, role: "approver"): Promise<string> {
  const redirect = base() + "/auth/callback";
  const verifier = randomBytes(40).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const q = new URLSearchParams({ response_type: "code", client_id: "e2e", redirect_uri: redirect, state: "s", code_challenge: challenge,
    code_challenge_method: "S256", confirm: "1", tenant: "demo", role, user });
  const r = await fetch(base() + "/dev-issuer/authorize?" + q, { redirect: "manual" });
  const code = new URL(r.headers.get("location")!).searchParams.get("code")!;
  const t = await fetch(base() + "/dev-issuer/token", { method: "POST", body: new URLSearchParams({
    grant_type: "authorization_code", code, redirect_uri: redirect, client_id: "e2e", code_verifier: verifier }) });
  return ((await t.json()) as { access_token: string }).access_token;
}

/** approveAs approves row id as user (an approver), with body, and answers the status. */
async function approveAs(user: string, id: string, body?: unknown): Promise<number> {
  const r = await fetch(`${base()}/api/sync-error-assist/proposals/${id}/approve`, { method: "POST",
    headers: { Authorization: "Bearer " + (await tokenOf(user, "approver")), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  await r.text();
  return r.status;
}

test("two approvers: the detail shows the edit waiting for its second approver, its editor cannot approve it, and the second approval writes what it showed", async ({ page, browser }) => {
  const stamp = Date.now().toString(36);
  const system = "e2e-coappr-" + stamp;
  const rule = "e2e-four-eyes-" + stamp;
  const order = await newSalesOrder();
  const errorId = `E2E-COAPPR-${stamp}`;
  const before = await call<{ version: number; rules: unknown[] }>("admin", "GET", "/api/settings/approval-policy");
  await call("admin", "PUT", "/api/settings/approval-policy", { version: before.version,
    rules: [{ id: rule, match: { systems: [system] }, apply: "two_approvers" }, ...before.rules] });
  try {
    const id = await postSyncError(errorId, order, "INVALID_FIELD_VALUE_COAPPR", system);
    await waitDiagnosed(id);
    expect(await approveAs("anna.e2e", id, { fix: [{ path: "shipcountry", after: "AT" }] })).toBe(202); // the edit: anna's
    // Anna reads that she cannot be one of its approvers.
    const annas = await browser.newContext();
    const annaPage = await annas.newPage();
    await annaPage.goto("/queue/" + id);
    await annaPage.getByRole("button", { name: "Sign in" }).click();
    await annaPage.getByLabel("Role").selectOption("approver");
    await annaPage.getByLabel("User").fill("anna.e2e");
    await annaPage.getByRole("button", { name: "Sign in" }).click();
    const hers = annaPage.getByRole("region", { name: errorId });
    await expect(hers.getByRole("group", { name: "Waiting for a second approver" }).getByRole("definition").first()).toHaveText("you");
    await expect(hers.getByText("You edited this fix, so you cannot be one of its two approvers")).toBeVisible();
    await expect(hers.getByRole("button", { name: /^Approve this edit \(first of two\)/ })).toBeDisabled();
    await annas.close();

    expect(await approveAs("bert.e2e", id)).toBe(202); // the first approval
    await signIn(page, "approver", "/queue/" + id);
    const d = page.getByRole("region", { name: errorId });
    const round = d.getByRole("group", { name: "Waiting for a second approver" });
    await expect(round).toContainText("anna.e2e");
    await expect(round).toContainText("bert.e2e (1 of 2)");
    await expect(d.getByRole("heading", { name: "Proposed fix, as edited for two approvers" })).toBeVisible();
    await expect(d.getByLabel("Proposed value for shipcountry")).toHaveValue("AT");
    await expect(d.getByText(/Approve writes .*shipcountry.*AT/)).toBeVisible();
    await accessible(page, "two approvers waiting");
    await d.getByRole("button", { name: /^Approve and write this edit/ }).click();
    await expect(page.getByRole("status").filter({ hasText: `Approved ${errorId}` })).toBeAttached();
    expect((await erpRecord("salesOrder", order)).shipcountry).toBe("AT");
  } finally {
    const now = await call<{ version: number }>("admin", "GET", "/api/settings/approval-policy");
    await call("admin", "PUT", "/api/settings/approval-policy", { version: now.version, rules: before.rules });
  }
});
