import { expect, type Page, test } from "@playwright/test";
import { base, DEMO_EMBEDDED_SECRET, postSyncError, signedHeaders, token, waitDiagnosed } from "./support/stack";

test("embedded: the host's session shows one module and every call carries the context id", async ({ page }) => {
  const errorId = `E2E-EMB-${Date.now()}`;
  await waitDiagnosed(await postSyncError(errorId));
  const boot = JSON.stringify({ userId: "erp-user-7", hostAccountId: "1234567", roles: ["operator"] });
  const s = await fetch(base() + "/api/embedded/host/bootstrap", { method: "POST", headers: signedHeaders(boot, DEMO_EMBEDDED_SECRET), body: boot });
  expect(s.status).toBe(201);
  const { serviceToken } = (await s.json()) as { serviceToken: string };
  const c = await fetch(base() + "/api/embedded/context/bootstrap", { method: "POST",
    headers: { Authorization: "Bearer " + serviceToken, "Content-Type": "application/json" }, body: JSON.stringify({ module: "sync-errors" }) });
  expect(c.status).toBe(201);
  const { embeddedContextId } = (await c.json()) as { embeddedContextId: string };

  const calls: { url: string; ctx: string | null }[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/")) calls.push({ url: r.url(), ctx: r.headers()["x-embedded-context-id"] ?? null });
  });
  await page.goto(`/queue#serviceToken=${serviceToken}&embeddedContextId=${embeddedContextId}&module=sync-errors&roles=operator`);
  await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
  await expect(page).not.toHaveURL(/serviceToken/);
  await expect(page.getByRole("navigation", { name: "Panels" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) expect(call.ctx, call.url).toBe(embeddedContextId);
});

/** allowedRoles sets the roles a host may give embedded sessions, as an admin would. */
async function allowedRoles(roles: string): Promise<void> {
  const r = await fetch(base() + "/api/settings", { method: "PATCH", body: JSON.stringify({ settings: { "embedded.allowed_roles": roles } }),
    headers: { Authorization: "Bearer " + (await token("admin")), "Content-Type": "application/json" } });
  expect(r.status).toBe(200);
}

/** embeddedPage opens a host session with roles and a context for module, and the
 *  console inside it. */
async function embeddedPage(page: Page, module: string, roles: string[]): Promise<void> {
  const boot = JSON.stringify({ userId: "erp-admin-1", hostAccountId: "1234567", roles });
  // Host-signed routes read the tenant through a cache (TENANT_CACHE_TTL, 10 s), so a
  // change of the allowed roles reaches the bootstrap within that.
  let serviceToken = "";
  await expect.poll(async () => {
    const s = await fetch(base() + "/api/embedded/host/bootstrap", { method: "POST", headers: signedHeaders(boot, DEMO_EMBEDDED_SECRET), body: boot });
    if (s.status === 201) serviceToken = ((await s.json()) as { serviceToken: string }).serviceToken;
    return s.status;
  }, { timeout: 15_000 }).toBe(201);
  const c = await fetch(base() + "/api/embedded/context/bootstrap", { method: "POST",
    headers: { Authorization: "Bearer " + serviceToken, "Content-Type": "application/json" }, body: JSON.stringify({ module }) });
  expect(c.status).toBe(201);
  const { embeddedContextId } = (await c.json()) as { embeddedContextId: string };
  await page.goto(`/#serviceToken=${serviceToken}&embeddedContextId=${embeddedContextId}&module=${module}&roles=${roles.join(",")}`);
}

// Settings and field mapping are admin modules: the host must be allowed to grant admin.
test.describe("embedded admin modules", () => {
  test.beforeEach(() => allowedRoles("operator,approver,admin"));
  test.afterEach(() => allowedRoles("operator,approver"));

  test("embedded: the settings module shows the switches only, and a switch saves", async ({ page }) => {
    await embeddedPage(page, "settings", ["admin"]);
    const finance = page.getByRole("switch", { name: "Finance approvals" });
    await expect(finance).toBeChecked();
    await expect(finance).toBeEnabled(); // not demo data
    await expect(page.getByRole("heading", { name: "Connectors" })).toHaveCount(0);
    await expect(page.getByLabel("Embedded allowed roles")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Rotate the ingest secret" })).toHaveCount(0);
    await expect(page.getByText("changed by an admin in the SyncAssist console")).toBeVisible();
    await finance.uncheck();
    await page.getByRole("button", { name: "Save flags" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved finance_ops.enabled" })).toBeAttached();
    await page.reload();
    await expect(page.getByRole("switch", { name: "Finance approvals" })).not.toBeChecked();
    await page.getByRole("switch", { name: "Finance approvals" }).check();
    await page.getByRole("button", { name: "Save flags" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved finance_ops.enabled" })).toBeAttached();
  });

  test("embedded: the field-mapping module lists the flows and how each is triggered", async ({ page }) => {
    await embeddedPage(page, "field-mapping", ["admin"]);
    const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "shipping-order-to-erp", exact: true }) });
    await expect(row.getByRole("cell", { name: /^poll/ })).toBeVisible();
    await expect(page.getByRole("row").filter({ has: page.getByRole("cell", { name: "erp-customer-to-crm", exact: true }) })
      .getByRole("cell", { name: "event", exact: true })).toBeVisible();
    await expect(page.getByText("showing demo data")).toHaveCount(0);
    await expect(page.getByRole("navigation", { name: "Panels" })).toHaveCount(0);
  });

  test("embedded: an admin module opened without the admin role says so", async ({ page }) => {
    await embeddedPage(page, "settings", ["operator"]);
    await expect(page.getByText("needs the admin role")).toBeVisible();
    await expect(page.getByRole("switch", { name: "Finance approvals" })).toHaveCount(0);
  });
});
