// Browser tests: Debian's Chromium (Playwright cannot download its own browsers here)
// against a real local stack on a free port, started once by global-setup.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: ".",
  testMatch: /.*\.spec\.ts$/,
  // api-contract tears down first, while the stacks still answer (issue 36 §2).
  globalSetup: ["./global-setup.ts", "./api-contract.ts"],
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: process.env.CONSOLE_BASE_URL,
    headless: true,
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"],
    },
  },
});
