// Browser tests: Debian's Chromium (Playwright cannot download its own browsers here)
// against real local stacks on free ports, one per worker, started once by global-setup.
// Two workers by default (BROWSER_WORKERS): the specs mostly wait on the stack (a diagnosis,
// a queue's visibility timeout, a poll), so two at a time finish in about half the time on
// two cores.
import { defineConfig } from "@playwright/test";
import { base } from "./support/stack";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  // api-contract tears down first, while the stacks still answer (issue 36 §2).
  globalSetup: ["./global-setup.ts", "./api-contract.ts"],
  workers: Number(process.env.BROWSER_WORKERS || 2),
  retries: 0,
  // Bounds, not waits: a test ends as soon as its conditions hold. make test runs this lane
  // beside the race and template lanes on two cores, where a scan or a diagnosis can take
  // several times what it takes alone (measured: the automation specs 53-58 s with a 60 s
  // bound, and over it under a load of 30), so the bounds leave room for the machine.
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // ci-context prints the page and the stacks' logs of a failure into the log (CI keeps no files).
  reporter: [["list"], ["./support/ci-context.ts"]],
  use: {
    // An action waits about as long as an expectation, not the whole test: a click on a button
    // that never comes fails naming the button (CI's log said only "Test timeout of 300000ms").
    actionTimeout: 30_000,
    // Read in each worker, after Playwright set its TEST_PARALLEL_INDEX.
    baseURL: base(),
    headless: true,
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium-headless-shell",
      // --max-opt=1: V8 stops at its baseline compiler. A test's page lives seconds and runs
      // axe once or twice; Maglev and TurboFan compiled code it never ran long enough to repay
      // (measured: 7-9 % less Chromium CPU per signed-in page with an axe scan).
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--js-flags=--max-opt=1"],
    },
  },
});
