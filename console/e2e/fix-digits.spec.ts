import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";
import { base, erpWrittenText, newRecord, postSyncError, token, waitDiagnosed } from "./support/stack";

// A number reaches the ERP with the digits someone vouched for: the service keeps every
// digit, and so must the console, which reads the proposal and sends an edited fix whole.
// JSON.parse rounds 12345678901234567890 to 12345678901234567000; an edit of another field
// must not write that. Each test has records and an error code of its own: a purchase
// order (a record type no other spec writes, so its fields' types are read fresh), and
// what an approval teaches stays with its code.

const unique = (p: string) => `${p}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
// The rules diagnoser proposes no field change for this: nothing says which value is right.
const NO_FIX = "The shipping zip code could not be validated by the carrier; please check the address";
const TYPE = "purchaseOrder";
/** The records' fields before the fix, and each error's payload: the learned cases' key. */
const BEFORE = { batchid: 1, exchangerate: 0.5, memo: "as sent" };
/** More than a float64's 53 bits: JSON.parse reads 12345678901234567000. */
const BIG = "12345678901234567890";
/** More digits than a float64's 17: JSON.parse reads 123456789012345.67. */
const LONG = "123456789012345.6789";

/** written is the fields of the last write to record as the ERP received them, as JSON text. */
async function written(record: string): Promise<string> {
  await expect.poll(() => erpWrittenText(record)).not.toBe("");
  return erpWrittenText(record);
}

/** learnedRow makes a pending row whose proposed fix holds BIG in batchid, LONG in
 *  exchangerate and "checked" in memo: a first error of the code is approved with that fix
 *  through the API (the body as text: Node's JSON would round it), which the service learns,
 *  and a second error with the same values is proposed the learned fix. */
async function learnedRow(code: string): Promise<{ id: string; errorId: string; record: string }> {
  const first = await newRecord(TYPE, BEFORE);
  const taught = await postSyncError(unique("E2E-DIGITS-TAUGHT"), first, code, "webshop", NO_FIX, TYPE, BEFORE);
  await waitDiagnosed(taught);
  const fix = `{"fix":[{"path":"batchid","after":${BIG}},{"path":"exchangerate","after":${LONG}},{"path":"memo","after":"checked"}]}`;
  const r = await fetch(`${base()}/api/sync-error-assist/proposals/${taught}/approve`, { method: "POST",
    headers: { Authorization: "Bearer " + (await token("approver")), "Content-Type": "application/json" }, body: fix });
  expect(r.status, await r.text()).toBe(200);
  expect(await written(first)).toContain(`"batchid":${BIG}`);

  const record = await newRecord(TYPE, BEFORE);
  const errorId = unique("E2E-DIGITS");
  const id = await postSyncError(errorId, record, code, "webshop", NO_FIX, TYPE, BEFORE);
  await waitDiagnosed(id);
  // The service holds every digit: what the console does with them is the test.
  const proposal = await (await fetch(`${base()}/api/sync-error-assist/proposals/${id}`, { headers: { Authorization: "Bearer " + (await token("approver")) } })).text();
  expect(proposal).toContain(`"after":${BIG}`);
  expect(proposal).toContain(`"after":${LONG}`);
  return { id, errorId, record };
}

async function approved(page: Page, errorId: string) {
  await expect(page.getByRole("status").filter({ hasText: errorId })).toContainText(/Approved|written/);
}

test("an edit of one field of a proposed fix sends the others' long numbers with every digit", async ({ page }) => {
  const { id, errorId, record } = await learnedRow("BATCH_DIGITS_KEPT");
  // An approver may not read the vendor's metadata: the proposal's own values type the fix.
  await signIn(page, "approver", "/queue/" + id);
  const detail = page.getByRole("region", { name: errorId });
  await expect(detail.getByLabel("Proposed value for batchid")).toHaveValue(BIG);
  await expect(detail.getByLabel("Proposed value for exchangerate")).toHaveValue(LONG);
  await detail.getByLabel("Proposed value for memo").fill("counted again");
  const says = detail.locator("#writes-line");
  for (const part of [`batchid = ${BIG}`, `exchangerate = ${LONG}`, `memo = "counted again"`]) await expect(says).toContainText(part);
  await accessible(page, "edited fix with long numbers");

  await detail.getByRole("button", { name: "Approve" }).click();
  await approved(page, errorId);
  const fields = await written(record);
  expect(fields).toContain(`"batchid":${BIG}`);
  expect(fields).toContain(`"exchangerate":${LONG}`);
  expect(fields).toContain(`"memo":"counted again"`);
});

test("a 20-digit number typed into a number field is written with every digit", async ({ page }) => {
  const record = await newRecord(TYPE, BEFORE);
  const errorId = unique("E2E-DIGITS-TYPED");
  const id = await postSyncError(errorId, record, "BATCH_DIGITS_TYPED", "webshop", NO_FIX, TYPE, BEFORE);
  await waitDiagnosed(id);

  // An admin reads the vendor's metadata: batchid and exchangerate are number fields.
  await signIn(page, "admin", "/queue/" + id);
  const detail = page.getByRole("region", { name: errorId });
  await detail.getByRole("button", { name: "Add a field change" }).click();
  // The field names are a list once the vendor's metadata is read, a text input before.
  await expect(detail.getByLabel("Field to change").locator("option", { hasText: "batchid" })).toHaveCount(1);
  await detail.getByLabel("Field to change").selectOption("batchid");
  await detail.getByLabel("New value for batchid").fill("12345678901234567891");
  await detail.getByRole("button", { name: "Add a field change" }).click();
  await detail.getByLabel("Field to change").nth(1).selectOption("exchangerate");
  await detail.getByLabel("New value for exchangerate").fill("+000123456789012345.6789");
  await expect(detail.getByText(`Approve writes batchid = 12345678901234567891, exchangerate = ${LONG} to NetSuite ${TYPE} ${record}`)).toBeVisible();

  await detail.getByRole("button", { name: "Approve" }).click();
  await approved(page, errorId);
  const fields = await written(record);
  expect(fields).toContain(`"batchid":12345678901234567891`);
  expect(fields).toContain(`"exchangerate":${LONG}`);
});

test("a browser that cannot read long numbers exactly refuses to send an edited fix holding one, and approves it unedited", async ({ page }) => {
  const { id, errorId, record } = await learnedRow("BATCH_DIGITS_OLD_BROWSER");
  // A browser before JSON.rawJSON (Chrome 114, Firefox 135, Safari 18.4): JSON.parse rounds.
  await page.addInitScript(() => { delete (JSON as { rawJSON?: unknown }).rawJSON; });
  await signIn(page, "approver", "/queue/" + id);
  const detail = page.getByRole("region", { name: errorId });
  const approve = detail.getByRole("button", { name: "Approve" });
  await expect(detail.getByText("may be shown rounded by this browser; Approve writes the exact value")).toHaveCount(2);
  await expect(detail.locator("#writes-line")).toContainText("batchid = ≈ 12345678901234567000");

  await detail.getByLabel("Proposed value for memo").fill("counted again");
  const says = detail.locator("#writes-line");
  await expect(says).toContainText("Approve writes nothing until the fix is corrected:");
  await expect(says).toContainText("batchid holds a number this browser may have rounded");
  await expect(says).toContainText("exchangerate holds a number this browser may have rounded");
  await expect(says).toContainText("reset the edits to approve the fix as proposed (the service writes its exact values)");
  await expect(approve).toBeDisabled();
  // Nor is a long number typed here sent: this browser would send it rounded.
  await detail.getByLabel("Proposed value for batchid").fill("12345678901234567891");
  await expect(detail.getByText("batchid has more digits than this browser can send exactly").first()).toBeVisible();
  await accessible(page, "edited fix refused in a browser that rounds");

  // Unedited, Approve sends no values: the service writes its own, every digit.
  for (const path of ["batchid", "memo"]) await detail.getByRole("row", { name: new RegExp("^" + path) }).getByRole("button", { name: "Reset to AI value" }).click();
  await expect(approve).toBeEnabled();
  await approve.click();
  await approved(page, errorId);
  const fields = await written(record);
  expect(fields).toContain(`"batchid":${BIG}`);
  expect(fields).toContain(`"exchangerate":${LONG}`);
  expect(fields).toContain(`"memo":"checked"`);
});

test("a browser that cannot read long numbers exactly still sends a typed 12.50, as 12.5", async ({ page }) => {
  const record = await newRecord(TYPE, BEFORE);
  const errorId = unique("E2E-DIGITS-ZEROS");
  const id = await postSyncError(errorId, record, "BATCH_DIGITS_ZEROS", "webshop", NO_FIX, TYPE, BEFORE);
  await waitDiagnosed(id);
  await page.addInitScript(() => { delete (JSON as { rawJSON?: unknown }).rawJSON; });
  await signIn(page, "admin", "/queue/" + id);
  const detail = page.getByRole("region", { name: errorId });
  await detail.getByRole("button", { name: "Add a field change" }).click();
  // A list once the vendor's metadata is read (a text input before: selectOption fails).
  await expect(detail.getByLabel("Field to change").locator("option", { hasText: "exchangerate" })).toHaveCount(1);
  await detail.getByLabel("Field to change").selectOption("exchangerate");
  // The same number: only digits a float64 would lose are refused in such a browser.
  await detail.getByLabel("New value for exchangerate").fill("12.50");
  await expect(detail.getByText(`Approve writes exchangerate = 12.5 to NetSuite ${TYPE} ${record}`)).toBeVisible();

  await detail.getByRole("button", { name: "Approve" }).click();
  await approved(page, errorId);
  expect(await written(record)).toContain(`"exchangerate":12.5`);
});
