import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { call, erpWrites, newSalesOrder, postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

// Escalating hands a sync error on to an approver: the operator is told who decides it now
// and keeps retry and resolve; the approver approves its fix from the escalated list.
test("an escalated sync error is approved by an approver; an operator is told it waits for one", async ({ page, browser }) => {
  const errorId = unique("E2E-ESCAPPR");
  const order = await newSalesOrder();
  // A code of its own: what an approval teaches stays with this test's errors.
  const id = await postSyncError(errorId, order, "INVALID_FIELD_VALUE_ESCALATED");
  await waitDiagnosed(id);
  await call("operator", "POST", `/api/sync-error-assist/proposals/${id}/escalate`, { reason: "Is DE right for this customer?" });

  const other = await browser.newContext();
  const op = await other.newPage();
  await signIn(op, "operator", "/queue/" + id + "?status=escalated");
  const seen = op.getByRole("region", { name: errorId });
  await expect(seen).toContainText("Escalated: an approver approves or rejects it.");
  await expect(seen.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(seen.getByRole("button", { name: "Reject" })).toHaveCount(0);
  await expect(seen.getByRole("button", { name: "Escalate" })).toHaveCount(0);
  await expect(seen.getByRole("button", { name: "Resolve" })).toBeVisible();
  await accessible(op, "escalated, operator");
  await other.close();

  const before = (await erpWrites(order)).length;
  await signIn(page, "approver", "/queue?status=escalated");
  await page.getByRole("cell", { name: errorId }).click();
  const detail = page.getByRole("region", { name: errorId });
  await expect(detail).toContainText("Is DE right for this customer?");
  await expect(detail.getByRole("button", { name: "Escalate" })).toHaveCount(0);
  await accessible(page, "escalated, approver");
  await detail.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Approved ${errorId}` })).toBeAttached();
  expect((await erpWrites(order)).length - before).toBe(1);
  const row = await call<{ status: string }>("operator", "GET", "/api/sync-error-assist/proposals/" + id);
  expect(row.status).toBe("approved");
});
