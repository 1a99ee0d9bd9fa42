// Governance: held writes waiting for an approver, and what the guard refused or broke
// in the last hour, each paged with the API's cursors.
import { useState } from "preact/hooks";
import { write } from "../api/client";
import { demoApprovals, demoLoops, demoRejections } from "../api/demo";
import type { GovernanceApproval, List, LoopDetection, OwnershipRejection } from "../api/types";
import { MoreRows, usePaged } from "../paging";
import { Ago, announce, Chip, PanelError, showError } from "../ui";
import { plural } from "./queue-groups";

const TABS = ["Pending approvals", "Ownership rejections", "Loop detections"] as const;

export function GovernancePanel() {
  const [tab, setTab] = useState<(typeof TABS)[number]>(TABS[0]);
  return (
    <section aria-labelledby="gov-h">
      <h1 id="gov-h">Governance</h1>
      <div role="tablist" aria-label="Governance records">
        {TABS.map((t, i) => (
          <button type="button" role="tab" id={"tab-" + i} aria-controls={"tabpanel-" + i} aria-selected={tab === t} onClick={() => setTab(t)}>{t}</button>
        ))}
      </div>
      <div role="tabpanel" id={"tabpanel-" + TABS.indexOf(tab)} aria-labelledby={"tab-" + TABS.indexOf(tab)}>
        {tab === TABS[0] && <Approvals />}
        {tab === TABS[1] && <Window<OwnershipRejection> path="/api/governance/ownership-rejections" demo={demoRejections}
          cols={["Time", "Entity", "Declared owner", "Caller", "Policy", "Correlation"]}
          cells={(r) => [<Ago at={r.time} />, r.entity, r.declaredOwner, r.caller, <Chip>{r.policy}</Chip>, <code>{r.correlationId}</code>]} />}
        {tab === TABS[2] && <Window<LoopDetection> path="/api/governance/loop-detections" demo={demoLoops}
          cols={["Time", "Entity", "Caller → target", "Breaking condition", "Correlation"]}
          cells={(r) => [<Ago at={r.time} />, r.entity, `${r.caller} → ${r.target}`, r.breakingCondition, <code>{r.correlationId}</code>]} />}
      </div>
    </section>
  );
}

function Approvals() {
  const paged = usePaged<GovernanceApproval>("/api/governance/approvals?reason=ownership&status=pending", demoApprovals);
  const decide = async (a: GovernanceApproval, action: "approve" | "deny") => {
    try {
      await write("POST", `/api/governance/approvals/${a.id}/${action}`);
      announce(`${action === "approve" ? "Approved" : "Denied"} the held write to ${a.resource}`);
    } catch (e) {
      showError(e);
      paged.reload(); // someone may have acted first: show the list as it stands
      return;
    }
    // Decided: it is no longer pending, and the pages loaded so far keep their place.
    paged.setRows((rs) => rs.filter((x) => x.id !== a.id));
  };
  const rows = paged.rows;
  if (paged.failed !== null) return <PanelError what="Held writes" error={paged.failed} onRetry={paged.reload} />;
  if (!rows) return <p aria-busy="true">Loading…</p>;
  if (rows.length === 0 && !paged.page?.nextCursor) return <p class="empty">No held writes wait for an approver.</p>;
  return (
    <>
      <table class="grid">
        <thead><tr><th scope="col">Time</th><th scope="col">Tenant</th><th scope="col">Entity</th><th scope="col">Declared owner</th><th scope="col">Caller</th><th scope="col">Resource</th><th scope="col">Decision</th></tr></thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id}>
              <td><Ago at={a.time} /></td><td>{a.tenant}</td><td>{a.entity} <span class="note">{(a.fields ?? []).join(", ")}</span></td>
              <td>{a.declaredOwner}</td><td>{a.caller}</td><td class="mono">{a.resource}</td>
              <td class="actions">
                <button type="button" class="primary" disabled={paged.demo} onClick={() => void decide(a, "approve")}>Approve</button>
                <button type="button" disabled={paged.demo} onClick={() => void decide(a, "deny")}>Deny</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreRows paged={paged} noun={(n) => plural(n, "held write")} />
    </>
  );
}

function Window<T extends { id: string }>(props: { path: string; demo: () => List<T>; cols: string[]; cells: (r: T) => unknown[] }) {
  const paged = usePaged<T>(props.path, props.demo);
  const rows = paged.rows;
  if (paged.failed !== null) return <PanelError what="These records" error={paged.failed} onRetry={paged.reload} />;
  if (!rows) return <p aria-busy="true">Loading…</p>;
  if (rows.length === 0) return <p class="empty">None in the last hour.</p>;
  return (
    <>
      <table class="grid">
        <thead><tr>{props.cols.map((c) => <th scope="col">{c}</th>)}</tr></thead>
        <tbody>{rows.map((r) => <tr key={r.id}>{props.cells(r).map((c) => <td>{c as string}</td>)}</tr>)}</tbody>
      </table>
      <MoreRows paged={paged} noun={(n) => plural(n, "record")} />
    </>
  );
}
