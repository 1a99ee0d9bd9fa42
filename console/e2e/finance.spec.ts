import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base, DEMO_FINANCE_SECRET, signedHeaders } from "./support/stack";

async function newApproval(tag: string): Promise<string> {
  const approvalId = `FA-E2E-${tag}-${Date.now()}`;
  const body = JSON.stringify({ approvalId, erpId: "VB-E2E-1", entity: "vendorBill", amount: "120.00", currency: "EUR",
    vendor: "E2E Office Supplies", description: "printer paper" });
  const created = await fetch(base() + "/api/finance-ops/approvals", { method: "POST", headers: signedHeaders(body, DEMO_FINANCE_SECRET), body });
  expect(created.status).toBe(201);
  return approvalId;
}

// Finance follows the queue's pattern: a shared link opens its approval even when the list
// shows another status, the filter is in the URL, r rejects the open approval, and at
// 390 px list and detail are two views with a way back.
test("finance: a link opens its approval beside another filter; r rejects it; two views at 390 px", async ({ page }) => {
  const id = await newApproval("LINK");
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "approver", `/finance/${id}?status=rejected`);
  const detail = page.getByRole("region", { name: id });
  await expect(detail).toContainText("E2E Office Supplies");
  await expect(page.getByLabel("Status")).toHaveValue("rejected");
  await expect(page.getByRole("heading", { name: "Finance approvals" })).toBeHidden(); // one view at a time
  await accessible(page, "finance detail 390");

  await page.locator("body").press("r");
  const dialog = page.getByRole("dialog", { name: "Reject finance approval" });
  await dialog.getByLabel("Reason").fill("Bought on the framework contract instead");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(detail.getByText("rejected", { exact: true })).toBeVisible();

  await detail.getByRole("button", { name: "Back to finance approvals" }).click();
  await expect(page).toHaveURL(/\/finance\?status=rejected$/);
  await expect(page.getByRole("cell", { name: id })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("rejected");
  await expect(page.getByRole("cell", { name: id })).toBeVisible();
});
