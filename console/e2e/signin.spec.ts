import { expect, test } from "./support/fixtures";
import { accessible, signIn } from "./support/browser";

test("signed out: the console offers Sign in, and the dev issuer's page is accessible", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "SyncAssist" })).toBeVisible();
  await accessible(page, "signed out");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByLabel("Tenant")).toHaveValue("demo");
  await accessible(page, "dev sign-in");
});

for (const role of ["operator", "approver", "admin"] as const) {
  test(`dev sign-in as ${role}, tokens in sessionStorage only, sign out`, async ({ page }) => {
    await signIn(page, role, "/", { flow: true }); // the flow itself, every time
    await expect(page).toHaveURL(/\/queue$/);
    const stored = await page.evaluate(() => ({ session: sessionStorage.length, local: localStorage.length }));
    expect(stored.session).toBeGreaterThan(0);
    expect(stored.local).toBe(0);
    const nav = page.getByRole("navigation", { name: "Panels" });
    await expect(nav.getByRole("link", { name: "Governance" })).toHaveCount(role === "operator" ? 0 : 1);
    await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(role === "operator" ? 0 : 1);
    await expect(nav.getByRole("link", { name: "Queue", exact: true })).toBeVisible(); // a plain name, the count beside it
    await expect(nav.getByRole("listitem").filter({ hasText: "Queue" })).toContainText(/\d+ pending/);
    await page.keyboard.press("?");
    await expect(page.getByRole("region", { name: "Keyboard shortcuts" })).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  });
}

// A first load: a context of its own, whose cache is empty (support/fixtures.ts).
test.describe(() => {
  test.use({ ownContext: true });
  test("first contentful paint and first-load JavaScript (reported, not asserted)", async ({ page }) => {
    await page.goto("/");
    await expect(page.getByRole("heading", { name: "SyncAssist" })).toBeVisible();
    const m = await page.evaluate(async () => {
      // The paint entry may be queued after the heading shows: wait for it (buffered).
      const fcp = await new Promise<number>((done) => {
        new PerformanceObserver((l) => {
          const e = l.getEntriesByName("first-contentful-paint")[0];
          if (e) done(e.startTime);
        }).observe({ type: "paint", buffered: true });
        setTimeout(() => done(-1), 5000);
      });
      const js = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((r) => r.name.endsWith(".js")).reduce((n, r) => n + r.decodedBodySize, 0);
      return { fcp, js };
    });
    console.log(`console first contentful paint ${m.fcp.toFixed(0)} ms, first-load JS ${(m.js / 1024).toFixed(1)} KiB`);
    expect(m.js).toBeGreaterThan(0);
  });
});
