// The console's frame: top bar, demo banner, navigation and the panel for the URL.
import { useEffect, useState } from "preact/hooks";
import { type ApiError, dataEpoch, demoReason, embeddedExpired, onUnauthorized, readQuiet, retryAPI, serviceFailures, write } from "./api/client";
import type { NavCounts } from "./api/types";
import type { Role } from "./api/types";
import { type ConsoleConfig, embedRefusal, hasRole, save, session, signIn, signOut } from "./auth";
import { useKeys } from "./keys";
import { lazy } from "./lazy";
import { QueuePanel } from "./panels/queue";
import { navigate, path, segments } from "./router";
import { announce, announcement, goKey, shortcutKey, Status } from "./ui";

// The queue is where people land and work; the rest load when first opened (finance too:
// the first load stays within its 100 KiB budget).
const FinancePanel = lazy(() => import("./panels/finance").then((m) => m.FinancePanel));
const AutomationPanel = lazy(() => import("./panels/automation").then((m) => m.AutomationPanel));
const InsightsPanel = lazy(() => import("./panels/insights").then((m) => m.InsightsPanel));
const AuditPanel = lazy(() => import("./panels/audit").then((m) => m.AuditPanel));
const FlowsPanel = lazy(() => import("./panels/flows").then((m) => m.FlowsPanel));
const FlowDefinitions = lazy(() => import("./panels/flows").then((m) => m.FlowDefinitions));
const GovernancePanel = lazy(() => import("./panels/governance").then((m) => m.GovernancePanel));
const SettingsPanel = lazy(() => import("./panels/settings").then((m) => m.SettingsPanel));

const MODULE_PANEL: Record<string, string> = {
  "sync-errors": "queue",
  "finance-approvals": "finance",
  governance: "governance",
  audit: "audit",
  "integration-status": "flows",
  "field-mapping": "field-mapping",
  settings: "settings",
};

