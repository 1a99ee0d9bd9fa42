// What the tests do to the stack besides the browser: post signed sync errors as the host
// ERP does, mint tokens through the dev issuer's code flow, read the fake host ERP.
import { createHash, createHmac, randomBytes } from "node:crypto";

// Fixed test-only secrets, one per purpose as the service keeps them, so the tests can sign
// as the host ERP: the webhook, finance approval create and the embedded host bootstrap.
const testSecret = (s: string) => "whsec_" + Buffer.from(s).toString("base64");
export const DEMO_SECRET = testSecret("syncassist-e2e-test-only-secret!");
export const DEMO_FINANCE_SECRET = testSecret("syncassist-e2e-finance-secret!!!");
export const DEMO_EMBEDDED_SECRET = testSecret("syncassist-e2e-embedded-secret!!");
/** Each source system signs its flow change events with its own secret (DEMO_FLOW_SECRET_<SYSTEM>). */
export const DEMO_FLOW_SECRETS: Record<string, string> = Object.fromEntries(
  ["hosterp", "erp2", "crm", "marketing", "shipping"].map((sys) => [sys, testSecret(("syncassist-e2e-flow-" + sys + "-secret!!!!!!").slice(0, 32))]));

/** stackEnv names the variable global-setup sets for the stack of worker i (its parallel
 *  index): each worker runs against a stack of its own. */
export const stackEnv = (name: string, i: number) => `${name}_${i}`;

/** base is the URL of this worker's stack. */
export const base = () => process.env[stackEnv("CONSOLE_BASE_URL", Number(process.env.TEST_PARALLEL_INDEX ?? 0))] ?? process.env.CONSOLE_BASE_URL!;

/** signedHeaders signs body with secret under webhook-id id (one of its own unless given). */
export function signedHeaders(body: string, secret = DEMO_SECRET, id = "msg_" + randomBytes(8).toString("hex")): Record<string, string> {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const ts = Math.floor(Date.now() / 1000).toString();
  const sig = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64");
  return { "Content-Type": "application/json", "X-Tenant-Id": "demo", "webhook-id": id, "webhook-timestamp": ts,
    "webhook-signature": "v1," + sig };
}

/** caseTag turns an errorId's digits into letters: the same error about the same record
 *  folds into one open row (its signature ignores numbers and ids), so each test's error
 *  carries a word of its own to stay an error of its own. */
const caseTag = (errorId: string) => errorId.replace(/[^0-9]/g, "").replace(/[0-9]/g, (d) => "ghijklmnop"[Number(d)]);

/** postSyncError posts a signed sync error about recordId. A test that rejects or resolves
 *  passes an errorCode of its own: the service learns from rejections (a fix people rejected
 *  is not proposed again for the same code, field and value), which must not take the
 *  proposal away from the other tests sharing the stack. externalSystem is the system on
 *  the other side of the sync, as the host names it; message is the host's words (the
 *  sample's invalid country unless given). */
