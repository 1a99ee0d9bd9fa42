// Issue 35 §5: the dry run runs the flow as edited (unsaved), says what would happen
// ("would write", "would skip", never "written"), names the mapped fields the record
// lacks, and runs the filter rows as edited; a Settings error stays in Settings.
import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";

const views = [{ width: 1440, scheme: "light" }, { width: 390, scheme: "dark" }] as const;

for (const { width, scheme } of views) {
  test(`flows: the dry run runs the unsaved edit and says what would happen (${width} px, ${scheme})`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page, "admin", "/flows");
    const defs = page.getByRole("region", { name: "Flows" });
    const row = defs.getByRole("row").filter({ has: page.getByRole("cell", { name: "erp-customer-to-crm", exact: true }) });
    await expect(row).toContainText("Phone ← phone");
    await row.getByRole("button", { name: "Edit erp-customer-to-crm" }).click();
    const form = page.getByRole("form", { name: "Edit flow erp-customer-to-crm" });
    // Unsaved: Phone now comes from a field the sample does not carry.
    const targets = form.getByLabel(/^Target field, row \d+$/);
    let phone = 0;
    for (let i = 1; i <= (await targets.count()); i++) if ((await form.getByLabel(`Target field, row ${i}`).inputValue()) === "Phone") phone = i;
    expect(phone).toBeGreaterThan(0);
    await form.getByLabel(`Source field, row ${phone}`).fill("mobile");

    const dry = form.getByRole("group", { name: "Dry run" });
    await dry.getByLabel("Source record id").fill("C-2001");
    await dry.getByLabel(/Sample fields/).fill('{"companyName": "Nordwind Handel GmbH", "phone": "+49 40 000 2222"}');
    await dry.getByRole("button", { name: "Dry run" }).click();
    const result = dry.getByRole("status", { name: "Dry run result" });
    await expect(result).toContainText("would write");
    await expect(result).toContainText("Nothing was written");
    // No outcome says "written": the one "written" is "Nothing was written".
    expect((await result.innerText()).replace("Nothing was written", "")).not.toMatch(/\bwritten\b/);
    const fields = result.getByRole("table", { name: "Fields the flow would write" });
    await expect(fields).toContainText("Nordwind Handel GmbH");
    await expect(fields).not.toContainText("+49 40 000 2222"); // the saved mapping's phone is not what runs
    await expect(result.getByRole("note")).toContainText("Phone ← mobile");
    await accessible(page, `dry run of the edit ${width} ${scheme}`);

    // The filter as rows, run as edited: a record the condition does not hold for is skipped.
    await form.getByRole("button", { name: "Add condition" }).click();
    await form.getByLabel("Filter field, row 1").fill("companyName");
    await form.getByLabel("Filter value, row 1").fill("Someone else");
    await dry.getByRole("button", { name: "Dry run" }).click();
    await expect(result).toContainText("would skip");
    await expect(result).toContainText("filter on companyName does not hold");

    // Nothing of it was saved.
    await form.getByRole("button", { name: "Cancel" }).click();
    await expect(row).toContainText("Phone ← phone");
    await expect(row).not.toContainText("companyName ="); // still no filter
  });
}

test("a write error raised in Settings does not follow the user into Flows", async ({ page }) => {
  await signIn(page, "admin", "/settings");
  await page.route("**/api/settings", (r) => r.request().method() === "PATCH"
    ? r.fulfill({ status: 500, contentType: "application/problem+json", body: JSON.stringify({ title: "Internal Server Error", status: 500, code: "internal" }) })
    : r.fallback());
  await page.getByLabel("Embedded allowed roles").fill("approver");
  await page.getByRole("button", { name: "Save flags" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Something went wrong in the service" })).toBeVisible();
  await page.getByRole("link", { name: "Flows" }).click();
  await expect(page.getByRole("heading", { name: "Flow runs" })).toBeVisible();
  await expect(page.getByText("Something went wrong in the service")).toHaveCount(0);
});
