// The accessibility check itself (support/browser.ts): its own scans find what AxeBuilder's
// finds, and a page with frames is checked inside them too, however long a frame takes to
// take axe. Every other spec's accessible() is only as good as this.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { accessible, violations, violationsAcrossFrames } from "./support/browser";

// No lang, an image without alt text, a button without a name, grey on white: one serious
// or critical violation each.
const broken = `<!doctype html><html><head><title>broken</title></head><body><main>
  <h1>Broken</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
  <button></button><p style="color:#bbb;background:#fff">faint text</p></main></body></html>`;
const clean = `<!doctype html><html lang="en"><head><title>clean</title></head><body><main>
  <h1>Clean</h1><button>Approve</button><p>plain text</p></main></body></html>`;

const ids = (vs: { id: string }[]) => vs.map((v) => v.id).sort();

/** reference is AxeBuilder's scan of page, its serious and critical violations' ids. */
async function reference(page: Page) {
  const found = (await new AxeBuilder({ page }).analyze()).violations;
  return ids(found.filter((v) => v.impact === "serious" || v.impact === "critical"));
}

test("the page scans find what AxeBuilder finds, and fail the test on it", async ({ page }) => {
  await page.setContent(broken);
  const mine = await violations(page);
  expect(ids(mine)).toEqual(["button-name", "color-contrast", "html-has-lang", "image-alt"]);
  expect(ids(mine)).toEqual(await reference(page));
  expect(ids(await violationsAcrossFrames(page))).toEqual(ids(mine));
  expect(ids(await violations(page, ["color-contrast"]))).toEqual(["color-contrast"]);
  expect(ids(await violationsAcrossFrames(page, ["color-contrast"]))).toEqual(["color-contrast"]);
  await expect(accessible(page, "broken")).rejects.toThrow(/image-alt \(critical\)/);
  await page.setContent(clean);
  await accessible(page, "clean");
});

const framed = `<!doctype html><html lang="en"><head><title>host</title></head><body><main><h1>Host</h1>
  <iframe title="inner" srcdoc='<html lang="en"><title>inner</title><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></html>'></iframe>
  </main></body></html>`;

test("a page with a frame is checked inside the frame", async ({ page }) => {
  await page.setContent(framed);
  await expect(page.frames()).toHaveLength(2);
  expect(ids(await violationsAcrossFrames(page))).toEqual(["image-alt"]);
  await expect(accessible(page, "host")).rejects.toThrow(/image-alt/);
});

// AxeBuilder gives a frame one second to take axe-core and then leaves it out without a word:
// on a loaded machine the scan above passed without the frame's image (CI run 171). Thirty
// times slower, as CDP's CPU throttling makes the page, AxeBuilder's scan leaves it out here
// every time (measured: ten times slower it did not); this one still checks it.
test("a frame slow to take axe is still checked", async ({ page }) => {
  await page.setContent(framed);
  await violations(page); // axe in the host's page before the throttle: only the frame's is slow
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 30 });
  expect(ids(await violationsAcrossFrames(page))).toEqual(["image-alt"]);
});
