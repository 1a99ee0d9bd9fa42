// Revert of a fix an auto rule applied: one action for the Auto-resolved list and the
// queue's detail. It shows why it is not offered (outcome, the 24 h window, the role),
// asks first, and reports the API's answer in words beside itself (and to screen readers).
import { useState } from "preact/hooks";
import { ApiError, write } from "../api/client";
import type { FieldChange, Proposal } from "../api/types";
import { actorName, Ago, announce, Chip, ConfirmDialog, show } from "../ui";
import { submitOnCtrlEnter } from "../keys";

/** REVERT_MS is the API's revert window (RevertWindow): 24 hours after the write. */
export const REVERT_MS = 24 * 3600_000;

/** Revertible is what a revert needs to know of a fix, from either an automation record or
 *  a sync error's detail. */
export interface Revertible {
  claimId: string;
  /** errorId, recordType and recordId name the fix to a person; the claim id is the API's. */
  errorId?: string;
  recordType?: string;
  recordId?: string;
  ruleId: string;
  fix: FieldChange[];
  /** at is when the fix was written; the window runs from it. */
  at: string;
  /** outcome is the automation outcome: only "applied" can be reverted. */
  outcome: string;
}

interface Props {
  item: Revertible;
  canRevert: boolean;
  /** demo data never takes a write. */
  demo: boolean;
  onReverted: () => void;
  /** onRefused reads the row again: a refusal often means someone acted first. */
  onRefused?: () => void;
}

export function RevertAction({ item, canRevert, demo, onReverted, onRefused }: Props) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const revert = async (reason: string) => {
    setAsking(false);
    setBusy(true);
    try {
      await write("POST", `/api/sync-error-assist/proposals/${item.claimId}/revert`, reason ? { reason } : {});
      setResult({ ok: true, text: "Reverted: the record holds its values from before the fix again." });
      announce(`Reverted ${errorName(item)}: the record is restored`);
      onReverted();
    } catch (e) {
      setResult({ ok: false, text: refusal(e) });
      announce(`${errorName(item)} was not reverted`);
      onRefused?.();
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <RevertOffer item={item} canRevert={canRevert} demo={demo || busy || result?.ok === true} onRevert={() => setAsking(true)} />
      {result && <p class={result.ok ? "note" : "warn"} role="status">{result.text}</p>}
      {asking && <RevertDialog item={item} onClose={() => setAsking(false)} onConfirm={(reason) => void revert(reason)} />}
    </>
  );
}

/** RevertOffer is the button, or in words why there is none. */
function RevertOffer({ item, canRevert, demo, onRevert }: { item: Revertible; canRevert: boolean; demo: boolean; onRevert: () => void }) {
  if (item.outcome !== "applied") return null;
  if (Date.now() - new Date(item.at).getTime() > REVERT_MS) return <span class="note">Revert window (24 h) closed</span>;
  if (!canRevert) return <span class="note">Revert needs an approver</span>;
  return <button type="button" disabled={demo} onClick={onRevert}>Revert<span class="sr-live"> {errorName(item)}</span></button>;
}

function RevertDialog({ item, onConfirm, onClose }: { item: Revertible; onConfirm: (reason: string) => void; onClose: () => void }) {
  const [reason, setReason] = useState("");
  return (
    <ConfirmDialog title={`Revert the fix on ${recordName(item)}?`} confirm="Revert" onClose={onClose} onConfirm={() => onConfirm(reason.trim())}>
      {item.errorId && <p class="note">Sync error <span class="mono">{item.errorId}</span></p>}
      <p>The values before the fix are written back through the guarded write, only if the record still holds what rule{" "}
        <code>{item.ruleId}</code> wrote; the row is marked reverted and the fix is learned as rejected, so it is not proposed again.</p>
      <ul class="fix-list">{item.fix.map((f) => <li><code>{f.path}</code>: {show(f.after)} → {show(f.before)}</li>)}</ul>
      <label for="revert-reason">Reason (optional)</label>
      <textarea id="revert-reason" maxLength={1000} value={reason} aria-keyshortcuts="Control+Enter Meta+Enter" onKeyDown={submitOnCtrlEnter} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
    </ConfirmDialog>
  );
}

