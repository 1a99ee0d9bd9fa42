import type axe from "axe-core";
import { expect, type Frame, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { base } from "./stack";

/** axe-core's minified build, the same version and rules as its axe.source (which is the
 *  unminified axe.js, 1.48 MB): each injection sends it over the DevTools pipe and the page
 *  parses it, so the 654 KB build is less of both (measured: see CHANGELOG, 2026-12-01).
 *  Its 17 characters outside ASCII (©, ®, –, …, U+FFFD in string literals; the property
 *  name ε) go as \u escapes, the same strings and the same name: one of them made the
 *  protocol carry the whole source as UTF-16 and V8 scan it as a two-byte string
 *  (measured: see CHANGELOG, 2026-12-02). All are in the Basic Multilingual Plane. */
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8")
  .replace(/[^\x00-\x7f]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

type Role = "operator" | "approver" | "admin";

/** The session each role's sign-in through the issuer stored (sessionStorage's
 *  "syncassist.session", as console/src/auth.ts keeps it), by the worker's stack and role. A
 *  module of a worker process, so per worker: each worker has a stack (and an issuer's key) of
 *  its own, and a worker that restarts signs in through the issuer again. */
const kept = new Map<string, { value: string; expiresAt: number }>();

/** A kept session this close to its end is not reused: a test must not outlive it. */
const expiryMargin = 10 * 60_000;

/** signIn signs page in as role and opens path. The first sign-in of a role in a worker goes
 *  through the console's Sign in and the dev issuer's page, as a person does (signInFlow);
 *  later ones put the session that flow stored into the page's sessionStorage, which is all
 *  the flow leaves behind: two page loads (the issuer's page, the redirect back) less per
 *  test. The session goes in through a same-origin page, not an init script, so a test that
 *  signs out and reloads stays signed out. flow: through the issuer every time, for a test
 *  of the flow itself or one that signs in on what another session left. */
export async function signIn(page: Page, role: Role, path = "/", { flow = false } = {}) {
  const key = `${base()} ${role}`;
  const s = kept.get(key);
  if (flow || !s || s.expiresAt - Date.now() < expiryMargin) {
    await signInFlow(page, role, path);
    const value = await page.evaluate(() => sessionStorage.getItem("syncassist.session"));
    if (value) kept.set(key, { value, expiresAt: (JSON.parse(value) as { expiresAt: number }).expiresAt });
    return;
  }
  await page.goto("/config.json"); // the stack's cheapest page on the console's origin
  await page.evaluate((v) => sessionStorage.setItem("syncassist.session", v), s.value);
  await page.goto(path);
  await expect(page.getByText(`dev-${role} · ${role}`)).toBeVisible();
}

/** signInFlow goes through the console's Sign in and the dev issuer's page, as a person does. */
async function signInFlow(page: Page, role: Role, path: string) {
  await page.goto(path);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByLabel("Role").selectOption(role);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`dev-${role} · ${role}`)).toBeVisible();
}

/** accessible fails on serious or critical axe violations of what the page shows now (of
 * the rules given, else of all). */
export async function accessible(page: Page, what: string, rules?: string[]) {
  const bad = page.frames().length > 1 ? await violationsAcrossFrames(page, rules) : await violations(page, rules);
  expect(bad.map((v) => `${what}: ${v.id} (${v.impact}) ${v.targets.join(", ")}`)).toEqual([]);
}

type Violation = { id: string; impact?: string | null; targets: string[] };

/** serious keeps the serious and critical violations of a scan, each with its nodes' targets. */
const serious = (found: axe.Result[]): Violation[] =>
  found.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));

/** violations runs axe in a page of one frame: axe-core injected once per document (it is
 * 650 KB of script) and axe.run in the page, asked for violations only. AxeBuilder injects
 * it twice per scan, collects every passing node too, and finishes each scan in a new page
 * of its own — the work of running axe across frames, which a page of one frame does not
 * need (measured: see the README's Tests section). Same rules, same engine, same results. */
