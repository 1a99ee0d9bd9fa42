import { expect, test } from "./support/fixtures";
import { signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// An approve answered 202 is not an approval done: a two-approver rule waiting for the
// second, or a write whose answer was lost. The approver reads what the answer says, and
// the row stays as the server holds it (here untouched: the answers are the route's own).
for (const [name, answer] of [
  ["a second approver is needed", { status: "pending", approval: { apply: "two_approvers", ruleId: "big-credit-limits", reason: "credit limits above 10000 need two approvers" }, approvers: ["approver"], needed: 2,
    message: "Approved by 1 of 2 approvers; another approver must approve it." }],
  ["the write's answer was lost", { status: "applying",
    message: "The host ERP's answer to the write was lost, so the fix may have been written." }],
] as const) {
  test(`an approve answered 202 says so when ${name}`, async ({ page }) => {
    const errorId = unique("E2E-202");
    const id = await postSyncError(errorId);
    await waitDiagnosed(id);
    await page.route(`**/api/sync-error-assist/proposals/${id}/approve`, (r) =>
      r.fulfill({ status: 202, contentType: "application/json", body: JSON.stringify({ id, ...answer }) }));
    await signIn(page, "approver", "/queue/" + id);
    const detail = page.getByRole("region", { name: errorId });
    await detail.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByRole("status").filter({ hasText: `${errorId}: ${answer.message}` })).toBeAttached();
    await expect(page.getByRole("status").filter({ hasText: `Approved ${errorId}` })).toHaveCount(0);
    // Still pending on the server: the detail shows it so, with its actions.
    await expect(detail.getByRole("button", { name: "Approve" })).toBeVisible();
  });
}
