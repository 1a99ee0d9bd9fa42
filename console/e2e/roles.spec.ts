// Issue 26 §1: a role sees the controls and shortcuts it can use; what it cannot use is
// left out with the reason, at a desktop's and a phone's width.
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { postSyncError, waitDiagnosed } from "./support/stack";

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;

for (const width of [1440, 390]) {
  test(`an operator's shortcut list and group actions say what needs another role (${width} px)`, async ({ page }) => {
    for (const p of ["E2E-ROLE-A", "E2E-ROLE-B"]) await waitDiagnosed(await postSyncError(unique(p)));
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, "operator", "/queue");
    await page.locator("body").press("?");
    const keys = page.getByRole("region", { name: "Keyboard shortcuts" });
    await expect(keys.getByRole("row").filter({ hasText: "g q / g u / g i / g f / g l" })).toBeVisible();
    await expect(keys).toContainText("Not for your role: g e (Escalated, needs approver), g g (Governance, needs approver), g a (Audit, needs approver), g s (Settings, needs admin)");
    await expect(keys.getByRole("row").filter({ hasText: "the others need an approver" })).toBeVisible();
    await accessible(page, `shortcuts ${width}`);
    await page.locator("body").press("Escape");

    await page.locator("body").press("g");
    await page.locator("body").press("g");
    await expect(page.getByRole("status").filter({ hasText: "Governance needs the approver role" })).toBeAttached();
    await expect(page).toHaveURL(/\/queue/);

    await page.getByRole("button", { name: "Group by diagnosis" }).click();
    // Issue 35: an operator approves a group too; the approval policy judges each member.
    const group = page.getByRole("listitem").filter({ hasText: "The approval policy judges each member" }).first();
    await expect(group.getByRole("button", { name: "Reject group…" })).toBeVisible();
    await expect(group.getByRole("button", { name: "Approve group…" })).toBeVisible();
    await accessible(page, `operator groups ${width}`);
  });
}

test("an approver's shortcut list has every panel it can open and nothing it cannot", async ({ page }) => {
  await signIn(page, "approver", "/queue");
  await page.locator("body").press("?");
  const keys = page.getByRole("region", { name: "Keyboard shortcuts" });
  await expect(keys.getByRole("row").filter({ hasText: "g q / g e / g u / g i / g f / g g / g l / g a" })).toBeVisible();
  await expect(keys).toContainText("g s (Settings, needs admin)");
  await expect(keys.getByRole("row").filter({ hasText: /^a\s*approve$/ })).toBeVisible();
});