/** recordName names the record the fix was written to ("salesOrder SO-10043"), as the
 *  approver knows it; the sync error's id where the record is unknown. */
export function recordName(item: Revertible): string {
  return item.recordId ? `${item.recordType ?? "record"} ${item.recordId}` : errorName(item);
}

/** errorName is the host's id of the sync error, the internal id only when there is none. */
function errorName(item: Revertible): string {
  return item.errorId || item.claimId;
}

/** refusal says why a revert was not made, or not confirmed: the API's own words (changed
 *  since, window closed, not revertible, the ERP refused, its answer lost), and for a 403
 *  which role it takes. */
function refusal(e: unknown): string {
  if (!(e instanceof ApiError)) return "Not reverted — " + String(e);
  const p = e.problem;
  const why = `${p.title}${p.detail ? ": " + p.detail : ""}`;
  if (e.status === 403) return `Not reverted — ${why}. Reverting needs the approver role; ask an approver.`;
  // The write's answer was lost: it may be in the record, so "not reverted" would be a guess.
  if (e.code === "revert_unsettled") return `Revert not confirmed — ${why}`;
  return `Not reverted — ${why}`;
}

/** ruleApplied finds, in a sync error's history, the fix an auto rule applied: the rule
 *  (actor policy:<rule>), when it was written and how it stands now. Null when no rule did. */
export function ruleApplied(row: Proposal): Revertible | null {
  const by = row.history.find((h) => h.actor.startsWith("policy:") && (h.action === "approved" || h.action === "approve"));
  if (!by) return null;
  const fix = row.editedFix?.length ? row.editedFix : row.proposal?.fix ?? [];
  const outcome = row.status === "reverted" ? "reverted" : row.status === "approved" && row.applied ? "applied" : row.status;
  return { claimId: row.id, errorId: row.errorId, recordType: row.recordType, recordId: row.recordId, ruleId: by.actor.slice("policy:".length), fix, at: row.applied?.at ?? by.at, outcome };
}

/** revertEntry is the history entry of a reverted row's revert (who, when). */
export function revertEntry(row: Proposal) {
  return row.status === "reverted" ? [...row.history].reverse().find((h) => h.action === "reverted") : undefined;
}

const STATE_WORDS: Record<string, string> = {
  applied: "the fix is in the record",
  reverted: "the record holds its values from before the fix again",
  applying: "being written; the reconcile completes it",
};

/** AutoApplied is the queue detail's account of a rule's fix, with the same Revert;
 *  onReverted reads the row again (after a revert, or a refusal: someone may have acted). */
export function AutoApplied({ row, canRevert, demo, onReverted }: { row: Proposal; canRevert: boolean; demo: boolean; onReverted: () => void }) {
  const item = ruleApplied(row);
  if (!item) return null;
  const undone = revertEntry(row);
  return (
    <section class="auto-applied" aria-labelledby="auto-applied-h">
      <h3 id="auto-applied-h">Applied by a rule</h3>
      <p>Rule <code>{item.ruleId}</code> of the approval policy wrote this fix{" "}
        <Ago at={item.at} />, without a person. <Chip kind={item.outcome}>{item.outcome}</Chip>{" "}
        <span class="note">{STATE_WORDS[item.outcome] ?? item.outcome}
          {undone ? <> — {actorName(undone.actor)} <Ago at={undone.at} />{undone.note ? `: ${undone.note}` : ""}</> : null}</span></p>
      <div class="actions"><RevertAction item={item} canRevert={canRevert} demo={demo} onReverted={onReverted} onRefused={onReverted} /></div>
    </section>
  );
}
