// The grouped view: sync errors that share a diagnosis, decided together. Each item still
// takes its own lease and guarded write on the server; the result shows per item. A group
// decision lists its members and what it writes, and asks before it writes anything.
import { useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, ProposalGroup, ProposalGroupList } from "../api/types";
import { navigate } from "../router";
import { announce, AskDialog, Chip, ConfirmDialog, Progress, show, showError } from "../ui";

/** plural says "1 sync error" and "3 sync errors". */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function Groups(props: { groups: ProposalGroupList | null; demo: boolean; canApprove: boolean; onDone: () => void }) {
  if (!props.groups) return <p aria-busy="true">Loading groups…</p>;
  // A group of one is no group: it is decided in the list like any single error.
  const groups = props.groups.items.filter((g) => g.count > 1);
  const singles = props.groups.items.length - groups.length;
  const needs = props.groups.needsPerson;
  if (groups.length === 0 && needs.count === 0) return <p class="empty">No pending proposals share a diagnosis{singles ? ` (${plural(singles, "error")} with a fix of its own, in the list)` : ""}.</p>;
  return (
    <ul class="groups">
      <li><button type="button" onClick={props.onDone}>Refresh groups</button></li>
      {groups.map((g) => <GroupCard key={g.key} g={g} demo={props.demo} canApprove={props.canApprove} />)}
      {needs.count > 0 && (
        <li class="group">
          <p><strong>{plural(needs.count, "sync error")}</strong> need a person: no field change was proposed or the diagnosis failed.</p>
          <ul class="members">
            {needs.ids.map((id, i) => <li><a href={"/queue/" + id} onClick={(e) => { e.preventDefault(); navigate("/queue/" + id); }} class="mono">{needs.errorIds[i]}</a></li>)}
          </ul>
        </li>
      )}
      {singles > 0 && <li class="note">{plural(singles, "error")} with a fix of {singles === 1 ? "its" : "their"} own {singles === 1 ? "is" : "are"} in the list view.</li>}
      {props.groups.truncated && <li class="note">Only the newest {props.groups.scanned} pending items were grouped.</li>}
    </ul>
  );
}

// The card keeps its per-item results on screen until the operator refreshes the groups.
function GroupCard({ g, demo, canApprove }: { g: ProposalGroup; demo: boolean; canApprove: boolean }) {
  const [result, setResult] = useState<BulkDecisionResult | null>(null);
  const [asking, setAsking] = useState<"approve" | "reject" | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const decide = async (action: "approve" | "reject", reason?: string) => {
    setBusy(`${action === "approve" ? "Approving" : "Rejecting"} ${plural(g.count, "sync error")}, one at a time…`);
    try {
      const r = await write<BulkDecisionResult>("POST", "/api/sync-error-assist/proposals/bulk", { action, ids: g.ids, reason });
      setResult(r);
      announce(`${action === "approve" ? "Approved" : "Rejected"} ${r.succeeded} of ${plural(g.count, "sync error")}; ${r.failed} failed`);
    } catch (e) {
      showError(e);
    } finally {
      setBusy(null);
    }
  };
  const changes = g.changes.map((c) => `${c.path} → ${show(c.after)}`).join(", ");
  return (
    <li class="group">
      <p><strong>{plural(g.count, "sync error")}</strong> · <Chip kind="class">{g.class}</Chip>{" "}
        <span class="mono">{changes}</span></p>
      <p class="note">e.g. {g.sample.errorId}: {g.sample.message}</p>
      <details><summary>Members</summary>
        <ul class="members">{g.ids.map((_, i) => <li><span class="mono">{g.errorIds[i]}</span> — {g.recordIds[i]}</li>)}</ul>
      </details>
      {!result && (
        <div class="actions">
          {canApprove && <button type="button" class="primary" disabled={!!busy || demo} onClick={() => setAsking("approve")}>Approve group…</button>}
          <button type="button" disabled={!!busy || demo} onClick={() => setAsking("reject")}>Reject group…</button>
        </div>
      )}
      <Progress text={busy} />
      {!canApprove && !result && <p class="note">Approving a whole group needs an approver; open a member to approve what the approval policy gives operators.</p>}
      {asking === "approve" && (
        <ConfirmDialog title={`Approve ${plural(g.count, "sync error")}?`} confirm={`Write ${plural(g.count, "record")}`}
          onClose={() => setAsking(null)} onConfirm={() => { setAsking(null); void decide("approve"); }}>
          <p>This writes <span class="mono">{changes}</span> to each of these records, one guarded write each:</p>
          <ul class="members">{g.ids.map((_, i) => <li><span class="mono">{g.recordIds[i]}</span> ({g.errorIds[i]})</li>)}</ul>
        </ConfirmDialog>
      )}
      {asking === "reject" && <AskDialog title={`Reject ${plural(g.count, "sync error")}`} label="Reason" confirm="Reject" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); void decide("reject", t); }} />}
      {result && (
        <ul class="results" aria-label="Results per item">
          {result.results.map((r, i) => (
            <li><span class="mono">{g.errorIds[g.ids.indexOf(r.id)] ?? r.id ?? i}</span> <Chip kind={r.outcome}>{r.outcome}</Chip>
              {r.problem && <span> {r.problem.title}{r.problem.detail ? ` — ${r.problem.detail}` : ""}</span>}</li>
          ))}
        </ul>
      )}
    </li>
  );
}
