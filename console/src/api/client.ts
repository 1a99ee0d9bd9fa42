// The one way the console talks to the API: bearer token, X-Embedded-Context-Id in
// embedded mode, a correlation id per request, and problem+json turned into an ApiError
// the panels show. When the API cannot be reached, a read answers what it last read for
// the same request (the banner says as of when); demo data only where this page never
// had an answer at all (with the banner and Try again); an error answer is an error of
// the panel that asked, and writes never fall back. A read superseded by a newer one of
// the same resource with another query is dropped, so an old filter's answer never lands
// after the new filter's. An embedded context that has expired is renewed with the
// session's service token, silently, while that token lives.
import { signal } from "@preact/signals";
import { save, session } from "../auth";
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
/** Set when an embedded session has ended: its context was refused and the service token
 *  could not open another (expired or torn down in the ERP). */
export const embeddedExpired = signal(false);
/** When reads answer rows read earlier because the API cannot be reached now: the time the
 *  oldest of them was read (the banner's "as of"); null while the API answers. */
export const staleSince = signal<number | null>(null);
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

// Numbers are read and sent back digit for digit: the service keeps them exactly, and a
// value that lost digits here would be written to the ERP by an edited fix. JSON.parse
// turns 12345678901234567890 into 12345678901234567000; where the browser gives a reviver
// the number's source text and has JSON.rawJSON (Chrome 114, Firefox 135, Safari 18.4), a
// number whose text String() would not give back is kept as that text (JSON.rawJSON, which
// JSON.stringify writes verbatim). The rule is the round trip itself, not a digit count:
// digits past a float64's shortest form (123456789012345.6789 comes back ...5.67), an
// integer past 2^53 that lands on another one (9007199254740993 on ...992; ...992 itself
// stays a number), an exponent (1e400 is Infinity, 1e-400 is 0, 1E5 comes back 100000) and
// trailing zeros (1.50) all come back as other text, so they are kept as their text; -0 is
// let through (it is sent as 0, the same value). What the service writes from a float64 or
// an int is already that shortest text (Go writes numbers as ES6 prints them): it stays a
// plain number, and the arithmetic on counts and confidences is unchanged.
const J = JSON as JSON & { rawJSON?: (text: string) => unknown };
type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
const probe: Reviver = (_k, _v, c) => c?.source === "1";
/** exactJSON says whether this browser reads and sends every number exactly. */
export const exactJSON = !!J.rawJSON && JSON.parse("1", probe) === true;
const keep: Reviver = (_k, v, c) => (typeof v === "number" && c?.source ? jsonNumber(c.source) : v);

/** jsonNumber is the value of a JSON number's text: a plain number where String() gives the
 *  text back, else the text itself (JSON.rawJSON); undefined where this browser cannot. */
export function jsonNumber(text: string): unknown {
  const n = Number(text);
  return String(n) === text || text === "-0" ? n : exactJSON ? J.rawJSON!(text) : undefined;
}

/** parseJSON is JSON.parse keeping every number's digits (see jsonNumber). */
export function parseJSON(text: string): unknown {
  return JSON.parse(text, exactJSON ? keep : undefined);
}

/** unsure says whether v holds a number this browser may have rounded when it read it (only
 *  without exactJSON, when the source text is gone): not finite, an integer past 2^53, or 16
 *  or more significant digits in its shortest form, which is where longer text lands. A
 *  shorter one can be a rounding too (0.10000000000000000001 reads 0.1): that much is lost
 *  with the source text. Such a value is never sent back: nobody saw what it was. */
export function unsure(v: unknown): boolean {
  if (exactJSON) return false;
  if (typeof v === "number") return !Number.isFinite(v) || Number.isInteger(v) && !Number.isSafeInteger(v) ||
    String(v).replace(/e.*|\D/g, "").replace(/^0+/, "").length > 15;
  return v !== null && typeof v === "object" && Object.values(v).some(unsure);
}

/** Superseded is a read a newer read of the same resource replaced: nobody waits for it. */
class Superseded extends Error {}

/** answered is set by the first answer of the API this page had: from then on an
 *  unreachable API never brings demo data (the user has seen real rows). */
let answered = false;

