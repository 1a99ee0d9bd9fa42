import { expect, test } from "@playwright/test";
import { accessible, signIn } from "./support/browser";

test("finance: approve ends accepted, a row without an ERP id goes back with the reason, reject asks a reason", async ({ page }) => {
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Finance" }).click();
  await accessible(page, "finance");

  await page.getByRole("cell", { name: "FA-2026-0141" }).click();
  const d = page.getByRole("region", { name: "FA-2026-0141" });
  await d.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Approved FA-2026-0141: accepted" })).toBeAttached();
  await expect(d.getByText("accepted", { exact: true })).toBeVisible();

  await page.getByRole("cell", { name: "FA-2026-0144" }).click();
  const bad = page.getByRole("region", { name: "FA-2026-0144" });
  await bad.getByRole("button", { name: "Approve" }).click();
  await expect(page.getByRole("alert")).toBeVisible();
  await expect(bad.getByText("pending", { exact: true })).toBeVisible();

  await page.getByRole("cell", { name: "FA-2026-0143" }).click();
  await page.getByRole("region", { name: "FA-2026-0143" }).getByRole("button", { name: "Reject" }).click();
  const dialog = page.getByRole("dialog", { name: "Reject finance approval" });
  await dialog.getByLabel("Reason").fill("Hotel above the travel policy");
  await dialog.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("region", { name: "FA-2026-0143" }).getByText("rejected", { exact: true })).toBeVisible();
});

test("governance: the three tabs, as the spec's dashboard asks", async ({ page }) => {
  const asked: string[] = [];
  page.on("request", (r) => asked.push(r.url()));
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Governance" }).click();
  await expect(page.getByRole("tab", { name: "Pending approvals" })).toHaveAttribute("aria-selected", "true");
  await expect.poll(() => asked.some((u) => u.includes("/api/governance/approvals?reason=ownership&status=pending"))).toBe(true);
  await accessible(page, "governance pending");
  for (const tab of ["Ownership rejections", "Loop detections"]) {
    await page.getByRole("tab", { name: tab }).click();
    await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
    await accessible(page, "governance " + tab);
  }
});

test("audit: filter by action type", async ({ page }) => {
  await signIn(page, "approver");
  await page.getByRole("link", { name: "Audit" }).click();
  await page.getByLabel("Action type").selectOption("ai");
  await expect(page.getByRole("cell", { name: "ai.inference" }).first()).toBeVisible();
  await expect(page.getByRole("cell", { name: "syncerror.approve" })).toHaveCount(0);
  await accessible(page, "audit");
});
