// The grouped view: sync errors that share a diagnosis, decided together. Each item still
// takes its own lease and guarded write on the server, and the approval policy judges each
// (an operator approves the members it gives operators). A group decision lists its
// members and what it writes, and asks before it writes anything; the outcome stays on the
// card, failures grouped by cause, with a way to select the failed rows in the list.
import { useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, BulkItemResult, ProposalGroup, ProposalGroupList } from "../api/types";
import { navigate } from "../router";
import { AskDialog, Chip, ConfirmDialog, plural, Progress, show, showError } from "../ui";
import { BulkSummary, CHANGED } from "./bulk-summary";

export function Groups(props: { groups: ProposalGroupList | null; demo: boolean; canApprove: boolean; onDone: () => void; onSelect?: (ids: string[]) => void }) {
  if (!props.groups) return <p aria-busy="true">Loading groups…</p>;
  // A group of one is no group: it is decided in the list like any single error.
  const groups = props.groups.items.filter((g) => g.count > 1);
  const singles = props.groups.items.length - groups.length;
  const needs = props.groups.needsPerson;
  if (groups.length === 0 && needs.count === 0) return <p class="empty">No pending proposals share a diagnosis{singles ? ` (${plural(singles, "error")} with a fix of its own, in the list)` : ""}.</p>;
  return (
    <ul class="groups">
      <li><button type="button" onClick={props.onDone}>Refresh groups</button></li>
      {groups.map((g) => <GroupCard key={g.key} g={g} demo={props.demo} canApprove={props.canApprove} onSelect={props.onSelect} />)}
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


// Per item: what was done, and each member left unwritten because its fix changed (the
// other failures are grouped by cause in the summary).
const listed = (r: BulkItemResult) => !r.problem || r.outcome === "changed";

// The card keeps its per-item results on screen until the operator refreshes the groups.
function GroupCard({ g, demo, canApprove, onSelect }: { g: ProposalGroup; demo: boolean; canApprove: boolean; onSelect?: (ids: string[]) => void }) {
  const [result, setResult] = useState<(BulkDecisionResult & { action: "approve" | "reject" }) | null>(null);
  const [asking, setAsking] = useState<"approve" | "reject" | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const decide = async (action: "approve" | "reject", reason?: string) => {
    setBusy(`${action === "approve" ? "Approving" : "Rejecting"} ${plural(g.count, "sync error")}, one at a time…`);
    try {
      // The approve carries what the confirmation showed (the group's key): a member whose
      // fix changed since this listing is not written but answers changed, for review.
      const r = await write<BulkDecisionResult>("POST", "/api/sync-error-assist/proposals/bulk",
        { action, ids: g.ids, reason, ...(action === "approve" ? { fixKeys: [g.key] } : {}) });
      setResult({ ...r, action });
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
          <button type="button" class="primary" disabled={!!busy || demo} onClick={() => setAsking("approve")}>Approve group…</button>
          <button type="button" disabled={!!busy || demo} onClick={() => setAsking("reject")}>Reject group…</button>
        </div>
      )}
      <Progress text={busy} />
      {!canApprove && !result && <p class="note">The approval policy judges each member: you approve the ones it gives operators; the others are refused and listed.</p>}
      {asking === "approve" && (
        <ConfirmDialog title={`Approve ${plural(g.count, "sync error")}?`} confirm={`Write ${plural(g.count, "record")}`}
          onClose={() => setAsking(null)} onConfirm={() => { setAsking(null); void decide("approve"); }}>
          <p>This writes <span class="mono">{changes}</span> to each of these records, one guarded write each; a record whose fix changes before its write is left for you to review:</p>
          <ul class="members">{g.ids.map((_, i) => <li><span class="mono">{g.recordIds[i]}</span> ({g.errorIds[i]})</li>)}</ul>
        </ConfirmDialog>
      )}
      {asking === "reject" && <AskDialog title={`Reject ${plural(g.count, "sync error")}`} label="Reason" confirm="Reject" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); void decide("reject", t); }} />}
      {result && <BulkSummary done={result.action === "approve" ? "Approved" : "Rejected"} total={g.count} r={result} onSelectFailed={onSelect} />}
      {result && result.results.some(listed) && (
        <ul class="results" aria-label="Results per item">
          {result.results.filter(listed).map((r) => (
            <li><span class="mono">{g.errorIds[g.ids.indexOf(r.id)] ?? r.id}</span> <Chip kind={r.outcome}>{r.outcome}</Chip>
              {r.outcome === "changed" && <> {CHANGED} <a href={"/queue/" + r.id} onClick={(e) => { e.preventDefault(); navigate("/queue/" + r.id); }}>Review it</a></>}</li>
          ))}
        </ul>
      )}
    </li>
  );
}
