// The one way the console talks to the API: bearer token, X-Embedded-Context-Id in
// embedded mode, a correlation id per request, and problem+json turned into an ApiError
// the panels show. Demo data is all or nothing: reads fall back to it only when the API
// cannot be reached at all (with the banner and Try again); an error answer is an error of
// the panel that asked, and writes never fall back.
import { signal } from "@preact/signals";
import { session } from "../auth";
import type { Problem } from "./types";

/** Titles in an operator's words for the HTTP reason phrases the API puts in `title`. */
const HUMAN_TITLES: Record<number, string> = {
  400: "The request was not accepted",
  401: "Your session has ended",
  403: "Not allowed for your role",
  404: "Not found",
  409: "Someone else acted first",
  413: "Too large to send",
  422: "This cannot be done as asked",
  429: "Too many requests — wait a moment",
  500: "Something went wrong in the service",
  502: "The target system refused or failed",
  503: "Temporarily unavailable — try again shortly",
  504: "The target system did not answer in time",
};

/** humanTitle replaces a bare HTTP reason phrase with words an operator can act on. */
export function humanTitle(status: number, title: string): string {
  const phrase = title.trim().toLowerCase();
  const reason = !phrase || phrase === "error" || /^[a-z -]+$/.test(phrase) && REASON_PHRASES.has(phrase);
  return reason ? HUMAN_TITLES[status] ?? title : title;
}

const REASON_PHRASES = new Set(["bad request", "unauthorized", "forbidden", "not found", "conflict", "payload too large",
  "request entity too large", "unprocessable entity", "too many requests", "internal server error", "bad gateway",
  "service unavailable", "gateway timeout"]);

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    const title = humanTitle(problem.status, problem.title);
    super(problem.detail ? `${title}: ${problem.detail}` : title);
    this.problem = { ...problem, title };
  }
  get status() {
    return this.problem.status;
  }
  get code() {
    return this.problem.code ?? "";
  }
}

/** Why the console shows demo data, or null when it shows the API's. */
export const demoReason = signal<string | null>(null);
/** Bumped when the console switches between demo and real data, and by Try again: the
 *  panels are keyed on it, so every panel reads again and none keeps the other kind. */
export const dataEpoch = signal(0);
/** How many answers in a row were the service's own failures (500, 503, or a 502/504 that
 *  is not the API's problem+json, i.e. the gateway's): two or more raise the degraded
 *  banner; any good answer lowers it. A target system's refusal (502 with a code) is the
 *  panel's error, not the service's health. */
export const serviceFailures = signal(0);
/** Set when an embedded session's context is refused (expired or torn down). */
export const embeddedExpired = signal(false);
/** Called on a 401: the app signs in again and returns here. */
export const onUnauthorized = { handle: (): void => {} };

function correlationId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** authHeaders are every request's: the caller's credentials and a correlation id. */
export function authHeaders(accept = "application/json"): Record<string, string> {
  const s = session.value;
  const h: Record<string, string> = { Accept: accept, "X-Correlation-Id": correlationId() };
  if (s) h.Authorization = "Bearer " + s.token;
  if (s?.embeddedContextId) h["X-Embedded-Context-Id"] = s.embeddedContextId;
  return h;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const s = session.value;
  const h = authHeaders();
  if (body !== undefined) h["Content-Type"] = "application/json";
  let resp: Response;
  try {
    resp = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError({ title: "API unreachable", status: 0, detail: "The network request failed.", code: "network" });
  }
  // 204 (a delete) has no body to read.
  if (resp.ok) {
    if (serviceFailures.value) serviceFailures.value = 0;
    return (resp.status === 204 ? undefined : await resp.json()) as T;
  }
  let problem: Problem = { title: resp.statusText || "Error", status: resp.status };
  try {
    const p = (await resp.json()) as Partial<Problem>;
    if (p && typeof p.title === "string") problem = { ...p, title: p.title, status: resp.status };
  } catch {
    // not problem+json: keep the status line
  }
  if (resp.status === 500 || resp.status === 503 || ((resp.status === 502 || resp.status === 504) && !problem.code)) {
    serviceFailures.value++;
  }
  if (resp.status === 401) {
    if (s?.embeddedContextId) embeddedExpired.value = true;
    else onUnauthorized.handle();
  }
  throw new ApiError(problem);
}

export interface Read<T> {
  data: T;
  demo: boolean;
}

/** read GETs path. When the API cannot be reached at all it returns demo() and says so in
 *  the banner; an answer with an error status throws ApiError for the panel to show. */
export async function read<T>(path: string, demo: () => T): Promise<Read<T>> {
  try {
    const data = await request<T>("GET", path);
    if (demoReason.value) {
      // Back from demo data: every panel reads again, so no demo row stays beside real ones.
      demoReason.value = null;
      dataEpoch.value++;
    }
    return { data, demo: false };
  } catch (e) {
    const err = e as ApiError;
    if (err.status !== 0) throw err;
    if (!demoReason.value) {
      demoReason.value = "The API cannot be reached — showing demo data";
      dataEpoch.value++;
    }
    return { data: demo(), demo: true };
  }
}

/** retryAPI is the banner's Try again: every panel reads again. */
export function retryAPI(): void {
  dataEpoch.value++;
}

/** readOptional GETs a section that some roles may not read: a 403 or 404 hides the
 *  section (null); other failures throw like read. */
export async function readOptional<T>(path: string): Promise<T | null> {
  try {
    return await request<T>("GET", path);
  } catch (e) {
    const err = e as ApiError;
    if (err.status === 403 || err.status === 404) return null;
    throw err;
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
