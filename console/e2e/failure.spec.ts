// Issue 35 §6: failure keeps what the user had. With the API unreachable, a signed-in
// console keeps the rows it read (greyed, "as of <time>", Retry) and shows demo data only
// where the page never had an answer, under ids no real record has; an answer for a filter
// since changed is dropped; an action's error shows beside the action.
import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const views = [{ width: 1440, scheme: "light" }, { width: 390, scheme: "dark" }] as const;
const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e4)}`;

async function view(page: Page, width: number, scheme: "light" | "dark") {
  await page.setViewportSize({ width, height: 900 });
  await page.emulateMedia({ colorScheme: scheme });
}

for (const { width, scheme } of views) {
  test(`failure: an unreachable API keeps the rows read, as of when, and demo data only on a page that never read (${width} px, ${scheme})`, async ({ page }) => {
    const errorId = unique("E2E-KEEP");
    await waitDiagnosed(await postSyncError(errorId));
    await view(page, width, scheme);
    await signIn(page, "operator");
    await expect(page.getByRole("cell", { name: errorId })).toBeVisible();

    await page.route("**/api/**", (r) => r.abort());
    await page.getByRole("link", { name: "Flows" }).click();
    // Never read on this page: the panel says it cannot reach the service, no demo runs.
    await expect(page.getByRole("alert").filter({ hasText: "Flow runs could not be read" })).toContainText("cannot be reached");
    await page.getByRole("link", { name: "Queue" }).click();
    const stale = page.getByRole("status").filter({ hasText: "showing what was read as of" });
    await expect(stale).toBeVisible();
    await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
    await expect(page.getByText("showing demo data")).toHaveCount(0);
    await expect(page.getByRole("cell", { name: "DEMO-1042", exact: true })).toHaveCount(0);
    await expect(page.getByText("DEMO-SO-")).toHaveCount(0);
    await expect(page.locator("body")).toHaveClass(/\bstale\b/);
    await accessible(page, `stale queue ${width} ${scheme}`);

    await page.unroute("**/api/**");
    await stale.getByRole("button", { name: "Retry" }).click();
    await expect(stale).toHaveCount(0);
    await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
    await expect(page.locator("body")).not.toHaveClass(/\bstale\b/);

    // A page that never had an answer shows demo data, on ids no real record has.
    await page.route("**/api/**", (r) => r.abort());
    await page.reload();
    await expect(page.getByText("The API cannot be reached — showing demo data")).toBeVisible();
    await expect(page.getByRole("cell", { name: "DEMO-1042" })).toBeVisible();
    await expect(page.getByText("DEMO-SO-1042").first()).toBeVisible();
    await expect(page.getByText(/(^|[^-])SO-100\d\d/)).toHaveCount(0);
    await page.unroute("**/api/**");
  });

  test(`failure: an action's error shows beside the action, in sight (${width} px, ${scheme})`, async ({ page }) => {
    const errorId = unique("E2E-ACTERR");
    const id = await postSyncError(errorId);
    await waitDiagnosed(id);
    await view(page, width, scheme);
    await signIn(page, "operator", "/queue/" + id);
    const detail = page.getByRole("region", { name: errorId });
    await page.route("**/api/sync-error-assist/proposals/" + id + "/retry", (r) => r.fulfill({ status: 503, contentType: "application/problem+json",
      body: JSON.stringify({ title: "Service Unavailable", status: 503, code: "temporarily_unavailable", detail: "Retry shortly." }) }));
    await page.mouse.wheel(0, 2000); // the bar stays in sight as the detail scrolls
    const actions = detail.getByRole("group", { name: "Actions" });
    await actions.getByRole("button", { name: "Retry" }).click();
    const alert = actions.getByRole("alert");
    await expect(alert).toContainText("Temporarily unavailable");
    await expect(alert).toBeInViewport();
    await expect(page.getByRole("alert")).toHaveCount(1); // not also at the top
    await accessible(page, `action error ${width} ${scheme}`);
  });
}

// An answer for a filter the user has since left is dropped: the slow answer of the first
// filter must not replace the rows of the second.
test("failure: a read answered after the filter changed is dropped", async ({ page }) => {
  const errorId = unique("E2E-SEQ");
  await waitDiagnosed(await postSyncError(errorId));
  await signIn(page, "operator");
  await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
  const at = new Date().toISOString();
  await page.route("**/api/sync-error-assist/proposals?*class=permission*", async (r) => {
    await new Promise((ok) => setTimeout(ok, 2500));
    await r.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ nextCursor: null, items: [{
      id: "se_slowanswer", errorId: "SLOW-ANSWER", recordType: "salesOrder", recordId: "X-1", status: "pending", diagnosis: "ready",
      claimedAt: at, updatedAt: at, errorCode: "X", message: "late" }] }) }).catch(() => {}); // aborted by the browser: nothing to answer
  });
  await page.getByLabel("Class").selectOption("permission");
  await page.getByLabel("Class").selectOption("");
  await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
  await page.waitForTimeout(3500);
  await expect(page.getByRole("cell", { name: "SLOW-ANSWER" })).toHaveCount(0);
  await expect(page.getByRole("cell", { name: errorId })).toBeVisible();
});
