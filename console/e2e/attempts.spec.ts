// Issue 33 §3: evidence is append-only. An operator retries a sync error that names no host
// ERP record to re-run; the attempt is refused (RETRY_NO_HOST_RECORD) and listed under the
// error with its own code, while the error above stays the one the host sent. At a
// desktop's width in light and a phone's in dark.
import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

for (const [width, scheme] of [[1440, "light"], [390, "dark"]] as const) {
  test(`a failed retry is listed under the error as received at ${width} px (${scheme})`, async ({ page }) => {
    const errorId = unique(`E2E-ATTEMPTS-${width}`);
    const code = "E2E_ATTEMPTS_CARRIER_DOWN";
    const message = "Carrier gateway refused the shipment: upstream timeout";
    // The host's error names no host ERP sync-error record (no context.hostRecord), so a
    // retry has nothing to ask the host ERP to re-run.
    const id = await postSyncError(errorId, "SO-10042", code, "webshop", message);
    await waitDiagnosed(id);
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page, "operator", "/queue/" + id);

    const detail = page.getByRole("region", { name: errorId });
    await expect(detail.getByRole("heading", { name: "Error as received" })).toBeVisible();
    await expect(detail.getByRole("list", { name: "Retry attempts" })).toHaveCount(0); // none yet

    await detail.getByRole("button", { name: /^Retry/ }).click();
    await expect(page.getByRole("status").filter({ hasText: `Retried ${errorId}: needs a person (RETRY_NO_HOST_RECORD)` })).toBeAttached();

    const attempts = detail.getByRole("list", { name: "Retry attempts" });
    await expect(attempts.getByRole("listitem")).toHaveCount(1);
    const attempt = attempts.getByRole("listitem").first();
    await expect(attempt).toContainText("Needs a person");
    await expect(attempt.locator("code")).toHaveText("RETRY_NO_HOST_RECORD");
    await expect(attempt).toContainText("names no host ERP sync-error record");
    await expect(attempt).toContainText("dev-operator");
    await expect(attempt.locator("time")).toHaveAttribute("title", /\d/); // the exact time on hover

    // The error as received is untouched by the attempt: its own code and the host's words.
    const received = detail.getByRole("group", { name: "Error as received" });
    await expect(received.locator("code")).toHaveText(code);
    await expect(received).toContainText(message);
    await expect(received).not.toContainText("RETRY_NO_HOST_RECORD");

    // It stays so when read again from the server.
    await page.reload();
    await expect(detail.getByRole("group", { name: "Error as received" }).locator("code")).toHaveText(code);
    await expect(detail.getByRole("list", { name: "Retry attempts" }).locator("code")).toHaveText("RETRY_NO_HOST_RECORD");

    expect(await sideways(page), `detail at ${width} px`).toBeLessThanOrEqual(0);
    await accessible(page, `attempts ${width} ${scheme}`);
  });
}
