// Issue 35 §8: on a phone (390 px, dark) the queue's filters wait behind one "Filters"
// button, the detail's actions are a sticky bar at its top with one-line labels, and the
// flow runs are cards; at 1440 px (light) the desktop layout is unchanged.
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { postChange, postSyncError, waitDiagnosed } from "./support/stack";

test("phone: filters behind one button, the detail's actions on top and in sight, flow runs as cards (390 px, dark)", async ({ page }) => {
  const errorId = `E2E-PHONE-${Date.now()}`;
  const id = await postSyncError(errorId);
  await waitDiagnosed(id);
  await postChange("hosterp", "customer", "C-2001", { phone: "+49 40 555 0390" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await signIn(page, "approver");

  const filters = page.getByRole("button", { name: /^Filters/ });
  await expect(filters).toHaveAttribute("aria-expanded", "false");
  await expect(page.getByLabel("Class")).toBeHidden();
  await expect(page.getByRole("cell", { name: errorId })).toBeInViewport();
  await filters.click();
  await expect(filters).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByLabel("Class")).toBeVisible();
  await accessible(page, "phone queue filters open");

  await page.getByRole("cell", { name: errorId }).click();
  const detail = page.getByRole("region", { name: errorId });
  const bar = detail.getByRole("group", { name: "Actions" });
  await expect(bar).toBeInViewport();
  for (const name of ["Approve", "Reject", "Retry"]) {
    const box = (await bar.getByRole("button", { name }).boundingBox())!;
    expect(box.height, `${name} is one line`).toBeLessThan(34);
  }
  await page.mouse.wheel(0, 3000);
  await expect(bar).toBeInViewport();
  await accessible(page, "phone detail");

  await page.goto("/flows");
  const run = page.locator("table.runs tbody tr").first();
  await expect(run).toBeVisible();
  expect(await run.evaluate((tr) => getComputedStyle(tr).display)).toBe("block");
  const cell = run.locator("td").first();
  expect(await cell.evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"Run: "');
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await accessible(page, "phone flow runs");
});

test("desktop: filters in the toolbar, the runs a table (1440 px, light)", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
  await signIn(page, "operator");
  await expect(page.getByRole("button", { name: /^Filters/ })).toBeHidden();
  await expect(page.getByLabel("Class")).toBeVisible();
  await page.goto("/flows");
  const run = page.locator("table.runs tbody tr").first();
  await expect(run).toBeVisible();
  expect(await run.evaluate((tr) => getComputedStyle(tr).display)).toBe("table-row");
  await accessible(page, "desktop flow runs");
});
