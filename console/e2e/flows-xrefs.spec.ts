// The Flows panel's cross-reference: look up a record's links, and as an admin link,
// re-link and unlink it over PUT /api/flows/xrefs; a link someone changed meanwhile is a
// 409 shown with the link as it is now and the change offered again on it. At a desktop's
// and a phone's width, axe-clean in light and dark. Each test's records are its own.
import { expect, test } from "./support/fixtures";
import { axeBoth, signIn } from "./support/browser";
import { call } from "./support/stack";

const widths = [1440, 390];
const stamp = () => Date.now().toString(36).toUpperCase();

interface XRefList { items: { target: { system: string; entity: string; id: string }; state: string }[] }

for (const width of widths) {
  test(`cross-reference: an admin links, re-links over a concurrent change, and unlinks a record, at ${width} px`, async ({ page }) => {
    const tag = stamp();
    const source = { system: "hosterp", entity: "customer", id: `XR-${width}-${tag}` };
    const [a, b, c] = ["A", "B", "C"].map((x) => `001XR${width}${tag}${x}`);
    const q = new URLSearchParams({ xsystem: source.system, xentity: source.entity, xid: source.id });
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, "admin", "/flows?" + q);
    const section = page.getByRole("region", { name: "Cross-reference" });
    await expect(section).toContainText(`hosterp/customer ${source.id} is linked to no record in another system.`);
    await axeBoth(page, `cross-reference, none ${width}`);

    // Link: the record's Account in the CRM.
    const link = section.getByRole("form", { name: "Link to a counterpart" });
    await link.getByLabel("System").selectOption("crm");
    await link.getByLabel("Entity").fill("Account");
    await link.getByLabel("Record id").fill(a);
    await link.getByRole("button", { name: "Link" }).click();
    const row = section.getByRole("row").filter({ hasText: "crm/Account" });
    await expect(row).toContainText(a);
    await expect(row).toContainText("linked");
    await expect(row).toContainText("by hand, dev-admin");
    await expect(page.getByRole("status").filter({ hasText: `Linked hosterp/customer ${source.id} to crm/Account ${a}` })).toBeAttached();
    await expect(link.getByRole("button", { name: "Link" })).toBeDisabled(); // crm/Account is linked now: re-link it instead

    // Re-link to B, while someone else re-links it to C first: the 409 shows C, and the
    // change is offered again on C.
    await row.getByRole("button", { name: "Re-link" }).click();
    const relink = section.getByRole("form", { name: "Re-link to another crm/Account record" });
    await relink.getByLabel(/New crm\/Account record id/).fill(b);
    await call("admin", "PUT", "/api/flows/xrefs", { source, target: { system: "crm", entity: "Account", id: c }, expect: a });
    await relink.getByRole("button", { name: "Re-link" }).click();
    const alert = section.getByRole("alert");
    await expect(alert).toContainText("Someone changed this link meanwhile; nothing was changed.");
    await expect(alert).toContainText(`It is now linked to ${c}`);
    await expect(alert).toContainText(`You wanted to link it to ${b}.`);
    await expect(row).toContainText(c); // the table shows the link as it is now
    await axeBoth(page, `cross-reference, conflict ${width}`);
    await alert.getByRole("button", { name: `Link to ${b} instead of ${c}` }).click();
    await expect(row).toContainText(b);
    await expect(section.getByRole("alert")).toHaveCount(0);
    let now = await call<XRefList>("operator", "GET", "/api/flows/xrefs?" + new URLSearchParams(source));
    expect(now.items.map((x) => [x.target.id, x.state])).toEqual([[b, "linked"]]);

    // The other way round, the CRM Account B knows its counterpart too.
    now = await call<XRefList>("operator", "GET", "/api/flows/xrefs?" + new URLSearchParams({ system: "crm", entity: "Account", id: b }));
    expect(now.items.map((x) => x.target.id)).toEqual([source.id]);

    // Unlink, asked first.
    await row.getByRole("button", { name: "Unlink" }).click();
    const dialog = page.getByRole("dialog", { name: `Unlink crm/Account ${b}?` });
    await expect(dialog).toContainText("no longer counterparts, both ways");
    await axeBoth(page, `cross-reference, unlink dialog ${width}`);
    await dialog.getByRole("button", { name: "Unlink" }).click();
    await expect(section).toContainText(`hosterp/customer ${source.id} is linked to no record in another system.`);
    now = await call<XRefList>("operator", "GET", "/api/flows/xrefs?" + new URLSearchParams(source));
    expect(now.items).toEqual([]);
    // The lookup is in the URL: a reload shows the same record.
    await page.reload();
    await expect(page.getByRole("region", { name: "Cross-reference" })).toContainText(`${source.id} is linked to no record`);
  });
}

