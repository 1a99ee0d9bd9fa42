import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FrameLocator, Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base, DEMO_EMBEDDED_SECRET, postSyncError, signedHeaders, token, waitDiagnosed } from "./support/stack";

/** host serves, on an origin of its own (http://localhost:<port>), a page that frames the
 *  URL in ?src=, as a host ERP's record page does. */
async function host(): Promise<{ origin: string; frame: (src: string) => string; close: () => void }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url ?? "/", "http://host").searchParams.get("src") ?? "";
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html lang="en"><title>Host ERP</title><main><iframe title="SyncAssist" src="${src.replace(/"/g, "&quot;")}"
      style="width:1320px;height:860px;border:0"></iframe></main></html>`);
  });
  await new Promise<void>((ok) => server.listen(0, ok));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return { origin, frame: (src) => origin + "/?src=" + encodeURIComponent(src), close: () => server.close() };
}

/** setting changes one tenant setting as an admin would. */
async function setting(key: string, value: string): Promise<void> {
  const r = await fetch(base() + "/api/settings", { method: "PATCH", body: JSON.stringify({ settings: { [key]: value } }),
    headers: { Authorization: "Bearer " + (await token("admin")), "Content-Type": "application/json" } });
  expect(r.status, await r.text()).toBe(200);
}

/** allowFraming makes origin the demo tenant's one allowed framing origin and waits until
 *  the console serves it (the console reads tenants through a cache, TENANT_CACHE_TTL). */
async function allowFraming(origin: string): Promise<void> {
  await setting("embedded.allowed_origins", origin);
  await expect.poll(async () => (await fetch(base() + "/?embed=demo")).headers.get("content-security-policy"), { timeout: 15_000 })
    .toContain(`frame-ancestors ${origin};`);
}

/** session opens a host session with roles and a context for module; the fragment the
 *  host puts on the console's URL. Host-signed routes read the tenant through a cache, so
 *  a change of the allowed roles reaches the bootstrap within its TTL. */
async function session(module: string, roles: string[], modules?: string[]): Promise<{ serviceToken: string; fragment: string }> {
  const boot = JSON.stringify({ userId: "erp-user-7", hostAccountId: "1234567", roles, modules });
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
  return { serviceToken, fragment: `#serviceToken=${serviceToken}&embeddedContextId=${embeddedContextId}&module=${module}&roles=${roles.join(",")}` };
}

let erp: Awaited<ReturnType<typeof host>>;
let other: Awaited<ReturnType<typeof host>>;
test.beforeAll(async () => {
  erp = await host();
  other = await host();
  await allowFraming(erp.origin);
});
test.afterAll(async () => {
  await setting("embedded.allowed_origins", "");
  erp.close();
  other.close();
});

/** embeddedPage frames the console, from the allowed ERP origin, in a host session with
 *  roles and a context for module. */
async function embeddedPage(page: Page, module: string, roles: string[], path = "/"): Promise<FrameLocator> {
  const { fragment } = await session(module, roles);
  await page.goto(erp.frame(base() + path + "?embed=demo" + fragment));
  return page.frameLocator('iframe[title="SyncAssist"]');
}

test("embedded: framed by an allowed ERP origin, the console shows the module and every call carries the context id", async ({ page }) => {
  const errorId = `E2E-EMB-${Date.now()}`;
  await waitDiagnosed(await postSyncError(errorId));
  const { fragment } = await session("sync-errors", ["operator"]);
  const calls: { url: string; ctx: string | null }[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/")) calls.push({ url: r.url(), ctx: r.headers()["x-embedded-context-id"] ?? null });
  });
  await page.goto(erp.frame(base() + "/queue?embed=demo" + fragment));
  const f = page.frameLocator('iframe[title="SyncAssist"]');
  await expect(f.getByRole("cell", { name: errorId })).toBeVisible();
  const inner = page.frames().find((x) => x.url().startsWith(base()))!;
  expect(inner.url()).not.toContain("serviceToken");
  expect(inner.url()).toContain("embed=demo"); // kept, so a reload is framed again
  await expect(f.getByRole("navigation", { name: "Panels" })).toHaveCount(0);
  await expect(f.getByRole("button", { name: "Sign out" })).toHaveCount(0);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) expect(call.ctx, call.url).toBe(embeddedContextId(fragment));
  await accessible(page, "embedded queue");
});

