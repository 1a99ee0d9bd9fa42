// The accessibility check itself (support/browser.ts): its own scan of a page of one frame
// finds what AxeBuilder's finds, and a page with frames is checked inside them too. Every
// other spec's accessible() is only as good as this.
import { expect, test } from "@playwright/test";
import { accessible, violations, violationsAcrossFrames } from "./support/browser";

// No lang, an image without alt text, a button without a name, grey on white: one serious
// or critical violation each.
const broken = `<!doctype html><html><head><title>broken</title></head><body><main>
  <h1>Broken</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
  <button></button><p style="color:#bbb;background:#fff">faint text</p></main></body></html>`;
const clean = `<!doctype html><html lang="en"><head><title>clean</title></head><body><main>
  <h1>Clean</h1><button>Approve</button><p>plain text</p></main></body></html>`;

const ids = (vs: { id: string }[]) => vs.map((v) => v.id).sort();

test("the page scan finds what AxeBuilder finds, and fails the test on it", async ({ page }) => {
  await page.setContent(broken);
  const mine = await violations(page);
  expect(ids(mine)).toEqual(["button-name", "color-contrast", "html-has-lang", "image-alt"]);
  expect(ids(mine)).toEqual(ids(await violationsAcrossFrames(page)));
  expect(ids(await violations(page, ["color-contrast"]))).toEqual(["color-contrast"]);
  await expect(accessible(page, "broken")).rejects.toThrow(/image-alt \(critical\)/);
  await page.setContent(clean);
  await accessible(page, "clean");
});

test("a page with a frame is checked inside the frame", async ({ page }) => {
  await page.setContent(`<!doctype html><html lang="en"><head><title>host</title></head><body><main>
    <iframe title="inner" srcdoc='<html lang="en"><title>inner</title><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></html>'></iframe>
    </main></body></html>`);
  await expect(page.frames()).toHaveLength(2);
  await expect(accessible(page, "host")).rejects.toThrow(/image-alt/);
});
