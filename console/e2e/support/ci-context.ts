// A reporter beside "list" so that a failure can be diagnosed from CI's log alone: list
// names the error-context file (the page as the test left it, as an accessibility tree),
// which CI does not keep, so this prints it; and after a failed run it prints the end of
// each local stack's log (the service's side of what the browser saw).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";
import { stackEnv } from "./stack";

const contextLines = 150;
const logLines = 80;

const head = (text: string, n: number) => {
  const lines = text.split("\n");
  return lines.slice(0, n).join("\n") + (lines.length > n ? `\n… (${lines.length - n} more lines)` : "");
};

const tail = (text: string, n: number) => text.trimEnd().split("\n").slice(-n).join("\n");

export default class CIContext implements Reporter {
  onTestEnd(test: TestCase, result: TestResult) {
    if (result.status === "passed" || result.status === "skipped") return;
    for (const a of result.attachments) {
      if (a.name !== "error-context" || !a.path || !existsSync(a.path)) continue;
      // The file repeats the error list printed; its page snapshot is what is new.
      const text = readFileSync(a.path, "utf8");
      const at = text.indexOf("# Page snapshot");
      console.log(`\n---- the page when "${test.titlePath().filter(Boolean).join(" › ")}" ${result.status} ----\n` +
        head(at >= 0 ? text.slice(at) : text, contextLines) + "\n---- end of the page ----");
    }
  }

  onEnd(result: FullResult) {
    if (result.status === "passed") return;
    for (let i = 0; process.env[stackEnv("LOCAL_STATE_DIR", i)]; i++) {
      const log = join(process.env[stackEnv("LOCAL_STATE_DIR", i)]!, "stack.log");
      if (!existsSync(log)) continue;
      console.log(`\n---- the last ${logLines} lines of stack ${i}'s log (worker ${i}: ${log}) ----\n` +
        tail(readFileSync(log, "utf8"), logLines) + "\n---- end of stack " + i + "'s log ----");
    }
  }

  printsToStdio() {
    return true;
  }
}
