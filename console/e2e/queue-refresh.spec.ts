import { expect, test } from "./support/fixtures";
import { signIn, accessible } from "./support/browser";
import { call, postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// The refresh also tells what left: a row another operator decided stays where it is,
// marked, so nothing moves under the cursor, and the news is announced once.
test("the list refresh marks a row decided elsewhere without moving the rows", async ({ page }) => {
  const a = unique("E2E-LEFT-A");
  const b = unique("E2E-LEFT-B");
  // A code of their own: the rejection below teaches the service to reject that fix. A
  // system of their own: the list shows these rows alone, so a row of an earlier test that
  // comes back to pending meanwhile (a failed approve, a retry) is not "new" in it.
  const system = unique("e2e-left").toLowerCase();
  const ida = await postSyncError(a, "SO-10042", "INVALID_FIELD_VALUE_LEFT", system);
  const idb = await postSyncError(b, "SO-10042", "INVALID_FIELD_VALUE_LEFT", system);
  await waitDiagnosed(ida);
  await waitDiagnosed(idb);
  await page.clock.install();
  await signIn(page, "operator", `/queue/${ida}?system=${system}`);
  await expect(page.getByRole("row", { selected: true })).toContainText(a);
  const order = () => page.locator("table.grid tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-id")));
  const before = await order();
  expect(before).toContain(idb);

  await call("operator", "POST", `/api/sync-error-assist/proposals/${idb}/reject`, { reason: "decided in another tab" });
  await page.clock.runFor(21_000);
  const row = page.getByRole("row").filter({ hasText: b });
  await expect(row).toContainText("no longer pending (now rejected)");
  await expect(page.getByRole("status").filter({ hasText: "1 sync error decided elsewhere" })).toBeAttached();
  expect(await order()).toEqual(before);
  await expect(page.getByRole("row", { selected: true })).toContainText(a);
  await accessible(page, "queue with a row decided elsewhere");
});
