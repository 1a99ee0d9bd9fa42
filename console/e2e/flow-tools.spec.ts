import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base } from "./support/stack";

/** crmWrites is how many writes the local Salesforce fake has applied. */
async function crmWrites(): Promise<number> {
  const r = await fetch(base() + "/fake/crm/_writes");
  return ((await r.json()) as { count: number }).count;
}

test("flow editor: vendor names and metadata pickers, and a dry run that writes nothing", async ({ page }) => {
  await signIn(page, "admin", "/flows");
  const defs = page.getByRole("region", { name: "Flows" });
  const row = defs.getByRole("row").filter({ has: page.getByRole("cell", { name: "erp-customer-to-crm", exact: true }) });
  await row.getByRole("button", { name: "Edit erp-customer-to-crm" }).click();
  const form = page.getByRole("form", { name: "Edit flow erp-customer-to-crm" });
  // The systems are offered under their vendors' names; the value stays the system key.
  await expect(form.getByRole("group", { name: "Source" }).getByLabel("System").locator("option:checked")).toHaveText("NetSuite");
  await expect(form.getByRole("group", { name: "Target" }).getByLabel("System").locator("option:checked")).toHaveText("Salesforce");
  // Salesforce's describe offers its sObjects and the Account's fields.
  await expect(page.locator('#target-entities option[value="Account"]')).toBeAttached();
  await expect(page.locator('#target-fields option[value="Phone"]')).toBeAttached();
  await accessible(page, "flow editor with metadata");

  const before = await crmWrites();
  const dry = form.getByRole("group", { name: "Dry run" });
  await dry.getByLabel("Source record id").fill("C-2001");
  await dry.getByLabel(/Sample fields/).fill('{"companyName": "Nordwind Handel GmbH", "phone": "+49 40 000 1111"}');
  await dry.getByRole("button", { name: "Dry run" }).click();
  const result = dry.getByRole("status", { name: "Dry run result" });
  await expect(result).toContainText("would update Salesforce Account C-2001");
  await expect(result).toContainText("Nothing was written");
  await expect(result.getByRole("table", { name: "Fields the flow would write" })).toContainText("+49 40 000 1111");
  await accessible(page, "dry run result");
  expect(await crmWrites()).toBe(before);
});

test("settings: Test connection answers in the vendor's words", async ({ page }) => {
  await signIn(page, "admin", "/settings");
  const connectors = page.getByRole("region", { name: "Connectors" });
  const crm = connectors.getByRole("row").filter({ hasText: "Salesforce" });
  await crm.getByRole("button", { name: "Test connection Salesforce" }).click();
  await expect(crm.getByRole("status")).toContainText("Salesforce answered GET");
  await accessible(page, "connector check");
});
