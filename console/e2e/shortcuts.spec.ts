import { expect, test } from "./support/fixtures";
import { signIn } from "./support/browser";
import { newSalesOrder, postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// A one-key shortcut acts only when it is meant: Ctrl/Cmd+A selects, "g a" jumps to the
// audit log, a letter typed in a list box picks an option, and a key pressed in an open
// dialog belongs to the dialog. None of them approves the row that is open. Approve
// requests are stopped at the network and counted.
test("stray keys never approve the open sync error", async ({ page }) => {
  const errorId = unique("E2E-KEYS");
  const id = await postSyncError(errorId, await newSalesOrder(), "INVALID_FIELD_VALUE_KEYS");
  await waitDiagnosed(id);
  let approves = 0;
  await page.route("**/approve", (route) => {
    approves++;
    return route.abort();
  });
  // Requests leave in order: once this one is answered, any approve sent before it was counted.
  const settled = () => page.evaluate(() => fetch("/config.json").then((r) => r.status));

  await signIn(page, "approver", "/queue/" + id);
  const detail = page.getByRole("region", { name: errorId });
  await expect(detail.getByRole("button", { name: "Approve" })).toBeEnabled();

  await page.locator("body").press("Control+a");
  await page.locator("body").press("Meta+a");
  await page.getByLabel("Status").focus();
  await page.keyboard.press("a");
  await page.locator("body").focus();
  await detail.getByRole("button", { name: "Reject" }).click();
  const dialog = page.getByRole("dialog", { name: "Reject sync error" });
  await dialog.getByRole("button", { name: "Cancel" }).focus();
  await page.keyboard.press("a");
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await page.locator("body").press("g");
  await page.locator("body").press("a");
  await expect(page).toHaveURL(/\/audit$/);
  await settled();
  expect(approves).toBe(0);

  // The same key, meant: it approves.
  await page.goto("/queue/" + id);
  await expect(page.getByRole("region", { name: errorId }).getByRole("button", { name: "Approve" })).toBeEnabled();
  await page.locator("body").press("a");
  await settled();
  expect(approves).toBe(1);
});