function embeddedContextId(fragment: string): string {
  return new URLSearchParams(fragment.slice(1)).get("embeddedContextId")!;
}

// The tenant's frame-ancestors allow its ERP's origin alone: framed from another origin,
// the browser refuses to show the console at all.
test("embedded: the console refuses to be framed by an origin the tenant does not allow", async ({ page }) => {
  const csp = (await fetch(base() + "/queue?embed=demo")).headers.get("content-security-policy") ?? "";
  expect(csp).toContain(`frame-ancestors ${erp.origin};`);
  expect((await fetch(base() + "/queue")).headers.get("content-security-policy")).toContain("frame-ancestors 'none';");
  const { fragment } = await session("sync-errors", ["operator"]);
  const refused = page.waitForEvent("console", (m) => m.text().includes("frame-ancestors"));
  await page.goto(other.frame(base() + "/queue?embed=demo" + fragment));
  expect((await refused).text()).toContain(base());
  await expect(page.frameLocator('iframe[title="SyncAssist"]').getByText("SyncAssist")).toHaveCount(0);
});

// Issue 28 §7: a service token in a link opened outside the ERP's frame is not adopted,
// and never replaces the operator's own session: the console says so instead.
test("embedded: a link with a service token neither signs in outside the ERP's frame nor switches a signed-in operator", async ({ page }) => {
  const { fragment } = await session("sync-errors", ["operator", "approver"]);
  await page.goto(base() + "/queue?embed=demo" + fragment);
  await expect(page.getByRole("alert").filter({ hasText: "Not opened: embedded panels open only inside your ERP" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  expect(page.url()).not.toContain("serviceToken");
  expect(await page.evaluate(() => sessionStorage.getItem("syncassist.session"))).toBeNull();
  await accessible(page, "embedded link refused");

  await signIn(page, "operator", "/", { flow: true }); // signed in on the page that refused the link, as a person is
  await page.goto(base() + "/queue?embed=demo" + fragment);
  await expect(page.getByRole("alert").filter({ hasText: "you stay signed in to tenant demo" })).toBeVisible();
  await expect(page.getByText("dev-operator · operator")).toBeVisible();
  expect(page.url()).not.toContain("serviceToken");
  const kept = JSON.parse((await page.evaluate(() => sessionStorage.getItem("syncassist.session")))!) as { embeddedContextId?: string };
  expect(kept.embeddedContextId).toBeUndefined();
});

// The host embeds several modules: the shell's navigation offers them, each opens a
// context of its own with the service token (and every call then carries that one), and
// a module the ERP did not grant the session says so.
test("embedded: routing inside the shell opens each granted module and names one not granted", async ({ page }) => {
  const { fragment } = await session("sync-errors", ["operator", "approver"], ["sync-errors", "finance-approvals"]);
  const ctxs = new Set<string>();
  page.on("request", (r) => {
    const c = r.headers()["x-embedded-context-id"];
    if (r.url().includes("/api/finance-ops/")) ctxs.add(c ?? "none");
  });
  await page.goto(erp.frame(base() + "/queue?embed=demo" + fragment + "&modules=sync-errors,finance-approvals,audit"));
  const f = page.frameLocator('iframe[title="SyncAssist"]');
  const nav = f.getByRole("navigation", { name: "Panels" });
  await expect(nav.getByRole("link")).toHaveText(["Queue", "Finance", "Audit"]);
  await nav.getByRole("link", { name: "Finance" }).click();
  await expect(f.getByRole("cell", { name: "FA-2026-0142" })).toBeVisible();
  expect([...ctxs]).toHaveLength(1);
  expect([...ctxs][0]).not.toBe(embeddedContextId(fragment)); // a finance-approvals context, not the queue's
  await nav.getByRole("link", { name: "Audit" }).click();
  await expect(f.getByRole("alert").filter({ hasText: "The ERP did not grant this panel the “audit” module" })).toBeVisible();
  await nav.getByRole("link", { name: "Queue" }).click();
  await expect(f.getByRole("heading", { name: "Sync-error queue" })).toBeVisible();
  await accessible(page, "embedded shell");
});

// A context the ERP closed answers 401: the panel says what happened and how to reopen it.
test("embedded: an ended session says so and how to reopen the panel from the ERP", async ({ page }) => {
  const { serviceToken, fragment } = await session("sync-errors", ["operator"]);
  const del = await fetch(base() + "/api/embedded/session", { method: "DELETE", headers: { Authorization: "Bearer " + serviceToken } });
  expect(del.status).toBe(204);
  await page.goto(erp.frame(base() + "/queue?embed=demo" + fragment));
  const f = page.frameLocator('iframe[title="SyncAssist"]');
  await expect(f.getByRole("alert").filter({ hasText: "This panel's session has ended" })).toContainText("Open the panel again from the ERP record");
  await expect(f.getByText("showing demo data")).toHaveCount(0);
  // Issue 35 §7: an ERP user is told what to do, in their words: no "Try again" that cannot
  // work (the service token is gone), no "bootstrap".
  await expect(f.getByRole("alert").filter({ hasText: "The queue could not be read" })).toContainText("reopen the record in NetSuite");
  await expect(f.getByRole("button", { name: "Try again" })).toHaveCount(0);
  await expect(f.getByText(/bootstrap/i)).toHaveCount(0);
});

// Issue 35 §7: the 15-minute context expires while the service token lives: the console
// opens a new context with the token, silently, and sends the refused read again; and the
// host's record (fragment "record") opens the queue scoped to it.
for (const { width, scheme } of [{ width: 1440, scheme: "light" }, { width: 390, scheme: "dark" }] as const) {
  test(`embedded: an expired context renews silently and the panel opens on the host's record (${width} px, ${scheme})`, async ({ page }) => {
    const stamp = Date.now();
    const [mine, other] = [`E2E-EMBREC-${stamp}`, `E2E-EMBOTHER-${stamp}`];
    await waitDiagnosed(await postSyncError(mine, `SO-E2E${stamp}`));
    await waitDiagnosed(await postSyncError(other, `SO-E2F${stamp}`));
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    const { fragment } = await session("sync-errors", ["operator"]);
    const first = embeddedContextId(fragment);
    // The first context has expired, as the API says of one past its 15 minutes.
    await page.route("**/api/**", (r) => r.request().headers()["x-embedded-context-id"] === first && !r.request().url().includes("/api/embedded/")
      ? r.fulfill({ status: 401, contentType: "application/problem+json", headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
        body: JSON.stringify({ title: "Unauthorized", status: 401, code: "invalid_token", detail: "The embedded context has expired; bootstrap a new one." }) })
      : r.fallback());
    const renewed = new Set<string>();
    page.on("request", (r) => {
      const c = r.headers()["x-embedded-context-id"];
      if (r.url().includes("/api/sync-error-assist/") && c && c !== first) renewed.add(c);
    });
    await page.goto(erp.frame(base() + "/queue?embed=demo" + fragment + "&record=" + encodeURIComponent(`SO-E2E${stamp}`)));
    const f = page.frameLocator('iframe[title="SyncAssist"]');
    await expect(f.getByRole("cell", { name: mine })).toBeVisible();
    await expect(f.getByRole("cell", { name: other })).toHaveCount(0);
    await expect(f.getByRole("searchbox")).toHaveValue(`SO-E2E${stamp}`);
    await expect(f.getByText("session has ended")).toHaveCount(0);
    expect(renewed.size).toBe(1);
    await accessible(page, `embedded renewed ${width} ${scheme}`);
  });
}

// An admin sets the origins in Settings; one that is not an exact https origin is refused
// beside the field, and nothing is saved.
test("embedded: an admin sets the allowed origins, and a wildcard is refused beside the field", async ({ page }) => {
  await signIn(page, "admin");
  await page.getByRole("link", { name: "Settings" }).click();
  const origins = page.getByLabel("Embedded allowed origins");
  await expect(origins).toHaveValue(erp.origin);
  await origins.fill("https://*.erp.example.com");
  await page.getByRole("button", { name: "Save flags" }).click();
  await expect(page.getByText("is not an exact https origin")).toBeVisible();
  await expect(origins).toHaveAttribute("aria-invalid", "true");
  await accessible(page, "settings origins refused");
  await origins.fill(erp.origin + " https://1234567.app.erp.example.com");
  await page.getByRole("button", { name: "Save flags" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved embedded.allowed_origins" })).toBeAttached();
  await allowFraming(erp.origin);
});

// Settings and field mapping are admin modules: the host must be allowed to grant admin.
test.describe("embedded admin modules", () => {
  test.beforeEach(() => setting("embedded.allowed_roles", "operator,approver,admin"));
  test.afterEach(() => setting("embedded.allowed_roles", "operator,approver"));

  test("embedded: the settings module shows the switches only, and a switch saves", async ({ page }) => {
    const f = await embeddedPage(page, "settings", ["admin"]);
    const finance = f.getByRole("switch", { name: "Finance approvals" });
    await expect(finance).toBeChecked();
    await expect(finance).toBeEnabled(); // not demo data
    await expect(f.getByRole("heading", { name: "Connectors" })).toHaveCount(0);
    await expect(f.getByLabel("Embedded allowed roles")).toHaveCount(0);
    await expect(f.getByRole("button", { name: "Rotate the ingest secret" })).toHaveCount(0);
    await expect(f.getByText("changed by an admin in the SyncAssist console")).toBeVisible();
    await finance.uncheck();
    await f.getByRole("button", { name: "Save flags" }).click();
    await expect(f.getByRole("status").filter({ hasText: "Saved finance_ops.enabled" })).toBeAttached();
    await page.reload();
    await expect(f.getByRole("switch", { name: "Finance approvals" })).not.toBeChecked();
    await f.getByRole("switch", { name: "Finance approvals" }).check();
    await f.getByRole("button", { name: "Save flags" }).click();
    await expect(f.getByRole("status").filter({ hasText: "Saved finance_ops.enabled" })).toBeAttached();
  });

  test("embedded: the field-mapping module lists the flows and how each is triggered", async ({ page }) => {
    const f = await embeddedPage(page, "field-mapping", ["admin"]);
    const row = f.getByRole("row").filter({ has: f.getByRole("cell", { name: "shipping-order-to-erp", exact: true }) });
    await expect(row.getByRole("cell", { name: /^poll/ })).toBeVisible();
    await expect(f.getByRole("row").filter({ has: f.getByRole("cell", { name: "erp-customer-to-crm", exact: true }) })
      .getByRole("cell", { name: "event", exact: true })).toBeVisible();
    await expect(f.getByText("showing demo data")).toHaveCount(0);
    await expect(f.getByRole("navigation", { name: "Panels" })).toHaveCount(0);
  });

  test("embedded: an admin module opened without the admin role says so", async ({ page }) => {
    const f = await embeddedPage(page, "settings", ["operator"]);
    await expect(f.getByText("needs the admin role")).toBeVisible();
    await expect(f.getByRole("switch", { name: "Finance approvals" })).toHaveCount(0);
  });
});