test("cross-reference: a target that is another record's counterpart is refused in words; an operator looks up but changes nothing", async ({ page }) => {
  const tag = stamp();
  const target = { system: "crm", entity: "Account", id: `001XRT${tag}` };
  await call("admin", "PUT", "/api/flows/xrefs", { source: { system: "hosterp", entity: "customer", id: `XR-OWN-${tag}` }, target, expect: "" });

  await signIn(page, "admin", "/flows?" + new URLSearchParams({ xsystem: "hosterp", xentity: "customer", xid: `XR-OTHER-${tag}` }));
  const section = page.getByRole("region", { name: "Cross-reference" });
  const link = section.getByRole("form", { name: "Link to a counterpart" });
  await link.getByLabel("System").selectOption("crm");
  await link.getByLabel("Entity").fill("Account");
  await link.getByLabel("Record id").fill(target.id);
  await link.getByRole("button", { name: "Link" }).click();
  await expect(section.getByRole("alert")).toContainText("That record is already another record's counterpart.");
  await expect(section.getByRole("alert")).toContainText("unlink that one first");
  await expect(section).toContainText("is linked to no record in another system.");

  const q = new URLSearchParams({ xsystem: "crm", xentity: "Account", xid: target.id });
  const other = await page.context().browser()!.newContext();
  const op = await other.newPage();
  await signIn(op, "operator", "/flows?" + q);
  const seen = op.getByRole("region", { name: "Cross-reference" });
  await expect(seen.getByRole("row").filter({ hasText: "hosterp/customer" })).toContainText(`XR-OWN-${tag}`);
  await expect(seen).toContainText("Changing a link needs an admin.");
  await expect(seen.getByRole("button", { name: /Re-link|Unlink/ })).toHaveCount(0);
  await expect(seen.getByRole("form", { name: "Link to a counterpart" })).toHaveCount(0);
  await other.close();
});

test("cross-reference: an unconfirmed create is settled by the admin's word, and one the API does not know is refused in words", async ({ page }) => {
  const tag = stamp();
  const source = { system: "hosterp", entity: "customer", id: `XR-MADE-${tag}` };
  const at = new Date().toISOString();
  const creating = { source, target: { system: "crm", entity: "Account", id: "" }, state: "pending", anchor: source.id,
    claimedBy: "run_AAAAAAAAAAAAAAAAAAAAAAAAAA", creating: true, flowId: "erp-customer-to-crm", createdAt: at, updatedAt: at };
  // The stack cannot lose a create's answer on demand, so the listing is the one a lost
  // create leaves; the settle itself goes to the API, which knows no such create (409),
  // and then, answered as the API answers a settle, shows the link.
  await page.route("**/api/flows/xrefs?*", (r) => r.request().method() === "GET"
    ? r.fulfill({ json: { items: [creating] } }) : r.fallback());
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, "admin", "/flows?" + new URLSearchParams({ xsystem: source.system, xentity: source.entity, xid: source.id }));
  const section = page.getByRole("region", { name: "Cross-reference" });
  const row = section.getByRole("row").filter({ hasText: "crm/Account" });
  await expect(row).toContainText("create unconfirmed");
  await expect(section).toContainText("a flow run sent it and its answer was lost");
  await axeBoth(page, "cross-reference, unconfirmed create");

  await row.getByRole("button", { name: "It was not created" }).click();
  const dialog = page.getByRole("dialog", { name: "No crm/Account record was created?" });
  await expect(dialog).toContainText("the next change of hosterp/customer");
  await dialog.getByRole("button", { name: "It was not created" }).click();
  await expect(section.getByRole("alert")).toContainText("Not settled: there is no unconfirmed create to settle.");
  await expect(section.getByRole("alert")).toContainText("there is no pending create of it");
  await section.getByRole("alert").getByRole("button", { name: "Dismiss" }).click();

  let sent: unknown = null;
  await page.route("**/api/flows/xrefs", (r) => {
    sent = r.request().postDataJSON();
    return r.fulfill({ json: { items: [{ ...creating, target: { ...creating.target, id: `001M${tag}` }, state: "linked", creating: undefined,
      claimedBy: undefined, action: "created", linkedBy: "admin:dev-admin" }] } });
  });
  await row.getByRole("button", { name: "It was created" }).click();
  const form = section.getByRole("form", { name: "Link the crm/Account record the create made" });
  await form.getByLabel("Id of the crm/Account record the create made").fill(`001M${tag}`);
  await form.getByRole("button", { name: "Link as created" }).click();
  await expect(row).toContainText(`001M${tag}`);
  await expect(row).toContainText("linked");
  expect(sent).toEqual({ source, target: { system: "crm", entity: "Account", id: `001M${tag}` }, expect: "", settle: "created" });
  await expect(page.getByRole("status").filter({ hasText: `Settled: hosterp/customer ${source.id} is linked to crm/Account 001M${tag}` })).toBeAttached();
});
