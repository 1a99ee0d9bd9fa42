// make screenshots: a PNG of each panel for the README, with realistic data.
import { resolve } from "node:path";
import { expect, test } from "./support/fixtures";
import { signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const out = (name: string) => resolve(__dirname, "..", "..", "docs", "screenshots", name + ".png");

test.skip(!process.env.SCREENSHOTS, "only for make screenshots");

test("screenshots of each panel", async ({ page }) => {
  const ids: string[] = [];
  for (let i = 1; i <= 4; i++) ids.push(await postSyncError(`SO-ERR-2026-${1040 + i}`));
  for (const id of ids) await waitDiagnosed(id);
  await signIn(page, "approver");
  await page.getByRole("cell", { name: "SO-ERR-2026-1041" }).click();
  await page.getByLabel("Proposed value for shipcountry").fill("DEU");
  await page.locator("details.trace summary").click();
  await page.screenshot({ path: out("queue"), fullPage: false });
  await page.goto("/queue");
  await page.getByRole("button", { name: "Group by diagnosis" }).click();
  await expect(page.getByRole("button", { name: "Approve group…" }).first()).toBeVisible();
  await page.screenshot({ path: out("queue-grouped") });
  await page.getByRole("link", { name: "Finance" }).click();
  await page.getByRole("cell", { name: "FA-2026-0142" }).click();
  await page.screenshot({ path: out("finance") });
  await page.getByRole("link", { name: "Governance" }).click();
  await page.getByRole("tab", { name: "Pending approvals" }).click();
  await page.screenshot({ path: out("governance") });
  await page.getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("cell", { name: "ai.inference" }).first()).toBeVisible();
  await page.screenshot({ path: out("audit") });
  await page.getByRole("button", { name: "Sign out" }).click();
  await signIn(page, "admin", "/flows", { flow: true }); // after Sign out, as a person signs in again
  await page.getByRole("button", { name: "Edit crm-account-to-erp" }).click();
  await page.getByRole("form", { name: "Edit flow crm-account-to-erp" }).scrollIntoViewIfNeeded();
  await page.screenshot({ path: out("flows"), fullPage: true });
  await page.route("**/api/**", (r) => r.abort());
  await page.goto("/queue");
  await expect(page.getByText("showing demo data")).toBeVisible();
  await page.screenshot({ path: out("demo-fallback") });
  // The automation views with the demo data (an empty local stack has nothing automated yet).
  await page.getByRole("link", { name: "Insights" }).click();
  await expect(page.getByRole("figure", { name: "How sync errors came out, by class" })).toBeVisible();
  await page.screenshot({ path: out("insights"), fullPage: true });
  await page.getByRole("link", { name: "Auto-resolved" }).click();
  await expect(page.getByRole("cell", { name: /auto-country-codes/ }).first()).toBeVisible();
  await page.screenshot({ path: out("auto-resolved") });
});
