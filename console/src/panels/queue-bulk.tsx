// Bulk decisions on the rows an operator picked: each item is still leased and guarded
// on the server, so a partial failure is reported item by item.
import { useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, ProposalSummary } from "../api/types";
import { announce, AskDialog, Chip, ConfirmDialog, showError } from "../ui";
import { plural } from "./queue-groups";

export function BulkBar(props: { picked: ProposalSummary[]; canApprove: boolean; demo: boolean; onClear: () => void; onDone: () => void }) {
  const [asking, setAsking] = useState<"approve" | "reject" | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<BulkDecisionResult | null>(null);
  const rows = props.picked;
  const decide = async (action: "approve" | "reject", reason?: string) => {
    setBusy(true);
    try {
      const r = await write<BulkDecisionResult>("POST", "/api/sync-error-assist/proposals/bulk", { action, ids: rows.map((p) => p.id), reason });
      setResult(r.failed ? r : null);
      announce(`${action === "approve" ? "Approved" : "Rejected"} ${r.succeeded} of ${plural(rows.length, "sync error")}${r.failed ? `; ${r.failed} failed` : ""}`);
      props.onDone();
    } catch (e) {
      showError(e);
    } finally {
      setBusy(false);
    }
  };
  const errorId = (id: string) => rows.find((p) => p.id === id)?.errorId ?? id;
  return (
    <div class="bulk" role="region" aria-label="Selected sync errors">
      {rows.length > 0 && (
        <div class="toolbar">
          <strong>{plural(rows.length, "selected")}</strong>
          {props.canApprove && <button type="button" class="primary" disabled={busy || props.demo} onClick={() => setAsking("approve")}>Approve selected…</button>}
          <button type="button" disabled={busy || props.demo} onClick={() => setAsking("reject")}>Reject selected…</button>
          <button type="button" class="link" onClick={props.onClear}>Clear selection</button>
        </div>
      )}
      {asking === "approve" && (
        <ConfirmDialog title={`Approve ${plural(rows.length, "sync error")}?`} confirm={`Approve ${rows.length}`}
          onClose={() => setAsking(null)} onConfirm={() => { setAsking(null); void decide("approve"); }}>
          <p>Each proposed fix is written to its record, one guarded write each. Rows without a fix are refused and reported.</p>
          <ul class="members">{rows.map((p) => <li><span class="mono">{p.errorId}</span> — {p.recordType} / {p.recordId}</li>)}</ul>
        </ConfirmDialog>
      )}
      {asking === "reject" && <AskDialog title={`Reject ${plural(rows.length, "sync error")}`} label="Reason" confirm="Reject"
        onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); void decide("reject", t); }} />}
      {result && (
        <ul class="results" aria-label="Items that failed">
          {result.results.filter((r) => r.outcome !== "approved" && r.outcome !== "rejected").map((r) => (
            <li><span class="mono">{errorId(r.id)}</span> <Chip kind={r.outcome}>{r.outcome}</Chip>
              {r.problem && <span> {r.problem.title}{r.problem.detail ? ` — ${r.problem.detail}` : ""}</span>}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
