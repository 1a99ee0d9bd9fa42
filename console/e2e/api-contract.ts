// The browser tests' OpenAPI check (issue 36 §2): a second global setup whose teardown runs
// before global-setup's (Playwright tears setups down in reverse), while the stacks still
// answer. Each stack was started with SYNCASSIST_API_CHECK (make test-browser sets it) and
// validated every request the console sent, and every answer, against the document; a
// finding fails the run. A stack started without the flag has no findings route: nothing
// to check.

interface Finding { method: string; path: string; status: number; kind: string; detail: string }

/** bases are the stacks global-setup started: CONSOLE_BASE_URL, and CONSOLE_BASE_URL_<i> per worker. */
function bases(): string[] {
  return [...new Set(Object.entries(process.env).filter(([k, v]) => /^CONSOLE_BASE_URL(_\d+)?$/.test(k) && v).map(([, v]) => v!))];
}

export default async function apiContract() {
  return async () => {
    const found: string[] = [];
    for (const base of bases()) {
      const r = await fetch(base + "/local/api-findings");
      // Without the flag the console's catch-all answers the path (HTML): nothing to check.
      if (!r.ok || !(r.headers.get("content-type") ?? "").startsWith("application/json")) continue;
      for (const f of (await r.json()) as Finding[]) found.push(`${f.method} ${f.path} -> ${f.status}: ${f.kind}: ${f.detail}`);
    }
    if (found.length) throw new Error(`the API left its OpenAPI document ${found.length} times:\n` + found.join("\n"));
  };
}