export async function postSyncError(errorId: string, recordId = "SO-10042", errorCode = "INVALID_FIELD_VALUE", externalSystem = "webshop",
  message = "Invalid value for field shipcountry: 'Deutschland' is not a valid ISO 3166 country code", recordType = "salesOrder",
  payload: Record<string, unknown> = { shipcountry: "Deutschland", shipzip: "10115", total: 129.5, currency: "EUR" }): Promise<string> {
  const body = JSON.stringify({
    tenantId: "demo", errorId, recordType, recordId, errorCode,
    message: `${message} (case ${caseTag(errorId)})`,
    occurredAt: new Date().toISOString(), integration: externalSystem + "-orders", externalSystem, direction: "inbound",
    payload,
  });
  const r = await fetch(base() + "/api/sync-error-assist/ingest", { method: "POST", headers: signedHeaders(body), body });
  if (r.status !== 202) throw new Error(`ingest answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { id: string }).id;
}

/** token runs the dev issuer's authorization code flow with PKCE, as the console does. */
export async function token(role: "operator" | "approver" | "admin"): Promise<string> {
  const verifier = randomBytes(40).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const redirect = base() + "/auth/callback";
  const q = new URLSearchParams({ response_type: "code", client_id: "e2e", redirect_uri: redirect, state: "s",
    code_challenge: challenge, code_challenge_method: "S256", confirm: "1", tenant: "demo", role });
  const r = await fetch(base() + "/dev-issuer/authorize?" + q, { redirect: "manual" });
  const code = new URL(r.headers.get("location")!).searchParams.get("code")!;
  const t = await fetch(base() + "/dev-issuer/token", { method: "POST", body: new URLSearchParams({
    grant_type: "authorization_code", code, redirect_uri: redirect, client_id: "e2e", code_verifier: verifier }) });
  return ((await t.json()) as { access_token: string }).access_token;
}

/** call sends one API request as role and answers its JSON; a non-OK answer throws with it. */
export async function call<T>(role: "operator" | "approver" | "admin", method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(base() + path, { method, headers: { Authorization: "Bearer " + (await token(role)), "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function api<T>(role: "operator" | "approver", path: string): Promise<T> {
  const r = await fetch(base() + path, { headers: { Authorization: "Bearer " + (await token(role)) } });
  return (await r.json()) as T;
}

/** waitDiagnosed polls until the worker has diagnosed the claim. */
export async function waitDiagnosed(id: string): Promise<void> {
  const t = await token("operator");
  for (let i = 0; i < 100; i++) {
    const r = await fetch(base() + "/api/sync-error-assist/proposals/" + id, { headers: { Authorization: "Bearer " + t } });
    if (r.ok && ((await r.json()) as { diagnosis: string }).diagnosis === "ready") return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error("no diagnosis for " + id);
}

interface ERPWrites {
  count: number;
  writes: { Entity: string; ID: string; Fields: Record<string, unknown> }[] | null;
}

export async function erpWrites(recordId: string) {
  const r = await fetch(base() + "/fake/hosterp/_writes");
  const w = (await r.json()) as ERPWrites;
  return (w.writes ?? []).filter((x) => x.ID === recordId);
}

/** erpWrittenText is the fields of the last write to recordId as the fake host ERP
 *  received them, as JSON text: Node's JSON.parse would round 12345678901234567890, and a
 *  test of digits must read the digits. The fields are flat (no object or list in them). */
export async function erpWrittenText(recordId: string): Promise<string> {
  const text = await (await fetch(base() + "/fake/hosterp/_writes")).text();
  const at = text.lastIndexOf(`"ID":${JSON.stringify(recordId)},"Fields":{`);
  if (at < 0) return "";
  const from = text.indexOf("{", at);
  return text.slice(from, text.indexOf("}", from) + 1);
}

export async function erpRecord(type: string, id: string): Promise<Record<string, unknown>> {
  const r = await fetch(`${base()}/fake/hosterp/services/rest/record/v1/${type}/${id}`);
  return (await r.json()) as Record<string, unknown>;
}

/** eventMessageId is the webhook-id docs/flow-sources.md tells a relay to derive for a
 *  change event (Go's flow.EventMessageID): msg_ and the first 32 hex digits of
 *  SHA-256(system NUL eventId). The service records no claim of it. */
export const eventMessageId = (system: string, eventId: string) =>
  "msg_" + createHash("sha256").update(system + "\0" + eventId).digest("hex").slice(0, 32);

/** postChange posts a signed change event from a source system, as a relay following
 *  docs/flow-sources.md does, and returns its run ids. */
export async function postChange(system: string, entity: string, recordId: string, fields: Record<string, unknown>): Promise<string[]> {
  const eventId = "EV-E2E-" + Date.now() + "-" + Math.random().toString(36).slice(2, 8);
  const body = JSON.stringify({ eventId, entity, recordId, changedAt: new Date().toISOString(), fields });
  const r = await fetch(base() + "/api/flows/events/" + system, { method: "POST",
    headers: signedHeaders(body, DEMO_FLOW_SECRETS[system], eventMessageId(system, eventId)), body });
  if (r.status !== 202) throw new Error(`flow event answered ${r.status}: ${await r.text()}`);
  return ((await r.json()) as { runIds: string[] }).runIds;
}

/** newSalesOrder creates a sales order in the fake host ERP like the sample error's and
 *  returns its id: a test that writes a fix gets a record of its own, since a fix written
 *  to a shared order changes what every later test reads there. */
export async function newSalesOrder(): Promise<string> {
  return newRecord("salesOrder", { shipcountry: "Deutschland", shipzip: "10115", shipcity: "Berlin", total: 129.5, currency: "EUR", status: "pendingFulfillment" });
}

/** newRecord creates a record of type with fields in the fake host ERP and returns its id. */
export async function newRecord(type: string, fields: Record<string, unknown>): Promise<string> {
  const r = await fetch(base() + "/fake/hosterp/services/rest/record/v1/" + type, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(fields),
  });
  const at = r.headers.get("Location");
  if (r.status !== 204 || !at) throw new Error(`the fake host ERP answered ${r.status} to a new ${type}`);
  return decodeURIComponent(at.slice(at.lastIndexOf("/") + 1));
}
