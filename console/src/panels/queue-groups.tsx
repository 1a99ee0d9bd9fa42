// The grouped view: sync errors that share a diagnosis, decided together. Each item still
// takes its own lease and guarded write on the server; the result shows per item.
import { useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, ProposalGroup, ProposalGroupList } from "../api/types";
import { announce, AskDialog, Chip, show, showError } from "../ui";

export function Groups(props: { groups: ProposalGroupList | null; demo: boolean; canApprove: boolean; onDone: () => void }) {
  if (!props.groups) return <p aria-busy="true">Loading groups…</p>;
  if (props.groups.items.length === 0) return <p class="empty">No pending proposals to group.</p>;
  return (
    <ul class="groups">
      <li><button type="button" onClick={props.onDone}>Refresh groups</button></li>
      {props.groups.items.map((g) => <GroupCard key={g.key} g={g} demo={props.demo} canApprove={props.canApprove} />)}
      {props.groups.truncated && <li class="note">Only the newest {props.groups.scanned} pending items were grouped.</li>}
    </ul>
  );
}

// The card keeps its per-item results on screen until the operator refreshes the groups.
function GroupCard({ g, demo, canApprove }: { g: ProposalGroup; demo: boolean; canApprove: boolean }) {
  const [result, setResult] = useState<BulkDecisionResult | null>(null);
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const decide = async (action: "approve" | "reject", reason?: string) => {
    setBusy(true);
    try {
      const r = await write<BulkDecisionResult>("POST", "/api/sync-error-assist/proposals/bulk", { action, ids: g.ids, reason });
      setResult(r);
      announce(`${action === "approve" ? "Approved" : "Rejected"} ${r.succeeded} of ${g.count}; ${r.failed} failed`);
    } catch (e) {
      showError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="group">
      <p><strong>{g.count}</strong> sync errors · <Chip kind="class">{g.class}</Chip>{" "}
        {g.changes.map((c) => <span class="mono">{c.path} → {show(c.after)} </span>)}</p>
      <p class="note">e.g. {g.sample.errorId}: {g.sample.message}</p>
      {canApprove && !result && (
        <div class="actions">
          <button type="button" class="primary" disabled={busy || demo} onClick={() => void decide("approve")}>Approve group</button>
          <button type="button" disabled={busy || demo} onClick={() => setAsking(true)}>Reject group</button>
        </div>
      )}
      {asking && <AskDialog title="Reject group" label="Reason" confirm="Reject" onClose={() => setAsking(false)} onConfirm={(t) => { setAsking(false); void decide("reject", t); }} />}
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
