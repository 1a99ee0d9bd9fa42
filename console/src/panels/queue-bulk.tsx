// Bulk decisions on the rows an operator picked: each item is still leased and guarded
// on the server, so a partial failure is reported item by item. Retry and resolve report
// every item's outcome (a retry may land, wait for the schedule or return to pending).
import { useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, BulkItemResult, ProposalSummary } from "../api/types";
import { announce, AskDialog, Chip, ConfirmDialog, Progress, showError } from "../ui";
import { plural } from "./queue-groups";
import { ResolveDialog } from "./queue-more";

type Action = "approve" | "reject" | "retry" | "resolve";
const DONE: Record<Action, string> = { approve: "Approved", reject: "Rejected", retry: "Retried", resolve: "Resolved" };
const WORKING: Record<Action, string> = { approve: "Approving", reject: "Rejecting", retry: "Retrying", resolve: "Resolving" };

export function BulkBar(props: { picked: ProposalSummary[]; canApprove: boolean; demo: boolean; onClear: () => void; onDone: () => void }) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // The rows' error ids are kept with the result: the decided rows leave the list (and the
  // selection) when it refreshes, and the outcomes must still name them.
  const [result, setResult] = useState<{ action: Action; r: BulkDecisionResult; names: Record<string, string> } | null>(null);
  const rows = props.picked;
  const decide = async (action: Action, reason?: string, note?: string) => {
    setBusy(`${WORKING[action]} ${plural(rows.length, "sync error")}, one at a time…`);
    try {
      const r = await write<BulkDecisionResult>("POST", "/api/sync-error-assist/proposals/bulk",
        { action, ids: rows.map((p) => p.id), reason, ...(note ? { note } : {}) });
      const names = Object.fromEntries(rows.map((p) => [p.id, p.errorId]));
      setResult(r.failed || action === "retry" || action === "resolve" ? { action, r, names } : null);
      announce(`${DONE[action]} ${r.succeeded} of ${plural(rows.length, "sync error")}${r.failed ? `; ${r.failed} failed` : ""}`);
      props.onDone();
    } catch (e) {
      showError(e);
    } finally {
      setBusy(null);
    }
  };
  const close = () => setAsking(null);
  const members = <ul class="members">{rows.map((p) => <li><span class="mono">{p.errorId}</span> — {p.recordType} / {p.recordId}</li>)}</ul>;
  const off = !!busy || props.demo;
  return (
    <div class="bulk" role="region" aria-label="Selected sync errors">
      {rows.length > 0 && (
        <div class="toolbar">
          <strong>{plural(rows.length, "selected")}</strong>
          {props.canApprove && <button type="button" class="primary" disabled={off} onClick={() => setAsking("approve")}>Approve selected…</button>}
          <button type="button" disabled={off} onClick={() => setAsking("reject")}>Reject selected…</button>
          <button type="button" disabled={off} onClick={() => setAsking("retry")}>Retry selected…</button>
          <button type="button" disabled={off} onClick={() => setAsking("resolve")}>Resolve selected…</button>
          <button type="button" class="link" onClick={props.onClear}>Clear selection</button>
        </div>
      )}
      <Progress text={busy} />
      {asking === "approve" && (
        <ConfirmDialog title={`Approve ${plural(rows.length, "sync error")}?`} confirm={`Approve ${rows.length}`}
          onClose={close} onConfirm={() => { close(); void decide("approve"); }}>
          <p>Each proposed fix is written to its record, one guarded write each. Rows without a fix are refused and reported.</p>
          {members}
        </ConfirmDialog>
      )}
      {asking === "reject" && <AskDialog title={`Reject ${plural(rows.length, "sync error")}`} label="Reason" confirm="Reject"
        onClose={close} onConfirm={(t) => { close(); void decide("reject", t); }} />}
      {asking === "retry" && (
        <ConfirmDialog title={`Retry ${plural(rows.length, "sync error")}?`} confirm={`Retry ${rows.length}`}
          onClose={close} onConfirm={() => { close(); void decide("retry"); }}>
          <p>Each sync runs again from its source: the host ERP re-runs its record's sync (with an approved fix written first),
            a flow reads its source again. Nothing stored is sent again. One that lands is resolved; one that fails for now stays
            retrying on the schedule; one that cannot succeed as things stand returns to pending, its error as received, with the
            attempt listed under it.</p>
          {members}
        </ConfirmDialog>
      )}
      {asking === "resolve" && (
        <ResolveDialog title={`Resolve ${plural(rows.length, "sync error")}`} onClose={close}
          onConfirm={(reason, note) => { close(); void decide("resolve", reason, note); }}>
          <p>All {plural(rows.length, "selected error")} are closed with the reason below; none is sent again.</p>
          {members}
        </ResolveDialog>
      )}
      {result && <Outcomes action={result.action} r={result.r} errorId={(id) => result.names[id] ?? id} />}
    </div>
  );
}

/** Outcomes lists what each item came to: every item for retry and resolve, the failures
 *  for approve and reject (whose successes leave the pending list). */
function Outcomes({ action, r, errorId }: { action: Action; r: BulkDecisionResult; errorId: (id: string) => string }) {
  const all = action === "retry" || action === "resolve";
  const items = all ? r.results : r.results.filter((i) => i.outcome !== "approved" && i.outcome !== "rejected");
  return (
    <ul class="results" aria-label={all ? `${DONE[action]}: outcome per sync error` : "Items that failed"}>
      {items.map((i) => (
        <li><span class="mono">{errorId(i.id)}</span> <Chip kind={i.outcome}>{i.outcome}</Chip>
          {i.outcome === "retried" && <span> {retryWords(i)}</span>}
          {i.problem && <span> {i.problem.title}{i.problem.detail ? ` — ${i.problem.detail}` : ""}</span>}</li>
      ))}
    </ul>
  );
}

/** retryWords says where a retried row ended, from the row the retry route answered. */
function retryWords(i: BulkItemResult): string {
  const status = (i.row as { status?: string } | undefined)?.status;
  if (status === "resolved") return "landed: resolved";
  if (status === "retrying") return "not landed yet: retrying on the schedule";
  if (status === "pending") return "did not land: pending, the attempt listed under its error";
  return status ? "now " + status : "";
}
