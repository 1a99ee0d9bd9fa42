import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base, signedHeaders, token } from "./support/stack";

interface SettingsView {
  settings: Record<string, string>;
  connectors: Record<string, { baseUrl: string; hasToken: boolean }>;
  manifestOverrides: { entity: string; field?: string; owner: string; policy: string }[];
}

async function settingsNow(): Promise<SettingsView> {
  const r = await fetch(base() + "/api/settings", { headers: { Authorization: "Bearer " + (await token("admin")) } });
  expect(r.status).toBe(200);
  return (await r.json()) as SettingsView;
}

async function patchSettings(body: unknown): Promise<void> {
  const r = await fetch(base() + "/api/settings", { method: "PATCH", body: JSON.stringify(body),
    headers: { Authorization: "Bearer " + (await token("admin")), "Content-Type": "application/json" } });
  expect(r.status).toBe(200);
}

// A connector's row header is its vendor's name and then its system key.
const connectorRow = (page: Page, sys: string) =>
  page.getByRole("region", { name: "Connectors" }).getByRole("row").filter({ has: page.getByRole("rowheader", { name: new RegExp(` ${sys}$`) }) });

test("settings: an admin turns a flag off and on, and each change survives a reload", async ({ page }) => {
  await signIn(page, "admin");
  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page).toHaveURL(/\/settings$/);
  const finance = page.getByRole("switch", { name: "Finance approvals" });
  await expect(finance).toBeChecked(); // on unless "false"
  await accessible(page, "settings");

  await finance.uncheck();
  await page.getByRole("button", { name: "Save flags" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved finance_ops.enabled" })).toBeAttached();
  await page.reload();
  await expect(page.getByRole("switch", { name: "Finance approvals" })).not.toBeChecked();
  await expect(page.getByText("stored “false”")).toBeVisible();
  expect((await settingsNow()).settings["finance_ops.enabled"]).toBe("false");

  await page.getByRole("switch", { name: "Finance approvals" }).check();
  await page.getByRole("button", { name: "Save flags" }).click();
  await expect(page.getByRole("button", { name: "Save flags" })).toBeDisabled();
  await page.reload();
  await expect(page.getByRole("switch", { name: "Finance approvals" })).toBeChecked();
  expect((await settingsNow()).settings["finance_ops.enabled"]).toBe("true");
});

test("settings: a flag stored as anything but 'true' shows the stored value and reads as off", async ({ page }) => {
  await patchSettings({ settings: { "sync_error_assist.webhook_enabled": "yes" } });
  try {
    await signIn(page, "admin", "/settings");
    await expect(page.getByRole("switch", { name: "Sync-error webhook" })).not.toBeChecked();
    await expect(page.getByText("stored “yes”, which reads as off")).toBeVisible();
  } finally {
    await patchSettings({ settings: { "sync_error_assist.webhook_enabled": "true" } });
  }
});

test("settings: a change that lost a race says so and shows the settings as they are now", async ({ page }) => {
  await signIn(page, "admin", "/settings");
  const roles = page.getByLabel("Embedded allowed roles");
  await expect(roles).toHaveValue("operator,approver");
  // Someone else changes the roles meanwhile; the server answers this page's PATCH with 409
  // (its own retries make a real conflict too rare to provoke here).
  await patchSettings({ settings: { "embedded.allowed_roles": "operator" } });
  await page.route("**/api/settings", (r) => r.request().method() === "PATCH"
    ? r.fulfill({ status: 409, contentType: "application/problem+json",
      body: JSON.stringify({ title: "Conflict", status: 409, code: "state_changed", detail: "The settings changed while this change was applied; nothing was changed." }) })
    : r.fallback());
  try {
    await roles.fill("approver");
    await page.getByRole("button", { name: "Save flags" }).click();
    await expect(page.getByRole("alert")).toContainText("Changed by someone else — reloaded");
    await expect(roles).toHaveValue("operator");
  } finally {
    await patchSettings({ settings: { "embedded.allowed_roles": "operator,approver" } });
  }
});

test("settings: a refused connector URL shows the field's error and changes nothing", async ({ page }) => {
  const before = (await settingsNow()).connectors.crm;
  await signIn(page, "admin", "/settings");
  await connectorRow(page, "crm").getByRole("button", { name: "Edit crm" }).click();
  const url = page.getByLabel("crm base URL");
  await expect(url).toHaveValue(before.baseUrl);
  // The local stack allows http and local addresses for its fakes, so the scheme is what
  // is refused here: ftp to the instance metadata address.
  await url.fill("ftp://169.254.169.254/latest/meta-data/");
  await page.getByLabel("crm credential").fill("e2e-never-stored");
  await page.getByRole("button", { name: "Save crm" }).click();
  await expect(url).toHaveAttribute("aria-invalid", "true");
  await expect(url).toHaveAccessibleDescription(/https only/);
  await expect(page.getByRole("alert")).toContainText("nothing was changed");
  await accessible(page, "settings connector error");

  expect((await settingsNow()).connectors.crm).toEqual(before);
  await page.reload();
  await expect(connectorRow(page, "crm").getByText(before.baseUrl)).toBeVisible();
  await expect(connectorRow(page, "crm").getByText("no credential")).toBeVisible();
});

test("settings: a connector credential is stored but never shown back", async ({ page }) => {
  const secret = "e2e-cred-" + Math.random().toString(36).slice(2);
  const before = (await settingsNow()).connectors.marketing;
  const bodies: string[] = [];
  page.on("response", async (r) => {
    if (r.url().includes("/api/settings")) bodies.push(await r.text().catch(() => ""));
  });
  try {
    await signIn(page, "admin", "/settings");
    const row = connectorRow(page, "marketing");
    await expect(row.getByText("no credential")).toBeVisible();
    await row.getByRole("button", { name: "Edit marketing" }).click();
    const cred = page.getByLabel("marketing credential");
    await expect(cred).toHaveAttribute("type", "password");
    await expect(cred).toHaveValue("");
    await cred.fill(secret);
    await page.getByRole("button", { name: "Save marketing" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved the marketing connector and its new credential" })).toBeAttached();
    await expect(row.getByText("credential set")).toBeVisible();
    await expect(page.getByLabel("marketing credential")).toHaveCount(0); // the form closed

    await page.reload();
    await expect(connectorRow(page, "marketing").getByText("credential set")).toBeVisible();
    await connectorRow(page, "marketing").getByRole("button", { name: "Edit marketing" }).click();
    await expect(page.getByLabel("marketing credential")).toHaveValue("");
    await expect(page.getByLabel("marketing base URL")).toHaveValue(before.baseUrl);
    expect(await page.content()).not.toContain(secret);
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(b).not.toContain(secret);

    // Saving with the credential left empty keeps the stored one.
    await page.getByRole("button", { name: "Save marketing" }).click();
    await expect(page.getByRole("status").filter({ hasText: /^Saved the marketing connector$/ })).toBeAttached();
    await expect(connectorRow(page, "marketing").getByText("credential set")).toBeVisible();
    expect((await settingsNow()).connectors.marketing).toEqual({ baseUrl: before.baseUrl, hasToken: true });
  } finally {
    await patchSettings({ connectors: { marketing: { baseUrl: before.baseUrl, token: "" } } });
  }
});

test("settings: moving a connector's base URL asks for its credential again", async ({ page }) => {
  const before = (await settingsNow()).connectors.marketing;
  await patchSettings({ connectors: { marketing: { baseUrl: before.baseUrl, token: "e2e-moving-credential" } } });
  try {
    await signIn(page, "admin", "/settings");
    await connectorRow(page, "marketing").getByRole("button", { name: "Edit marketing" }).click();
    const url = page.getByLabel("marketing base URL");
    const cred = page.getByLabel("marketing credential");
    await expect(cred).not.toHaveAttribute("required", "");
    await url.fill(before.baseUrl + "/moved");
    await expect(cred).toHaveAttribute("required", "");
    await expect(cred).toHaveAccessibleDescription(/Enter the credential again for the new address/);
    await accessible(page, "settings connector moved");
    // The browser keeps the form from saving without it; nothing reached the service.
    await page.getByRole("button", { name: "Save marketing" }).click();
    expect((await settingsNow()).connectors.marketing).toEqual({ baseUrl: before.baseUrl, hasToken: true });
    await url.fill(before.baseUrl);
    await expect(cred).not.toHaveAttribute("required", "");
  } finally {
    await patchSettings({ connectors: { marketing: { baseUrl: before.baseUrl, token: "" } } });
  }
});

test("settings: removing a connector asks first", async ({ page }) => {
  const before = (await settingsNow()).connectors.erp2;
  try {
    await signIn(page, "admin", "/settings");
    await connectorRow(page, "erp2").getByRole("button", { name: "Remove erp2" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove the erp2 connector?" });
    await expect(dialog).toBeVisible();
    await accessible(page, "settings remove dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    expect((await settingsNow()).connectors.erp2).toEqual(before);

    await connectorRow(page, "erp2").getByRole("button", { name: "Remove erp2" }).click();
    await page.getByRole("dialog", { name: "Remove the erp2 connector?" }).getByRole("button", { name: "Remove" }).click();
    await expect(connectorRow(page, "erp2").getByText("not configured")).toBeVisible();
    expect((await settingsNow()).connectors.erp2).toBeUndefined();

    await connectorRow(page, "erp2").getByRole("button", { name: "Configure erp2" }).click();
    await page.getByLabel("erp2 base URL").fill(before.baseUrl);
    await page.getByRole("button", { name: "Save erp2" }).click();
    await expect(connectorRow(page, "erp2").getByText(before.baseUrl)).toBeVisible();
  } finally {
    await patchSettings({ connectors: { erp2: { baseUrl: before.baseUrl } } });
  }
});

test("settings: manifest overrides are added, refused when invalid, and removed", async ({ page }) => {
  const before = (await settingsNow()).manifestOverrides; // the demo flows' own overrides stay
  const n = before.length;
  await signIn(page, "admin", "/settings");
  const section = page.getByRole("region", { name: "Manifest overrides" });
  await section.getByRole("button", { name: "Add override" }).click();
  await expect(section.getByLabel(`Entity, row ${n + 1}`)).toBeFocused();
  await section.getByLabel(`Entity, row ${n + 1}`).fill("customer");
  await section.getByLabel(`Field, row ${n + 1}`).fill("fax");
  await section.getByLabel(`Owner, row ${n + 1}`).selectOption("crm");
  await section.getByLabel(`Policy, row ${n + 1}`).selectOption("source_wins");
  await section.getByRole("button", { name: "Add override" }).click();
  await section.getByLabel(`Entity, row ${n + 2}`).fill("Customer");
  await section.getByLabel(`Field, row ${n + 2}`).fill("FAX");
  await section.getByRole("button", { name: "Save overrides" }).click();
  await expect(page.getByRole("alert")).toBeVisible(); // declared twice
  await expect(section.getByText("declared twice")).toBeVisible();
  await expect(section.getByLabel(`Entity, row ${n + 1}`)).toHaveAttribute("aria-invalid", "true");
  expect((await settingsNow()).manifestOverrides).toEqual(before);
  await accessible(page, "settings overrides error");

  await section.getByRole("button", { name: `Remove row ${n + 2}` }).click();
  await section.getByRole("button", { name: "Save overrides" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved ${n + 1} manifest override` })).toBeAttached();
  await page.reload();
  await expect(section.getByLabel(`Field, row ${n + 1}`)).toHaveValue("fax");
  await expect(section.getByLabel(`Owner, row ${n + 1}`)).toHaveValue("crm");
  await expect(section.getByLabel(`Policy, row ${n + 1}`)).toHaveValue("source_wins");

  await section.getByRole("button", { name: `Remove row ${n + 1}` }).click();
  await section.getByRole("button", { name: "Save overrides" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved ${n} manifest override` })).toBeAttached();
  expect((await settingsNow()).manifestOverrides).toEqual(before);
});

test("settings: a rotated secret is shown once, verifies, and is gone when the dialog closes", async ({ page }) => {
  await signIn(page, "admin", "/settings");
  const row = page.getByRole("region", { name: "Webhook secrets" }).getByRole("row").filter({ has: page.getByRole("rowheader", { name: "ingest" }) });
  await row.getByRole("button", { name: "Rotate the ingest secret" }).click();
  const ask = page.getByRole("dialog", { name: "Rotate the ingest secret?" });
  await expect(ask).toContainText("keeps verifying for 24 hours");
  await accessible(page, "settings rotate confirm");
  await ask.getByRole("button", { name: "Rotate" }).click();

  const shown = page.getByRole("dialog", { name: "New ingest secret" });
  await expect(shown).toContainText("you will not see it again");
  const secret = await shown.getByLabel("Secret").inputValue();
  expect(secret).toMatch(/^whsec_/);
  await expect(shown.getByRole("button", { name: "Copy" })).toBeVisible();
  await accessible(page, "settings new secret");
  await expect(row.getByRole("cell", { name: /previous stops verifying in (2[34] h|1 d)/ })).toBeVisible();

  // The new secret signs what the host sends; the old one still does for 24 h.
  const body = JSON.stringify({ tenantId: "demo", errorId: "E2E-ROTATED-" + Date.now(), recordType: "salesOrder", recordId: "SO-10042",
    errorCode: "INVALID_FIELD_VALUE", message: "rotated secret check", occurredAt: new Date().toISOString(),
    integration: "webshop-orders", externalSystem: "webshop", direction: "inbound", payload: { shipcountry: "DE" } });
  const r = await fetch(base() + "/api/sync-error-assist/ingest", { method: "POST", headers: signedHeaders(body, secret), body });
  expect(r.status).toBe(202);

  // Esc before copying asks first instead of losing the secret.
  await page.keyboard.press("Escape");
  await expect(shown.getByRole("alert")).toContainText("You have not copied the secret");
  await expect(shown).toBeVisible();
  await shown.getByRole("button", { name: "Keep it open" }).click();
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await shown.getByRole("button", { name: "Copy" }).click();
  await expect(shown.getByRole("button", { name: "Copied ✓" })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await shown.getByRole("button", { name: "Close" }).click();
  await expect(shown).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  expect(stored).not.toContain(secret);
  expect(stored).not.toContain(secret.slice(6, 30));
});

test("settings: an operator has no Settings item and /settings says it is for admins", async ({ page }) => {
  await signIn(page, "operator");
  await expect(page.getByRole("link", { name: "Queue" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Settings" })).toHaveCount(0);
  // The shortcut says why instead of opening a panel the role cannot use (issue 26 §1);
  // the address itself still answers with the reason.
  await page.keyboard.press("g");
  await page.keyboard.press("s");
  await expect(page.getByRole("status").filter({ hasText: "Settings needs the admin role" })).toBeAttached();
  await expect(page).toHaveURL(/\/queue/);
  await page.goto("/settings");
  await expect(page.getByText("Settings are for admins")).toBeVisible();
  await expect(page.getByRole("switch")).toHaveCount(0);
  await accessible(page, "settings as operator");
});