export function App({ config }: { config: ConsoleConfig }) {
  const s = session.value;
  const here = () => location.pathname + location.search;
  onUnauthorized.handle = () => void signIn(config, here());
  const help = useGoKeys(!!s?.module, s?.roles ?? []);
  const counts = usePendingCounts(path.value + announcement.value); // and again after each action
  const refusal = embedRefusal.value && <p class="panel-error" role="alert">{embedRefusal.value}</p>;

  if (!s) {
    return (
      <main class="signed-out">
        <h1>SyncAssist</h1>
        {refusal}
        <p>Sync-error triage and governance for your ERP integrations.</p>
        <button type="button" class="primary" onClick={() => void signIn(config, path.value === "/" ? "/queue" : here())}>Sign in</button>
        {config.devSignIn && <p class="note">Local stack: the development issuer lets you choose tenant and role.</p>}
      </main>
    );
  }
  const approver = hasRole(s, "approver");
  const admin = hasRole(s, "admin");
  // Embedded, the URL picks one of the modules the host embedded (the context's own
  // otherwise); another module than the context's needs a context of its own first.
  const mods = s.modules ?? [s.module];
  const want = s.module && (mods.find((m) => m && MODULE_PANEL[m] === segments()[0]) ?? s.module);
  const embeddedPanel = want ? MODULE_PANEL[want] ?? "none" : null;
  const panel = embeddedPanel ?? (segments()[0] || "queue");
  const nav = [
    { id: "queue", label: "Queue", show: true },
    { id: "escalated", label: "Escalated", show: approver },
    { id: "auto-resolved", label: "Auto-resolved", show: true },
    { id: "insights", label: "Insights", show: true },
    { id: "finance", label: "Finance", show: true },
    { id: "governance", label: "Governance", show: approver },
    { id: "flows", label: "Flows", show: true },
    { id: "field-mapping", label: "Field mapping", show: !!want },
    { id: "audit", label: "Audit", show: approver },
    { id: "settings", label: "Settings", show: admin },
  ].filter((n) => (want ? mods.length > 1 && mods.some((m) => m && MODULE_PANEL[m] === n.id) : n.show && n.id !== "field-mapping"));

  return (
    <>
      <header class="topbar">
        <span class="brand">SyncAssist</span>
        <span>tenant <strong>{s.tenant}</strong></span>
        <span>{s.user} · {s.roles.join(", ")}</span>
        {!s.embeddedContextId && <button type="button" onClick={() => signOut(config)}>Sign out</button>}
      </header>
      {demoReason.value && (
        <div class="banner" role="status">{demoReason.value}. Actions are disabled.{" "}
          <button type="button" onClick={retryAPI}>Try again</button></div>
      )}
      {!demoReason.value && serviceFailures.value >= 2 && (
        <div class="banner" role="status">The service is answering with errors: what you see may be out of date,
          and a decision may fail (each one says whether it went through).{" "}
          <button type="button" onClick={retryAPI}>Try again</button></div>
      )}
      <div class="body">
        {nav.length > 0 && (
          <nav aria-label="Panels">
            <ul>
              {nav.map((n) => (
                <li><a href={"/" + n.id} aria-current={panel === n.id ? "page" : undefined}
                  onClick={(e) => { e.preventDefault(); navigate("/" + n.id); }}>{n.label}</a>
                  {counts[n.id] !== undefined && <span class="count" title={`${counts[n.id]} ${n.id === "escalated" ? "waiting" : "pending"}`}>{counts[n.id]}
                    <span class="sr-live"> {n.id === "escalated" ? "waiting" : "pending"}</span></span>}
                </li>
              ))}
            </ul>
            <p class="note">Press <kbd>?</kbd> for shortcuts</p>
          </nav>
        )}
        <main key={dataEpoch.value}>
          {refusal}
          {embeddedExpired.value && (
            <div class="panel-error" role="alert"><strong>This panel's session has ended</strong> (expired or closed in the ERP).
              Open the panel again from the ERP record; nothing you decided was lost.</div>
          )}
          {help && <Shortcuts roles={s.roles} embedded={!!embeddedPanel} />}
          <Status />
          {want && want !== s.module ? <OpenModule module={want} /> : <>
          {panel === "queue" && <QueuePanel key="queue" canApprove={approver} />}
          {panel === "escalated" && (approver ? <QueuePanel key="escalated" canApprove inbox />
            : <p>The Escalated inbox is for approvers: an escalated sync error waits for one.</p>)}
          {panel === "auto-resolved" && <AutomationPanel canRevert={approver} />}
          {panel === "insights" && <InsightsPanel />}
          {panel === "finance" && <FinancePanel canApprove={approver} />}
          {panel === "governance" && (approver ? <GovernancePanel /> : <p>Governance needs the approver role.</p>)}
          {panel === "flows" && <FlowsPanel admin={admin} />}
          {panel === "audit" && (approver ? <AuditPanel /> : <p>The audit log needs the approver role.</p>)}
          {panel === "field-mapping" && (admin ? <FlowDefinitions /> : <NeedsAdmin module={s.module} />)}
          {panel === "settings" && (embeddedPanel ? (admin ? <SettingsPanel embedded /> : <NeedsAdmin module={s.module} />)
            : admin ? <SettingsPanel /> : <p>Settings are for admins: ask an admin of tenant {s.tenant} to change flags, connectors, overrides or secrets.</p>)}
          {panel === "none" && <p>The module “{s.module}” is not available in the console.</p>}
          </>}
        </main>
      </div>
    </>
  );
}

/** OpenModule opens a context for another module the host embedded, with the session's
 *  service token, and makes it current; a module the ERP did not grant says so. */
function OpenModule({ module }: { module: string }) {
  const [err, setErr] = useState("");
  useEffect(() => {
    write<{ embeddedContextId: string }>("POST", "/api/embedded/context/bootstrap", { module }).then(
      (c) => save({ ...session.value!, module, embeddedContextId: c.embeddedContextId }),
      (e: ApiError) => setErr(e.code === "module_not_granted" ? `The ERP did not grant this panel the “${module}” module; open it from the ERP where it is offered.` : e.message));
  }, [module]);
  return err ? <p class="panel-error" role="alert">{err}</p> : <p class="progress">Opening {module}…</p>;
}

/** NeedsAdmin is an embedded admin module opened by a session the host gave no admin role. */
function NeedsAdmin({ module }: { module?: string }) {
  return (
    <p>The “{module}” module needs the admin role, which the ERP may grant only where SyncAssist's embedded allowed roles allow it.</p>
  );
}

