// The specs' test and expect. Each test's page is a page of its own, as Playwright's is, but
// opened in a browser context and a renderer process its worker keeps for its tests, so the
// page starts in a renderer that has already compiled the console's bundle and axe-core.
//
// Why: a context per test (Playwright's default) is a renderer process per test, which
// starts empty and compiles axe-core's 654 KB and the console's bundle again. The whole
// suite on two workers: 144 renderers and 291 CPU-s of Chromium that way, 24 and 211 this
// way (the README's Tests section, 2026-12-03).
//
// What a test shares with the worker's earlier tests is what a context holds: cookies (the
// console sets none), permissions (cleared after each test), storage other than the tab's
// sessionStorage (the console uses none), and the HTTP and memory caches (the bundle's
// hashed files, cached as a returning user's browser has them). Everything a page holds is
// its own: its sessionStorage (a page opened by another starts with a copy of its opener's,
// and the opener never writes one), routes, listeners, init scripts, clock, viewport and
// colour scheme. A test that needs an empty cache (it counts the bundle's requests) asks
// for a context of its own with test.use({ ownContext: true }). After a failed test the
// worker starts a new context and renderer, so what a failure left behind reaches no other
// test.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test as base, type Browser, type BrowserContext, type Page } from "@playwright/test";

export { expect } from "@playwright/test";

/** Shared is a worker's context and its keeper: a page that stays open, so the renderer
 *  stays, and opens each test's page. The keeper's page is a blank one of the worker's own
 *  on 127.0.0.1, the stack's site (Chromium keeps a site's pages in one renderer, whatever
 *  their ports), without the console's Content-Security-Policy: a page opened by another
 *  starts as about:blank under its opener's policy, and a test that writes its own page
 *  with setContent (axe-check's inline styles) must get no policy, as a new tab has none. */
class Shared {
  private context?: BrowserContext;
  private keeper?: Page;
  private blank?: Server;

  constructor(private readonly browser: Browser) {}

  private async blankURL(): Promise<string> {
    if (!this.blank) {
      const s = createServer((_, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>keeper</title>"));
      await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
      this.blank = s;
    }
    return `http://127.0.0.1:${(this.blank.address() as AddressInfo).port}/`;
  }

  /** page opens a test's page from the keeper, starting the context first if there is none.
   *  Called from a test's fixture: a context made there gets the config's options. */
  async page(): Promise<Page> {
    if (!this.context || !this.keeper || this.keeper.isClosed()) {
      await this.drop();
      this.context = await this.browser.newContext();
      this.keeper = await this.context.newPage();
      await this.keeper.goto(await this.blankURL());
    }
    const keeper = this.keeper;
    const [page] = await Promise.all([keeper.waitForEvent("popup"), keeper.evaluate(() => { window.open("about:blank", "_blank"); })]);
    return page;
  }

  /** done closes a test's page. After a failure the whole context goes, the keeper first:
   *  Playwright writes the failure's page snapshot (printed by ci-context) from the first
   *  page of a context as it closes, which must be the test's. */
  async done(page: Page, passed: boolean) {
    if (!passed) {
      await this.drop();
      return;
    }
    // The test's page, and any page it opened.
    await Promise.all((this.context?.pages() ?? [page]).filter((p) => p !== this.keeper).map((p) => p.close()));
    await this.context?.clearPermissions();
  }

  async drop() {
    const { context, keeper } = this;
    this.context = this.keeper = undefined;
    await keeper?.close().catch(() => {});
    await context?.close().catch(() => {});
  }

  async close() {
    await this.drop();
    this.blank?.close();
  }
}

export const test = base.extend<{ ownContext: boolean }, { shared: Shared }>({
  ownContext: [false, { option: true }],
  shared: [async ({ browser }, use) => {
    const s = new Shared(browser);
    await use(s);
    await s.close();
  }, { scope: "worker" }],
  page: async ({ browser, shared, ownContext }, use, testInfo) => {
    if (ownContext) {
      const context = await browser.newContext();
      await use(await context.newPage());
      await context.close();
      return;
    }
    const page = await shared.page();
    await use(page);
    await shared.done(page, testInfo.status === testInfo.expectedStatus);
  },
});
