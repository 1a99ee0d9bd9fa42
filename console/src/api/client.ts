// The one way the console talks to the API: bearer token, X-Embedded-Context-Id in
// embedded mode, a correlation id per request, and problem+json turned into an ApiError
// the panels show. Reads fall back to demo data (with the banner); writes never do.
import { signal } from "@preact/signals";
import { session } from "../auth";
import type { Problem } from "./types";

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
  }
  get status() {
    return this.problem.status;
  }
  get code() {
    return this.problem.code ?? "";
  }
}

/** Why the panel shows demo data, or null when it shows the API's. */
export const demoReason = signal<string | null>(null);
/** Called on a 401: the app signs in again and returns here. */
export const onUnauthorized = { handle: (): void => {} };

function correlationId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const s = session.value;
  const headers: Record<string, string> = { Accept: "application/json", "X-Correlation-Id": correlationId() };
  if (s) headers.Authorization = "Bearer " + s.token;
  if (s?.embeddedContextId) headers["X-Embedded-Context-Id"] = s.embeddedContextId;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let resp: Response;
  try {
    resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError({ title: "API unreachable", status: 0, detail: "The network request failed.", code: "network" });
  }
  // 204 (a delete) has no body to read.
  if (resp.ok) return (resp.status === 204 ? undefined : await resp.json()) as T;
  let problem: Problem = { title: resp.statusText || "Error", status: resp.status };
  try {
    const p = (await resp.json()) as Partial<Problem>;
    if (p && typeof p.title === "string") problem = { ...p, title: p.title, status: resp.status };
  } catch {
    // not problem+json: keep the status line
  }
  if (resp.status === 401 && !s?.embeddedContextId) onUnauthorized.handle();
  throw new ApiError(problem);
}

export interface Read<T> {
  data: T;
  demo: boolean;
}

/** read GETs path; on any failure but 401 it returns demo() and says why in the banner. */
export async function read<T>(path: string, demo: () => T): Promise<Read<T>> {
  try {
    const data = await request<T>("GET", path);
    demoReason.value = null;
    return { data, demo: false };
  } catch (e) {
    const err = e as ApiError;
    if (err.status === 401) throw err;
    demoReason.value =
      err.status === 0
        ? "API unreachable — showing demo data"
        : `API answered ${err.status} ${err.problem.title} — showing demo data`;
    return { data: demo(), demo: true };
  }
}

/** write sends a change; failures throw ApiError, never fall back. */
export function write<T>(method: "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body ?? {});
}

/** readQuiet GETs path and answers null on failure (nav counts: no banner for them). */
export async function readQuiet<T>(path: string): Promise<T | null> {
  try {
    return await request<T>("GET", path);
  } catch {
    return null;
  }
}