/** GO are the panels g then a letter opens, and the role each needs (null: every role). */
const GO: [key: string, path: string, label: string, needs: Role | null][] = [
  ["q", "/queue", "Queue", null], ["e", "/escalated", "Escalated", "approver"], ["u", "/auto-resolved", "Auto-resolved", null], ["i", "/insights", "Insights", null],
  ["f", "/finance", "Finance", null], ["g", "/governance", "Governance", "approver"],
  ["l", "/flows", "Flows", null], ["a", "/audit", "Audit", "approver"], ["s", "/settings", "Settings", "admin"]];

/** allows says whether roles open a panel that needs a role (an admin opens every panel). */
const allows = (roles: Role[], needs: Role | null) => !needs || roles.includes("admin") || roles.includes(needs);

/** g then a letter jumps between panels (ui's goKey: the letter is never also taken as
 *  an action on the open row); ? shows the shortcuts. An embedded session shows one module, so there is nowhere to jump to; a panel the role
 *  cannot open is not opened: the keys say why, as the navigation leaves it out. */
function useGoKeys(embedded: boolean, roles: Role[]): boolean {
  const [help, setHelp] = useState(false);
  const jump = (key: string) => {
    const to = GO.find(([k]) => k === key);
    if (!to) return;
    if (!allows(roles, to[3])) announce(`${to[2]} needs the ${to[3]} role`);
    else navigate(to[1]);
  };
  useKeys((e) => {
    if (goKey()) {
      if (!embedded) jump(e.key);
      return;
    }
    if (!shortcutKey(e)) return;
    if (e.key === "?") return setHelp((shown) => !shown);
    if (e.key === "Escape") return setHelp(false);
  });
  return help;
}

/** Shortcuts lists the keys that work for this role, and says which do not and why. */
function Shortcuts({ roles, embedded }: { roles: Role[]; embedded: boolean }) {
  const approver = allows(roles, "approver");
  const open = GO.filter(([, , , needs]) => allows(roles, needs));
  const closed = GO.filter((g) => !open.includes(g));
  const rows: [string, string][] = [
    ...(embedded ? [] : [[open.map(([k]) => "g " + k).join(" / "), open.map(([, , l]) => l).join(", ")] as [string, string]]),
    ["j / k", "next / previous sync error"],
    ["/", "search the queue"], ["x", "select or unselect the focused row, for a bulk decision"],
    ["a", approver ? "approve" : "approve — only fixes the approval policy gives operators; the others need an approver"],
    ["r", "reject (asks a reason)"], ["e", "escalate (asks a note)"],
    ["t", "retry: run the sync again from its source"], ["s", "resolve without a write (asks why)"],
    ["Enter", "in a one-line box: apply it (search, tag, system, assign)"], ["Ctrl+Enter / ⌘+Enter", "in a reason or note box: send it"],
    ["?", "show or hide this list"]];
  return (
    <section class="shortcuts" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <table class="grid"><tbody>{rows.map(([k, v]) => <tr><th scope="row"><kbd>{k}</kbd></th><td>{v}</td></tr>)}</tbody></table>
      {!embedded && closed.length > 0 && <p class="note">Not for your role: {closed.map(([k, , l, needs]) => `g ${k} (${l}, needs ${needs})`).join(", ")}.</p>}
      {embedded && <p class="note">This embedded panel shows one module, so the g keys that switch panels do not apply.</p>}
    </section>
  );
}

/** usePendingCounts reads what waits in each panel: one request for every badge, polled;
 *  the browser revalidates it with its ETag, so an unchanged answer is a 304 with no body.
 *  Quietly: no banner for counts. */
function usePendingCounts(at: string): Record<string, string> {
  const [counts, setCounts] = useState<Record<string, string>>({});
  const embedded = !!session.value?.module;
  const signedIn = !!session.value;
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => !document.hidden && setTick((n) => n + 1), 30_000);
    return () => clearInterval(t);
  }, []);
  useEffect(() => {
    // Signed out there is nothing to read (a 401 would start a sign-in); embedded there
    // is one module and no navigation to count for.
    if (embedded || !signedIn) return;
    void readQuiet<NavCounts>("/api/console/counts").then((n) => {
      const c: Record<string, string> = {};
      for (const [k, v] of Object.entries(n ?? {})) if (v) c[k] = v.more ? v.pending + "+" : String(v.pending);
      setCounts(c);
    });
  }, [at, embedded, signedIn, tick]);
  return counts;
}
