// The console's frame: top bar, demo banner, navigation and the panel for the URL.
import { useEffect, useState } from "preact/hooks";
import { demoReason, onUnauthorized } from "./api/client";
import { type ConsoleConfig, hasRole, session, signIn, signOut } from "./auth";
import { AuditPanel } from "./panels/audit";
import { FinancePanel } from "./panels/finance";
import { GovernancePanel } from "./panels/governance";
import { QueuePanel } from "./panels/queue";
import { navigate, path, segments } from "./router";
import { Status } from "./ui";

const MODULE_PANEL: Record<string, string> = {
  "sync-errors": "queue",
  "finance-approvals": "finance",
  governance: "governance",
  audit: "audit",
};

export function App({ config }: { config: ConsoleConfig }) {
  const s = session.value;
  const here = () => location.pathname + location.search;
  onUnauthorized.handle = () => void signIn(config, here());
  useGoKeys();

  if (!s) {
    return (
      <main class="signed-out">
        <h1>SyncAssist</h1>
        <p>Sync-error triage and governance for your ERP integrations.</p>
        <button type="button" class="primary" onClick={() => void signIn(config, path.value === "/" ? "/queue" : here())}>Sign in</button>
        {config.devSignIn && <p class="note">Local stack: the development issuer lets you choose tenant and role.</p>}
      </main>
    );
  }
  const approver = hasRole(s, "approver");
  const embeddedPanel = s.module ? MODULE_PANEL[s.module] ?? "none" : null;
  const panel = embeddedPanel ?? (segments()[0] || "queue");
  path.value; // re-render on navigation
  const nav = [
    { id: "queue", label: "Queue", show: true },
    { id: "finance", label: "Finance", show: true },
    { id: "governance", label: "Governance", show: approver },
    { id: "audit", label: "Audit", show: approver },
  ].filter((n) => n.show && !embeddedPanel);

  return (
    <>
      <header class="topbar">
        <span class="brand">SyncAssist</span>
        <span>tenant <strong>{s.tenant}</strong></span>
        <span>{s.user} · {s.roles.join(", ")}</span>
        {!s.embeddedContextId && <button type="button" onClick={() => signOut(config)}>Sign out</button>}
      </header>
      {demoReason.value && <div class="banner" role="status">{demoReason.value}. Actions are disabled.</div>}
      <div class="body">
        {nav.length > 0 && (
          <nav aria-label="Panels">
            <ul>
              {nav.map((n) => (
                <li><a href={"/" + n.id} aria-current={panel === n.id ? "page" : undefined}
                  onClick={(e) => { e.preventDefault(); navigate("/" + n.id); }}>{n.label}</a></li>
              ))}
            </ul>
            <p class="note">Keys: g then q/f/g/a, j/k, a/r/e</p>
          </nav>
        )}
        <main>
          <Status />
          {panel === "queue" && <QueuePanel canApprove={approver} />}
          {panel === "finance" && <FinancePanel canApprove={approver} />}
          {panel === "governance" && (approver ? <GovernancePanel /> : <p>Governance needs the approver role.</p>)}
          {panel === "audit" && (approver ? <AuditPanel /> : <p>The audit log needs the approver role.</p>)}
          {panel === "none" && <p>The module “{s.module}” is not available in the console.</p>}
        </main>
      </div>
    </>
  );
}

/** g then a letter jumps between panels. */
function useGoKeys() {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      if (!armed) {
        if (e.key === "g") setArmed(true);
        return;
      }
      setArmed(false);
      const to = { q: "/queue", f: "/finance", g: "/governance", a: "/audit" }[e.key];
      if (to) navigate(to);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [armed]);
}