export async function violations(page: Page, rules?: string[]): Promise<Violation[]> {
  await injectAxe(page.mainFrame());
  const found = await page.evaluate(async (rules) => {
    const a = (window as unknown as { axe: typeof axe }).axe;
    const r = await a.run(document, {
      resultTypes: ["violations"],
      ...(rules ? { runOnly: { type: "rule", values: rules } } : {}),
    });
    return r.violations;
  }, rules);
  return serious(found);
}

/** violationsAcrossFrames checks a page with frames (the embedded surface in its host's page,
 * another origin) in each frame, as AxeBuilder does: axe.runPartial in every frame, then
 * axe.finishRun over their results in a blank page (axe-core's API for a scan across frames).
 * Not AxeBuilder itself: it gives each frame one second to evaluate axe-core and, past it,
 * leaves the frame out without a word. A loaded machine's did (CI run 171, 2026-12-02), and
 * the scan passed having checked only the host's page. Here axe goes into a frame with no
 * such limit, and a frame it cannot reach fails the scan by name. */
export async function violationsAcrossFrames(page: Page, rules?: string[]): Promise<Violation[]> {
  const options: axe.RunOptions = rules ? { runOnly: { type: "rule", values: rules } } : {};
  const partials = await partialResults(page.mainFrame(), null, options);
  const blank = await page.context().newPage();
  try {
    await injectAxe(blank.mainFrame());
    const found = await blank.evaluate(({ partials, options }) => {
      const a = (window as unknown as { axe: typeof axe }).axe;
      return a.finishRun(partials as axe.PartialResults, options).then((r) => r.violations);
    }, { partials, options });
    return serious(found);
  } finally {
    await blank.close();
  }
}

/** partialResults runs axe.runPartial in frame and, depth first, in the frames inside it: the
 * order axe.finishRun reads them in. A context and a result are axe's JSON, passed through. */
async function partialResults(frame: Frame, context: unknown, options: axe.RunOptions): Promise<unknown[]> {
  type Axe = { axe: typeof axe };
  await injectAxe(frame);
  const inner = await frame.evaluate((context) => (window as unknown as Axe).axe.utils
    .getFrameContexts((context ?? undefined) as axe.ElementContext) as unknown as { frameSelector: unknown; frameContext: unknown }[], context);
  const own: unknown = await frame.evaluate(({ context, options }) =>
    (window as unknown as Axe).axe.runPartial((context ?? document) as axe.ElementContext, options), { context, options });
  const results = [own];
  for (const { frameSelector, frameContext } of inner) {
    const handle = await frame.evaluateHandle((s) => (window as unknown as Axe).axe.utils.shadowSelect(s as axe.CrossTreeSelector), frameSelector);
    const child = await handle.asElement()?.contentFrame();
    if (!child) throw new Error(`axe could not reach the frame ${JSON.stringify(frameSelector)} of ${frame.url()}`);
    results.push(...(await partialResults(child, frameContext, options)));
  }
  return results;
}

/** injectAxe evaluates axe-core in frame unless it is there already. */
async function injectAxe(frame: Frame) {
  if (!(await frame.evaluate(() => typeof (window as { axe?: unknown }).axe === "object"))) {
    await frame.evaluate(axeSource);
  }
}

/** The axe rules whose outcome depends on colours: a colour scheme changes only the
 * palette (style.css: custom properties under prefers-color-scheme), so the rest answer
 * the same in both. */
export const colourRules = ["color-contrast", "link-in-text-block"];

/** axeBoth checks the page as shown in dark mode with every rule and in light mode with the
 * colour rules (the others answer the same DOM the same), and leaves it light. */
export async function axeBoth(page: Page, what: string) {
  await page.emulateMedia({ colorScheme: "dark" });
  await accessible(page, `${what} (dark)`);
  await page.emulateMedia({ colorScheme: "light" });
  await accessible(page, `${what} (light)`, colourRules);
}
