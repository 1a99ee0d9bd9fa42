import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { postChange } from "./support/stack";

// The runs follow the queue's pattern: a shared link opens its run whatever the list shows,
// the outcome filter is in the URL, and at 390 px list and detail are two views with Back.
// Above the runs, each target system's health; an admin sees each flow's last run.
test("flows: a linked run opens beside another filter, two views at 390 px, system health and each flow's last run", async ({ page }) => {
  const [failed] = await postChange("crm", "Account", "C-2001", { Type: "Customer", Email: "no-at-sign" });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "admin", `/flows/${failed}?outcome=written`);
  const detail = page.getByRole("region", { name: "Run " + failed });
  await expect(detail.getByText("crm/Account")).toBeVisible();
  await expect(page.getByLabel("Outcome")).toHaveValue("written");
  await expect(page.getByRole("heading", { name: "Flow runs" })).toBeHidden();
  await accessible(page, "flow run 390");

  await detail.getByRole("button", { name: "Back to flow runs" }).click();
  await expect(page).toHaveURL(/\/flows\?outcome=written$/);
  await page.getByLabel("Outcome").selectOption("failed");
  await expect(page).toHaveURL(/\/flows\?outcome=failed$/);
  await expect(page.getByRole("row").filter({ hasText: failed.slice(0, 12) })).toBeVisible();

  const health = page.getByRole("list", { name: "Target systems" });
  await expect(health.getByRole("listitem").filter({ hasText: "hosterp" })).toContainText("last failure");
  const flow = page.getByRole("region", { name: "Flows" }).getByRole("row").filter({ hasText: "crm-account-to-erp" });
  await expect(flow).toContainText("failed");
  await accessible(page, "flow runs 390");
});