async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal, renewed = false): Promise<T> {
  const s = session.value;
  const h = authHeaders();
  if (body !== undefined) h["Content-Type"] = "application/json";
  let resp: Response;
  let data: T;
  try {
    resp = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal });
    // 204 (a delete) has no body to read.
    data = (resp.ok && resp.status !== 204 ? parseJSON(await resp.text()) : undefined) as T;
  } catch (e) {
    if (signal?.aborted) throw new Superseded();
    if (e instanceof SyntaxError) throw new ApiError({ title: "Unexpected answer", status: 502, detail: "The answer was not JSON." });
    throw new ApiError({ title: "The service cannot be reached", status: 0, detail: "Check the connection, then try again.", code: "network" });
  }
  answered = true;
  if (resp.ok) {
    if (serviceFailures.value) serviceFailures.value = 0;
    return data;
  }
  let problem: Problem = { title: resp.statusText || "Error", status: resp.status };
  try {
    const p = parseJSON(await resp.text()) as Partial<Problem>;
    if (p && typeof p.title === "string") problem = { ...p, title: p.title, status: resp.status };
  } catch {
    // not problem+json: keep the status line
  }
  if (resp.status === 500 || resp.status === 503 || ((resp.status === 502 || resp.status === 504) && !problem.code)) {
    serviceFailures.value++;
  }
  if (resp.status === 401) {
    // An embedded context lives 15 minutes, the service token hours: a refused context is
    // renewed once and the request sent again (a 401 is decided before anything is done).
    if (s?.embeddedContextId && !renewed && path !== CONTEXT_PATH && (await renewContext(s.embeddedContextId))) {
      return request<T>(method, path, body, signal, true);
    }
    if (s?.embeddedContextId) {
      embeddedExpired.value = true;
      // The API's words are for the ERP's developers ("bootstrap a new session"); an ERP
      // user is told what they can do.
      problem = { ...problem, detail: "This panel's session has ended. Close it and reopen the record in NetSuite." };
    } else onUnauthorized.handle();
  }
  throw new ApiError(problem);
}

const CONTEXT_PATH = "/api/embedded/context/bootstrap";
let renewing: Promise<boolean> | null = null;

/** renewContext opens a new context for the session's module with its service token, in
 *  place of the refused one; every request refused at once shares the one renewal. False
 *  when the token itself is refused: the session has ended. */
function renewContext(refused: string): Promise<boolean> {
  if (session.value?.embeddedContextId !== refused) return Promise.resolve(true); // renewed meanwhile
  renewing ??= (async () => {
    const s = session.value!;
    try {
      const c = await request<{ embeddedContextId: string }>("POST", CONTEXT_PATH, { module: s.module ?? "sync-errors" });
      if (session.value?.token === s.token) save({ ...session.value, embeddedContextId: c.embeddedContextId });
      return true;
    } catch {
      return false;
    } finally {
      renewing = null;
    }
  })();
  return renewing;
}

export interface Read<T> {
  data: T;
  demo: boolean;
}

/** The last answer of each read, kept for when the API cannot be reached (a few dozen at most). */
const lastRead = new Map<string, { data: unknown; at: number }>();
const LAST_READS = 64;
/** The read in flight per resource (path without query) and its query. */
const inFlight = new Map<string, { query: string; ctl: AbortController }>();

/** read GETs path. An answer with an error status throws ApiError for the panel to show.
 *  When the API cannot be reached it answers what it read last for path (staleSince says
 *  since when), else demo() where this page never had an answer (the banner says so),
 *  else throws, so the panel says it cannot be reached. A read of the same slot (the
 *  resource, unless the caller names another) with another query started meanwhile aborts
 *  this one, which then never settles: a panel reading one resource twice at once (two
 *  lists of one collection) names a slot for each, or the second read aborts the first. */
export async function read<T>(path: string, demo: () => T, slot?: string): Promise<Read<T>> {
  const [resource, query = ""] = path.split("?", 2);
  const key = slot ?? resource;
  const prev = inFlight.get(key);
  if (prev && prev.query !== query) prev.ctl.abort();
  const ctl = new AbortController();
  inFlight.set(key, { query, ctl });
  try {
    const data = await request<T>("GET", path, undefined, ctl.signal);
    lastRead.delete(path);
    lastRead.set(path, { data, at: Date.now() });
    if (lastRead.size > LAST_READS) lastRead.delete(lastRead.keys().next().value!);
    staleSince.value = null;
    if (demoReason.value) {
      // Back from demo data: every panel reads again, so no demo row stays beside real ones.
      demoReason.value = null;
      dataEpoch.value++;
    }
    return { data, demo: false };
  } catch (e) {
    if (e instanceof Superseded) return new Promise<never>(() => {});
    const err = e as ApiError;
    const last = lastRead.get(path);
    if (err.status !== 0) throw err;
    if (last) {
      staleSince.value = Math.min(staleSince.value ?? last.at, last.at);
      return { data: last.data as T, demo: false };
    }
    if (answered) throw err;
    if (!demoReason.value) {
      demoReason.value = "The API cannot be reached — showing demo data";
      dataEpoch.value++;
    }
    return { data: demo(), demo: true };
  } finally {
    if (inFlight.get(key)?.ctl === ctl) inFlight.delete(key);
  }
}

/** retryAPI is the banners' Try again: every panel reads again. */
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
