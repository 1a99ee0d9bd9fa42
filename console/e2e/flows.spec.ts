import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { eventMessageId, postChange } from "./support/stack";

test("flows: change events go under the webhook-id a relay derives, as the Go service derives it", () => {
  expect(eventMessageId("hosterp", "EV-1")).toBe("msg_a40af3f4537218303c874436253a3302");
});

test("flows: a failed run reads event → fields → decision → result and links to its sync error", async ({ page }) => {
  const [failed] = await postChange("crm", "Account", "C-2001", { Type: "Customer", Email: "no-at-sign" });
  await signIn(page, "admin");
  await page.getByRole("link", { name: "Flows" }).click();
  await expect(page.getByRole("cell", { name: "crm-account-to-erp" }).first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Flows" }).getByRole("cell", { name: "erp-order-to-shipping", exact: true })).toBeVisible();
  await accessible(page, "flows");

  await page.getByLabel("Outcome").selectOption("failed");
  await page.getByRole("row").filter({ hasText: failed.slice(0, 12) }).click();
  const detail = page.getByRole("region", { name: "Run " + failed });
  await expect(detail.getByText("crm/Account")).toBeVisible();
  await expect(detail.getByText("email", { exact: true })).toBeVisible();
  await expect(detail.getByText("HTTP 400")).toBeVisible();
  await accessible(page, "flow run");

  await detail.getByRole("link", { name: /^se_/ }).click();
  await expect(page).toHaveURL(/\/queue\/se_/);
  await expect(page.getByText("FLOW_WRITE_FAILED").first()).toBeVisible();
});

test("flows: an operator sees the runs but not the flow definitions", async ({ page }) => {
  await postChange("hosterp", "customer", "C-2001", { phone: "+49 40 555 0199" });
  await signIn(page, "operator");
  await page.getByRole("link", { name: "Flows" }).click();
  await expect(page.getByRole("cell", { name: "erp-customer-to-crm" }).first()).toBeVisible();
  await expect(page.getByRole("region", { name: "Flows" })).toHaveCount(0);
});

test("flows: an admin creates a poll flow, sees a refused field beside its input, edits and deletes it", async ({ page }) => {
  const id = `e2e-flow-${Date.now()}`;
  await signIn(page, "admin", "/flows");
  const defs = page.getByRole("region", { name: "Flows" });
  await defs.getByRole("button", { name: "New flow" }).click();
  const form = page.getByRole("form", { name: "New flow" });
  await form.getByLabel("Flow id").fill(id);
  await form.getByRole("group", { name: "Source" }).getByLabel("System").selectOption("shipping");
  await form.getByRole("group", { name: "Source" }).getByLabel("Entity").fill("orders");
  await form.getByRole("group", { name: "Target" }).getByLabel("System").selectOption("shipping");
  await form.getByRole("group", { name: "Target" }).getByLabel("Entity").fill("orders");
  await form.getByLabel("Trigger").selectOption("poll");
  await form.getByLabel("Target field, row 1").fill("custbody_e2e");
  await form.getByLabel("Source field, row 1").fill("orderStatus");
  await accessible(page, "flow editor");
  // A flow into its own source is refused by the server, beside the target.
  await form.getByRole("button", { name: "Save flow" }).click();
  await expect(form.getByRole("group", { name: "Target" })).toContainText("must differ from the source");
  await form.getByRole("group", { name: "Target" }).getByLabel("System").selectOption("hosterp");
  await form.getByRole("group", { name: "Target" }).getByLabel("Entity").fill("salesOrder");
  // The filter and the match are fields, not JSON (issue 35 §5): one condition row, and a
  // match field the server refuses beside its input, then one it takes.
  await expect(form.getByRole("textbox", { name: "Filter", exact: true })).toHaveCount(0);
  await form.getByRole("button", { name: "Add condition" }).click();
  await form.getByLabel("Filter field, row 1").fill("orderStatus");
  await form.getByLabel("Filter value, row 1").fill("shipped");
  const match = form.getByRole("group", { name: "Match" });
  await match.getByLabel("Find the target record by").selectOption("lookup");
  await match.getByLabel("Target field", { exact: true }).fill("tran-id");
  await match.getByLabel("Holds the source's").fill("orderNumber");
  await form.getByRole("button", { name: "Save flow" }).click();
  await expect(match).toContainText("must name a unique field of the target");
  await expect(match.getByLabel("Target field", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await match.getByLabel("Target field", { exact: true }).fill("tranId");
  await form.getByRole("button", { name: "Save flow" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved flow ${id}` })).toBeAttached();
  const row = defs.getByRole("row").filter({ has: page.getByRole("cell", { name: id, exact: true }) });
  await expect(row).toContainText("shipping/orders → hosterp/salesOrder");
  await expect(row).toContainText('orderStatus = "shipped"');
  await expect(row.getByRole("cell", { name: /^poll/ })).toBeVisible();

  await row.getByRole("button", { name: `Edit ${id}` }).click();
  const edit = page.getByRole("form", { name: `Edit flow ${id}` });
  await expect(edit.getByLabel("Flow id")).toBeDisabled();
  await expect(edit.getByRole("group", { name: "Match" }).getByLabel("Find the target record by")).toHaveValue("lookup");
  await expect(edit.getByRole("group", { name: "Match" }).getByLabel("Target field", { exact: true })).toHaveValue("tranId");
  await expect(edit.getByLabel("Filter value, row 1")).toHaveValue("shipped");
  await edit.getByLabel("Enabled").uncheck();
  await edit.getByRole("button", { name: "Save flow" }).click();
  await expect(row.getByText("disabled")).toBeVisible();

  await row.getByRole("button", { name: `Delete ${id}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Deleted flow ${id}` })).toBeAttached();
  await expect(defs.getByRole("cell", { name: id, exact: true })).toHaveCount(0);
});

test("flows: saving a flow that closes a cycle names it and who owns its fields", async ({ page }) => {
  const id = `e2e-cycle-${Date.now()}`;
  await signIn(page, "admin", "/flows");
  const defs = page.getByRole("region", { name: "Flows" });
  await defs.getByRole("button", { name: "New flow" }).click();
  const form = page.getByRole("form", { name: "New flow" });
  await form.getByLabel("Flow id").fill(id);
  await form.getByRole("group", { name: "Source" }).getByLabel("System").selectOption("crm");
  await form.getByRole("group", { name: "Source" }).getByLabel("Entity").fill("Account");
  await form.getByRole("group", { name: "Target" }).getByLabel("System").selectOption("hosterp");
  await form.getByRole("group", { name: "Target" }).getByLabel("Entity").fill("customer");
  await form.getByLabel("Target field, row 1").fill("phone");
  await form.getByLabel("Source field, row 1").fill("Phone");
  // Saved disabled: the cycle is named before the flow ever runs.
  await form.getByLabel("Enabled").uncheck();
  await form.getByRole("button", { name: "Save flow" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Saved flow ${id}; it closes a cycle` })).toBeAttached();
  const notice = defs.getByRole("region", { name: `Cycles of flow ${id}` });
  await expect(notice).toContainText("crm/Account → hosterp/customer → crm/Account");
  await expect(notice).toContainText(`flows ${id}, erp-customer-to-crm`);
  await expect(notice).toContainText("hosterp/customer.phone: crm (source_wins)");
  await accessible(page, "flow cycles");
  await notice.getByRole("button", { name: "Dismiss" }).click();
  await expect(notice).toHaveCount(0);

  const row = defs.getByRole("row").filter({ has: page.getByRole("cell", { name: id, exact: true }) });
  await row.getByRole("button", { name: `Delete ${id}` }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
  await expect(defs.getByRole("cell", { name: id, exact: true })).toHaveCount(0);
});
