import { expect, test } from "./support/fixtures";
import { signIn } from "./support/browser";
import { newSalesOrder, postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// A write that takes seconds says what it is doing while it runs: the answers are held at
// the network until the progress line has been seen.
test("slow approves say what they are doing, one row or a selection", async ({ page }) => {
  const one = unique("E2E-SLOW1");
  const two = unique("E2E-SLOW2");
  const ids = [await postSyncError(one, await newSalesOrder(), "INVALID_FIELD_VALUE_SLOW"),
    await postSyncError(two, await newSalesOrder(), "INVALID_FIELD_VALUE_SLOW")];
  for (const id of ids) await waitDiagnosed(id);
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route(/\/proposals\/(bulk|[^/]+\/approve)$/, async (route) => {
    await held;
    await route.continue();
  });

  await signIn(page, "approver", "/queue/" + ids[0]);
  const detail = page.getByRole("region", { name: one });
  await detail.getByRole("button", { name: "Approve" }).click();
  await expect(detail.getByText("Approving: lease taken, writing the fix through the guard…")).toBeVisible();
  release();
  await expect(page.getByRole("status").filter({ hasText: `Approved ${one}` })).toBeAttached();
  await expect(detail.getByText("Approving: lease taken")).toHaveCount(0);

  let releaseBulk = () => {};
  const heldBulk = new Promise<void>((r) => (releaseBulk = r));
  await page.unroute(/\/proposals\/(bulk|[^/]+\/approve)$/);
  // The confirm shows the fixes its dry run lists before it can be pressed (fixKeys): only
  // the approve itself is held.
  await page.route(/\/proposals\/bulk$/, async (route) => {
    if (!route.request().postDataJSON()?.dryRun) await heldBulk;
    await route.continue();
  });
  await page.getByRole("row").filter({ hasText: two }).getByRole("checkbox", { name: "Select row" }).click();
  await page.getByRole("button", { name: "Approve selected…" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Approve 1" }).click();
  const bar = page.getByRole("region", { name: "Selected sync errors" });
  await expect(bar.getByText("Approving 1 sync error, one at a time…")).toBeVisible();
  releaseBulk();
  await expect(page.getByRole("status").filter({ hasText: "Approved 1 of 1 sync error" })).toBeAttached();
});
