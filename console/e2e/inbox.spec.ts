import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base, call, DEMO_FINANCE_SECRET, postSyncError, signedHeaders, waitDiagnosed } from "./support/stack";

// Issue 35 §1, §2 and §9: who decides is said on every row and in the detail, approvers
// have an Escalated inbox with a badge, finance approvals say why Approve is not offered
// and what a confirmation writes; the queue finds across statuses, systems (any case),
// tags and text as you type; and the keyboard reaches all of it.

const stamp = () => `${Date.now()}${Math.floor(Math.random() * 1e4)}`;

async function escalate(id: string, reason: string) {
  await call("operator", "POST", `/api/sync-error-assist/proposals/${id}/escalate`, { reason });
}

/** rowOf is the list's row naming errorId. */
const rowOf = (page: Page, errorId: string) => page.locator("table.grid tbody tr").filter({ hasText: errorId });

test("who can approve is on each row and in the detail; approvers have an Escalated inbox, newest escalation first", async ({ page, browser }) => {
  const tag = stamp();
  const record = `SO-WHO${tag}`;
  const [a, b, c] = [`E2E-WHO-A-${tag}`, `E2E-WHO-B-${tag}`, `E2E-WHO-C-${tag}`];
  const ids = [await postSyncError(a, record), await postSyncError(b, record, "INVALID_FIELD_VALUE_WHO_B"),
    await postSyncError(c, record, "INVALID_FIELD_VALUE_WHO_C")];
  for (const id of ids) await waitDiagnosed(id);
  await escalate(ids[1], `Is B right? ${tag}`);
  await escalate(ids[2], `Is C right? ${tag}`);

  // An operator: the value fix is theirs, the escalated ones need an approver; the filter keeps those.
  const other = await browser.newContext();
  const op = await other.newPage();
  await signIn(op, "operator", `/queue?status=open&q=${record}`);
  await expect(rowOf(op, a)).toContainText("You can approve");
  await expect(rowOf(op, b)).toContainText("Needs an approver");
  await expect(rowOf(op, c)).toContainText("Needs an approver");
  await op.getByLabel("Who approves").selectOption("approver");
  await expect(op).toHaveURL(/decider=approver/);
  await expect(rowOf(op, a)).toHaveCount(0);
  await expect(rowOf(op, b)).toBeVisible();
  await accessible(op, "queue with who-approves chips");
  await op.goto(`/queue/${ids[0]}`);
  const detail = op.getByRole("region", { name: a });
  await expect(detail.getByText(/Who can approve: an operator or approver \(rule/)).toBeVisible();
  await expect(detail.getByText(/Approved by/)).toHaveCount(0);
  await expect(op.getByRole("link", { name: "Escalated" })).toHaveCount(0); // approvers only
  await other.close();

  // An approver: the nav's badge counts the escalated, the inbox lists them newest escalation first with why.
  await signIn(page, "approver", "/queue");
  const nav = page.getByRole("navigation", { name: "Panels" });
  await expect(nav.getByRole("listitem").filter({ hasText: "Escalated" }).locator(".count")).toHaveText(/^\d+\+?/);
  await nav.getByRole("link", { name: "Escalated" }).click();
  await expect(page).toHaveURL(/\/escalated$/);
  await expect(page.getByRole("heading", { name: "Escalated to an approver" })).toBeVisible();
  await expect(rowOf(page, c)).toContainText(`Is C right? ${tag}`);
  const order = await page.locator("table.grid tbody tr").allTextContents();
  const [ib, ic] = [order.findIndex((t) => t.includes(b)), order.findIndex((t) => t.includes(c))];
  expect(ic).toBeGreaterThanOrEqual(0);
  expect(ic).toBeLessThan(ib); // C was escalated after B
  await expect(page.getByRole("columnheader", { name: "Escalated" })).toBeVisible();
  await accessible(page, "escalated inbox 1440 light");
  await rowOf(page, c).click();
  await expect(page).toHaveURL(new RegExp(`/escalated/${ids[2]}`));
  await expect(page.getByRole("region", { name: c }).getByRole("button", { name: "Approve" })).toBeVisible();

  // The same inbox on a phone, dark.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto("/escalated");
  await expect(rowOf(page, c)).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await accessible(page, "escalated inbox 390 dark");
});

test("find anything: open and any statuses, search as you type (the previous search aborted), systems in any case, tags, a message column", async ({ page }) => {
  const tag = stamp();
  const record = `SO-FIND${tag}`;
  const [p, e] = [`E2E-FIND-P-${tag}`, `E2E-FIND-E-${tag}`];
  const ids = [await postSyncError(p, record), await postSyncError(e, record, "INVALID_FIELD_VALUE_FIND_E")];
  for (const id of ids) await waitDiagnosed(id);
  await escalate(ids[1], "needs a look");
  const label = `f${tag}`.slice(0, 32);
  await call("operator", "POST", `/api/sync-error-assist/proposals/${ids[0]}/triage`, { tag: { add: label } });

  await signIn(page, "operator", "/queue");
  await page.getByLabel("Status").selectOption("open");
  await expect(page).toHaveURL(/status=open/);
  // Typing searches once it pauses, without Enter; a search still in flight when the next
  // one starts is aborted.
  let held = true;
  await page.route("**/api/sync-error-assist/proposals?*", async (route) => {
    if (held && route.request().url().includes("q=SO-FIND")) {
      held = false;
      await new Promise((r) => setTimeout(r, 3000));
    }
    await route.continue().catch(() => {});
  });
  const aborted = page.waitForEvent("requestfailed", (r) => r.url().includes("q=SO-FIND") && !r.url().includes(tag));
  const box = page.getByRole("searchbox", { name: "Search by error id, record id or text" });
  await box.pressSequentially("SO-FIND");
  await page.waitForRequest((r) => r.url().includes("q=SO-FIND") && !r.url().includes(tag));
  await box.pressSequentially(tag);
  await aborted;
  await expect(rowOf(page, p)).toBeVisible();
  await expect(rowOf(page, e)).toBeVisible(); // open: pending and escalated together
  await expect(page).toHaveURL(new RegExp(`q=${record}`));
  await expect(page.getByRole("columnheader", { name: "Message" })).toBeVisible();
  await expect(rowOf(page, p).getByRole("cell").filter({ hasText: "Deutschland" })).toBeVisible();

  await page.getByLabel("Status").selectOption("any");
  await expect(rowOf(page, e)).toBeVisible();

  // System: every system of the tenant is offered; a name that resolves to none matches in any case.
  await expect(page.locator("#queue-systems option[value='Business Central']")).toHaveCount(1);
  await expect(page.locator("#queue-systems option[value=erp2]")).toHaveCount(1);
  const system = page.getByRole("combobox", { name: "System", exact: true });
  await system.fill("WEBSHOP");
  await system.press("Enter");
  await expect(page).toHaveURL(/system=WEBSHOP/);
  await expect(rowOf(page, p)).toBeVisible();
  await system.fill("shipstation");
  await system.press("Enter");
  await expect(rowOf(page, p)).toHaveCount(0);
  await system.fill("");
  await system.press("Enter");

  // Tag: typed, applied once typing pauses.
  await page.getByLabel("Tag", { exact: true }).fill(label);
  await expect(page).toHaveURL(new RegExp(`tag=${label}`));
  await expect(rowOf(page, p)).toBeVisible();
  await expect(rowOf(page, e)).toHaveCount(0);
  await accessible(page, "queue found by status any, search and tag");
});

test("keys: / searches, x selects the focused row, Ctrl+Enter sends a reason; the help lists them; finance says why Approve is not offered and what a confirmation writes", async ({ page }) => {
  const tag = stamp();
  const errorId = `E2E-KEYX-${tag}`;
  const id = await postSyncError(errorId, `SO-KEYX${tag}`, "INVALID_FIELD_VALUE_KEYX");
  await waitDiagnosed(id);
  await signIn(page, "approver", `/queue?q=SO-KEYX${tag}`);
  await expect(rowOf(page, errorId)).toBeVisible();

  await page.locator("body").press("/");
  await expect(page.getByRole("searchbox", { name: "Search by error id, record id or text" })).toBeFocused();
  await rowOf(page, errorId).focus();
  await page.keyboard.press("x");
  await expect(rowOf(page, errorId).getByRole("checkbox")).toBeChecked();
  await page.keyboard.press("x");
  await expect(rowOf(page, errorId).getByRole("checkbox")).not.toBeChecked();
  // Twice again, a render apart (the row shows as picked) and before the next frame: the
  // second press must see the first's pick. A listener an effect swapped after paint ran the
  // previous render's handler, which picked the row a second time (CI, 2026-11-30; useKeys).
  const states = await rowOf(page, errorId).evaluate(async (row) => {
    const box = row.querySelector<HTMLInputElement>("input[type=checkbox]")!;
    const press = () => row.dispatchEvent(new KeyboardEvent("keydown", { key: "x", bubbles: true }));
    const rendered = () => new Promise((r) => setTimeout(r, 0));
    (row as HTMLElement).focus();
    press();
    await rendered();
    const first = box.checked;
    press();
    await rendered();
    return { afterOne: first, afterTwo: box.checked };
  });
  expect(states).toEqual({ afterOne: true, afterTwo: false });

  await page.locator("body").press("?");
  const help = page.getByRole("region", { name: "Keyboard shortcuts" });
  await expect(help.getByRole("row").filter({ hasText: "search the queue" })).toContainText("/");
  await expect(help.getByRole("row").filter({ hasText: "select or unselect the focused row" })).toContainText("x");
  await expect(help.getByText("in a reason or note box: send it")).toBeVisible();
  await page.locator("body").press("?");

  await page.goto(`/queue/${id}`);
  const detail = page.getByRole("region", { name: errorId });
  await expect(detail.getByRole("button", { name: "Reject" })).toBeVisible();
  await page.locator("body").press("r");
  const dialog = page.getByRole("dialog", { name: "Reject sync error" });
  const reason = dialog.getByLabel("Reason");
  await reason.fill("Not ours");
  await reason.press("Enter"); // a new line, not a submit
  await expect(dialog).toBeVisible();
  await reason.press("Control+Enter");
  await expect(dialog).toHaveCount(0);
  await expect.poll(async () => (await call<{ status: string }>("operator", "GET", `/api/sync-error-assist/proposals/${id}`)).status,
    { timeout: 20_000 }).toBe("rejected");

  // Finance: one's own request is not offered for approval; above the threshold the
  // confirmation names the threshold, the record and the values to be written.
  const own = await newApproval(`OWN${tag}`, "120.00", "dev-approver");
  const big = await newApproval(`BIG${tag}`, "12480.00", "someone-else");
  await page.goto(`/finance/${own}`);
  const mine = page.getByRole("region", { name: own });
  await expect(mine.getByText("you requested this approval")).toBeVisible();
  await expect(mine.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await expect(mine.getByRole("button", { name: "Reject" })).toBeVisible();
  await page.goto(`/finance/${big}`);
  await page.getByRole("region", { name: big }).getByRole("button", { name: "Approve" }).click();
  const confirm = page.getByRole("dialog", { name: `Approve ${big}?` });
  await expect(confirm).toContainText("confirmation threshold of €10,000.00");
  await expect(confirm).toContainText("VB-E2E-1");
  await expect(confirm).toContainText("approvalStatus");
  await accessible(page, "finance confirmation");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toHaveCount(0);
});

async function newApproval(tag: string, amount: string, requestedBy: string): Promise<string> {
  const approvalId = `FA-E2E-${tag}`;
  const body = JSON.stringify({ approvalId, erpId: "VB-E2E-1", entity: "vendorBill", amount, currency: "EUR",
    vendor: "E2E Office Supplies", description: "printer paper", requestedBy });
  const created = await fetch(base() + "/api/finance-ops/approvals", { method: "POST", headers: signedHeaders(body, DEMO_FINANCE_SECRET), body });
  expect(created.status).toBe(201);
  return approvalId;
}
