// Sign-in: the OpenID Connect authorization code flow with PKCE (S256), the same code
// against the local development issuer and a real provider. Tokens live in sessionStorage
// (gone with the tab), never localStorage. Embedded sessions arrive in the URL fragment
// from the host ERP, inside its frame, and stand in for sign-in (adoptEmbedded).
import { signal } from "@preact/signals";
import type { Role } from "./api/types";
import { embed } from "./router";

export interface ConsoleConfig {
  stage: string;
  devSignIn: boolean;
  /** With ?embed=<tenant>: the origins that tenant allows to frame the console. */
  embedOrigins?: string[];
  oidc: {
    issuer: string;
    clientId: string;
    authorizationEndpoint: string;
    tokenEndpoint: string;
    endSessionEndpoint?: string;
    redirectPath: string;
    scope: string;
    tokenType: "access_token" | "id_token";
  };
}

export interface Session {
  token: string;
  user: string;
  tenant: string;
  roles: Role[];
  expiresAt: number;
  // Set in embedded mode: the context id every call carries, its module, and the modules
  // the host embedded (fragment "modules"; the context's alone when absent).
  embeddedContextId?: string;
  module?: string;
  modules?: string[];
}

const SESSION_KEY = "syncassist.session";
const PKCE_KEY = "syncassist.pkce";

export const session = signal<Session | null>(load());

function load(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null") as Session | null;
    return s && s.expiresAt > Date.now() ? s : null;
  } catch {
    return null;
  }
}

export function save(s: Session | null) {
  try {
    if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
    else sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // A frame on another site may get no storage (third-party data blocked): the embedded
    // session then lives as long as the frame's page, and the ERP opens it again.
  }
  session.value = s;
}

export function hasRole(s: Session | null, role: Role): boolean {
  if (!s) return false;
  return s.roles.includes("admin") || s.roles.includes(role) || (role === "operator" && s.roles.includes("approver"));
}

function b64url(bytes: Uint8Array): string {
  let bin = "";
  bytes.forEach((b) => (bin += String.fromCharCode(b)));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(n: number): string {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

function claims(jwt: string): Record<string, unknown> {
  const part = jwt.split(".")[1] ?? "";
  const json = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
  return JSON.parse(json) as Record<string, unknown>;
}

function redirectURI(cfg: ConsoleConfig): string {
  return location.origin + cfg.oidc.redirectPath;
}

/** signIn sends the browser to the provider; it comes back to the redirect path. */
export async function signIn(cfg: ConsoleConfig, returnTo: string): Promise<void> {
  const verifier = random(48);
  const state = random(16);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, returnTo }));
  const q = new URLSearchParams({
    response_type: "code",
    client_id: cfg.oidc.clientId,
    redirect_uri: redirectURI(cfg),
    scope: cfg.oidc.scope,
    state,
    code_challenge: b64url(digest),
    code_challenge_method: "S256",
  });
  location.assign(cfg.oidc.authorizationEndpoint + "?" + q.toString());
}

/** completeSignIn exchanges the code on the redirect path and returns where to go next. */
export async function completeSignIn(cfg: ConsoleConfig): Promise<string> {
  const params = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? "null") as
    | { verifier: string; state: string; returnTo: string }
    | null;
  sessionStorage.removeItem(PKCE_KEY);
  if (params.get("error")) throw new Error("The provider refused the sign-in: " + params.get("error"));
  if (!pending || params.get("state") !== pending.state) throw new Error("This sign-in was not started here; sign in again.");
  const resp = await fetch(cfg.oidc.tokenEndpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: params.get("code") ?? "",
      redirect_uri: redirectURI(cfg),
      client_id: cfg.oidc.clientId,
      code_verifier: pending.verifier,
    }),
  });
  if (!resp.ok) throw new Error("The provider did not issue a token (" + resp.status + "); sign in again.");
  const body = (await resp.json()) as Record<string, unknown>;
  const token = String(body[cfg.oidc.tokenType] ?? "");
  const c = claims(token);
  save({
    token,
    user: String(c.name ?? c.email ?? c.sub ?? "unknown"),
    tenant: String(c.tenant_id ?? ""),
    roles: (Array.isArray(c.roles) ? c.roles : []) as Role[],
    expiresAt: Number(c.exp ?? 0) * 1000,
  });
  return pending.returnTo || "/queue";
}

/** embedRefusal is why an embedded session in the URL fragment was not adopted, if so. */
export const embedRefusal = signal("");

/** adoptEmbedded moves an embedded session from the URL fragment into sessionStorage, but
 *  only inside a frame whose parent is one of the origins the token's tenant allows (the
 *  console was loaded with ?embed=<tenant>, so config.json names them), and never over a
 *  signed-in session: a link must not switch an operator into another tenant unnoticed.
 *  Where the browser does not tell the parent's origin, it refuses. */
export function adoptEmbedded(cfg: ConsoleConfig): void {
  const h = new URLSearchParams(location.hash.slice(1));
  const token = h.get("serviceToken") ?? "";
  const ctx = h.get("embeddedContextId");
  if (!token || !ctx) return;
  history.replaceState(null, "", location.pathname + location.search); // the token leaves the URL either way
  const tenant = token.slice(4, -44); // sat_<tenant>_<43-character secret>
  const ref = document.referrer;
  const parent = top === self ? "" : location.ancestorOrigins?.[0] ?? (ref && new URL(ref).origin);
  const cur = session.value;
  if (cur && !(cur.embeddedContextId && cur.tenant === tenant)) {
    embedRefusal.value = `A link tried to switch you to tenant ${tenant}; you stay signed in to tenant ${cur.tenant}.`;
  } else if (!parent || !cfg.embedOrigins?.includes(parent) || embed !== tenant) {
    embedRefusal.value = "Not opened: embedded panels open only inside your ERP. Open it from there.";
  } else {
    const roles = (h.get("roles") ?? "operator").split(",").filter(Boolean) as Role[];
    save({ token, user: "embedded", tenant, roles, embeddedContextId: ctx,
      module: h.get("module") ?? "sync-errors", modules: h.get("modules")?.split(","), expiresAt: Date.now() + 8 * 3600 * 1000 });
    scopeToRecord(h.get("record")?.trim() ?? "");
  }
}

/** scopeToRecord opens the queue on the host's record (fragment "record", the record page
 *  the panel sits on): the search is the record id, over the open rows, as a user would
 *  type it, so clearing the search shows the whole queue. */
function scopeToRecord(record: string): void {
  if (!record || record.length > 256) return;
  const q = new URLSearchParams(location.search);
  q.set("q", record);
  q.set("status", "open");
  history.replaceState(null, "", location.pathname + "?" + q);
}

export function signOut(cfg: ConsoleConfig | null): void {
  save(null);
  sessionStorage.clear();
  if (cfg?.oidc.endSessionEndpoint) location.assign(cfg.oidc.endSessionEndpoint);
  else location.assign("/");
}
