import { expect, test } from "@playwright/test";
import { accessible, signIn } from "./support/browser";
import { base, signedHeaders } from "./support/stack";

/** postChange posts a signed change event from a source system and returns its run ids. */
async function postChange(system: string, entity: string, recordId: string, fields: Record<string, unknown>): Promise<string[]> {
  const body = JSON.stringify({ eventId: "EV-E2E-" + Date.now() + "-" + Math.random().toString(36).slice(2, 8),
    entity, recordId, changedAt: new Date().toISOString(), fields });
  const r = await fetch(base() + "/api/flows/events/" + system, { method: "POST", headers: signedHeaders(body), body });
  if (r.status !== 202) throw new Error(`flow event answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { runIds: string[] }).runIds;
}

test("flows: a failed run reads event → fields → decision → result and links to its sync error", async ({ page }) => {
  const [failed] = await postChange("crm", "Account", "C-2001", { Type: "Customer", Email: "no-at-sign" });
  await signIn(page, "admin");
  await page.getByRole("link", { name: "Flows" }).click();
  await expect(page.getByRole("cell", { name: "crm-account-to-erp" }).first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Flows" }).getByRole("cell", { name: "erp-order-to-shipping" })).toBeVisible();
  await accessible(page, "flows");

  await page.getByLabel("Outcome").selectOption("failed");
  await page.getByRole("row").filter({ hasText: failed.slice(0, 12) }).click();
  const detail = page.getByRole("region", { name: "Run " + failed });
  await expect(detail.getByText("crm/Account")).toBeVisible();
  await expect(detail.getByText("email", { exact: true })).toBeVisible();
  await expect(detail.getByText("HTTP 400")).toBeVisible();
  await accessible(page, "flow run");

  await detail.getByRole("link", { name: /^se_/ }).click();
  await expect(page).toHaveURL(/\/queue\/se_/);
  await expect(page.getByText("FLOW_WRITE_FAILED").first()).toBeVisible();
});

test("flows: an operator sees the runs but not the flow definitions", async ({ page }) => {
  await postChange("hosterp", "customer", "C-2001", { phone: "+49 40 555 0199" });
  await signIn(page, "operator");
  await page.getByRole("link", { name: "Flows" }).click();
  await expect(page.getByRole("cell", { name: "erp-customer-to-crm" }).first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Flows" })).toHaveCount(0);
});
