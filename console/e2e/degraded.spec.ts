import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";

const failing = (status: number, code?: string) => ({ status, contentType: "application/problem+json",
  body: JSON.stringify({ title: "Internal Server Error", status, ...(code ? { code } : {}) }) });

// When the service itself keeps failing, one banner says so for every panel (and lifts at
// the next good answer); a target system's refusal stays the asking panel's own error.
test("the service failing raises one banner; a good answer lowers it; a target's refusal does not raise it", async ({ page }) => {
  await signIn(page, "operator");
  await expect(page.getByRole("heading", { name: "Sync-error queue" })).toBeVisible();
  const banner = page.getByRole("status").filter({ hasText: "The service is answering with errors" });

  await page.route("**/api/sync-error-assist/**", (r) => r.fulfill(failing(502, "target_unavailable")));
  await page.getByLabel("Status").selectOption("rejected");
  await page.getByLabel("Status").selectOption("escalated");
  await expect(page.getByRole("alert").first()).toBeVisible();
  await expect(banner).toHaveCount(0);

  // The whole API fails, as it does when the service does: a good answer from another route
  // (the counts' poll) between two failures would rightly lower the count again.
  await page.unroute("**/api/sync-error-assist/**");
  await page.route("**/api/**", (r) => r.fulfill(failing(500)));
  // Each read is answered before the next change: a change aborts the read before it, and
  // an aborted read says nothing of the service (the banner counts answers, not requests).
  await page.getByLabel("Status").selectOption("rejected");
  await expect(page.getByRole("alert").first()).toContainText("Something went wrong in the service");
  await page.getByLabel("Status").selectOption("pending");
  await expect(banner).toBeVisible();
  await accessible(page, "degraded banner");

  // Try again reads every panel again (it mounts them anew: the panel shown before is
  // gone from the page, which no poll does); while the service still fails the banner stays.
  const before = await page.locator("main").elementHandle();
  await banner.getByRole("button", { name: "Try again" }).click();
  await expect.poll(() => before?.evaluate((e) => e.isConnected)).toBe(false);
  await expect(banner).toBeVisible();

  // A good answer lowers it, whichever read gets it first: the queue's own poll may (a
  // click on Try again after it would find no banner), else the change of status does.
  await page.unroute("**/api/**");
  await page.getByLabel("Status").selectOption("rejected");
  await expect(banner).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Sync-error queue" })).toBeVisible();
});
