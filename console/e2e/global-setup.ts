// Builds and starts a local stack per worker (emulators, demo tenant, fakes, dev issuer, API
// and console), each on a free port in its own process group and state dir; the returned
// teardown kills every group, emulators included, whatever the tests did.
import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FullConfig } from "@playwright/test";
import { DEMO_EMBEDDED_SECRET, DEMO_FINANCE_SECRET, DEMO_FLOW_SECRETS, DEMO_SECRET, stackEnv } from "./support/stack";

const root = resolve(__dirname, "..", "..");

/** baseURL waits for the address the stack bound (PORT=0: the system picks a port, which
 *  the stack holds from its first moment and writes to its state dir). A port picked here
 *  and bound by the stack seconds later could be taken in between by another process: a CI
 *  run saw another test's server answer on it, then go. */
async function baseURL(state: string, ms: number, exited: () => boolean): Promise<string> {
  const until = Date.now() + ms;
  while (Date.now() < until && !exited()) {
    try {
      const url = readFileSync(join(state, "base-url"), "utf8");
      if (url) return url;
    } catch {
      // not bound yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the local stack wrote no base-url to " + state);
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

/** stack is one running local stack and how to stop it. */
interface Stack {
  base: string;
  state: string;
  logPath: string;
  exited: () => boolean;
  stop: () => void;
  kill: () => void;
}

/** startStack starts one local stack on a free port, in its own process group and state dir. */
async function startStack(): Promise<Stack> {
  const state = mkdtempSync(join(tmpdir(), "syncassist-e2e-"));
  const logPath = join(state, "stack.log");
  const log = openSync(logPath, "a");
  const stack = spawn(join(root, "build", "local-stack"), [], {
    cwd: root,
    detached: true, // its own process group: the teardown kills the emulators with it
    stdio: ["ignore", log, log],
    env: { ...process.env, PORT: "0", LOCAL_STATE_DIR: state, DEMO_WEBHOOK_SECRET: DEMO_SECRET,
      DEMO_FINANCE_SECRET, DEMO_EMBEDDED_SECRET,
      ...Object.fromEntries(Object.entries(DEMO_FLOW_SECRETS).map(([sys, secret]) => ["DEMO_FLOW_SECRET_" + sys.toUpperCase(), secret])),
      RECONCILE_INTERVAL: "1h", LOCAL_VISIBILITY_TIMEOUT_SECONDS: "5" },
  });
  closeSync(log);
  let gone = false;
  stack.on("exit", () => { gone = true; });
  const signal = (sig: NodeJS.Signals) => () => {
    try {
      process.kill(-stack.pid!, sig);
    } catch {
      // already gone
    }
  };
  const s = { base: "", state, logPath, exited: () => gone, stop: signal("SIGTERM"), kill: signal("SIGKILL") };
  process.on("exit", s.kill);
  return s;
}

/** checkSpecImports fails the run when a spec takes test from @playwright/test rather than
 *  support/fixtures: each of its tests would start a renderer of its own, the cost
 *  support/fixtures.ts exists to avoid, and nothing else would say so. */
function checkSpecImports() {
  const wrong = readdirSync(__dirname).filter((f) => f.endsWith(".spec.ts") &&
    /^import \{[^}]*\btest\b[^}]*\} from "@playwright\/test"/m.test(readFileSync(join(__dirname, f), "utf8")));
  if (wrong.length) {
    throw new Error(`${wrong.join(", ")}: import test and expect from "./support/fixtures", not "@playwright/test" (support/fixtures.ts says why)`);
  }
}

/**
 * Each Playwright worker gets a stack of its own (stackEnv in support/stack picks it by the
 * worker's parallel index): the specs of one tenant change its settings, policies and
 * learned fixes, so two workers on one stack would change what the other's specs read.
 * The stacks start side by side; a stack that does not answer fails the run with its log.
 */
export default async function globalSetup(config: FullConfig) {
  checkSpecImports();
  execFileSync("go", ["build", "-o", "build/local-stack", "./infra/local"], { cwd: root, stdio: "inherit" });
  const stacks: Stack[] = [];
  const stopAll = async () => {
    for (const s of stacks) s.stop();
    await new Promise((r) => setTimeout(r, 500));
    for (const s of stacks) s.kill();
  };
  try {
    for (let i = 0; i < Math.max(1, config.workers); i++) stacks.push(await startStack());
    await Promise.all(stacks.map(async (s) => {
      try {
        s.base = await baseURL(s.state, 90_000, s.exited);
        await waitFor(s.base + "/local/ready", 90_000);
      } catch (e) {
        console.error(`${(e as Error).message}; the stack's log (${s.logPath}) ends:\n` + readFileSync(s.logPath, "utf8").slice(-4000));
        throw e;
      }
    }));
  } catch (e) {
    await stopAll();
    throw e;
  }
  stacks.forEach((s, i) => {
    process.env[stackEnv("CONSOLE_BASE_URL", i)] = s.base;
    process.env[stackEnv("LOCAL_STATE_DIR", i)] = s.state;
  });
  // The first stack is also the default, for tools that read the plain names.
  process.env.CONSOLE_BASE_URL = stacks[0].base;
  process.env.LOCAL_STATE_DIR = stacks[0].state;
  return stopAll;
}
