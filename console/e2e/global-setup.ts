// Builds and starts the local stack (emulators, demo tenant, fakes, dev issuer, API and
// console) on a free port in its own process group and state dir; the returned teardown
// kills the whole group, emulators included, whatever the tests did.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEMO_EMBEDDED_SECRET, DEMO_FINANCE_SECRET, DEMO_FLOW_SECRETS, DEMO_SECRET } from "./support/stack";

const root = resolve(__dirname, "..", "..");

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => ok(port));
    });
    s.on("error", fail);
  });
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the local stack did not answer " + url);
}

export default async function globalSetup() {
  execFileSync("go", ["build", "-o", "build/local-stack", "./infra/local"], { cwd: root, stdio: "inherit" });
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), "syncassist-e2e-"));
  const logPath = join(state, "stack.log");
  const log = openSync(logPath, "a");
  const stack = spawn(join(root, "build", "local-stack"), [], {
    cwd: root,
    detached: true, // its own process group: the teardown kills the emulators with it
    stdio: ["ignore", log, log],
    env: { ...process.env, PORT: String(port), LOCAL_STATE_DIR: state, DEMO_WEBHOOK_SECRET: DEMO_SECRET,
      DEMO_FINANCE_SECRET, DEMO_EMBEDDED_SECRET,
      ...Object.fromEntries(Object.entries(DEMO_FLOW_SECRETS).map(([sys, secret]) => ["DEMO_FLOW_SECRET_" + sys.toUpperCase(), secret])),
      RECONCILE_INTERVAL: "1h", LOCAL_VISIBILITY_TIMEOUT_SECONDS: "5" },
  });
  const base = `http://127.0.0.1:${port}`;
  process.env.CONSOLE_BASE_URL = base;
  process.env.LOCAL_STATE_DIR = state;
  const stop = () => {
    try {
      process.kill(-stack.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  process.on("exit", stop);
  try {
    await waitFor(base + "/local/ready", 90_000);
  } catch (e) {
    stop();
    console.error(readFileSync(logPath, "utf8").slice(-4000));
    throw e;
  }
  return async () => {
    stop();
    await new Promise((r) => setTimeout(r, 500));
    try {
      process.kill(-stack.pid!, "SIGKILL");
    } catch {
      // stopped cleanly
    }
  };
}
