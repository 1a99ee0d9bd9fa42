// What issue 24 added to a row: who may approve it and why (the tenant's approval policy),
// where a learned fix comes from, how often the error recurred, and the Retry and Resolve
// decisions that give every class of error a way out.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Proposal } from "../api/types";
import { submitOnCtrlEnter } from "../keys";
import { Ago } from "../ui";

export const APPLY_WORDS: Record<string, string> = {
  operator: "an operator or approver",
  approver: "an approver",
  two_approvers: "two approvers (not the person who edited the fix)",
  auto: "the approval policy, automatically",
};

/** mayApprove says whether the signed-in person can approve this row under its policy. */
export function mayApprove(row: Proposal, isApprover: boolean): boolean {
  const apply = row.approval?.apply;
  if (apply === "operator") return true;
  return isApprover;
}

/** whoCan says who may approve the row's fix now: its rule's people, but only an approver
 *  once it is escalated. */
function whoCan(row: Proposal): string {
  const apply = row.approval?.apply ?? "approver";
  if (row.status === "escalated" && (apply === "operator" || apply === "auto")) return "an approver (it was escalated)";
  return APPLY_WORDS[apply] ?? apply;
}

/** Facts shows the approval rule, the learned fix's provenance and the recurrence. */
export function Facts({ row }: { row: Proposal }) {
  const learned = row.proposal?.source === "learned" ? row.proposal.learned : undefined;
  return (
    <>
      {(row.status === "pending" || row.status === "escalated") && row.approval && (
        <p class="note">Who can approve: {whoCan(row)}
          {row.approval.ruleId ? <> (rule <code>{row.approval.ruleId}</code>)</> : null}: {row.approval.reason}
          {row.decider === "you" ? " You can." : ""}</p>
      )}
      {learned && (
        <p class="note">Learned fix: from {learned.approvals} approval{learned.approvals === 1 ? "" : "s"} by {learned.people} {learned.people === 1 ? "person" : "people"}
          {learned.rejections > 0 ? `, rejected ${learned.rejections} time${learned.rejections === 1 ? "" : "s"}` : ""}
          {learned.lastApprovedBy ? <>, last by {learned.lastApprovedBy}</> : null}
          {learned.lastApprovedAt ? <> <Ago at={learned.lastApprovedAt} /></> : null}.</p>
      )}
      {(row.occurrences ?? 1) > 1 && (
        <p class="note">Seen {row.occurrences} times, first <Ago at={row.firstSeen} />, last <Ago at={row.lastSeen} />.</p>
      )}
      {row.recurrenceOf && <p class="note">A recurrence of <a href={"/queue/" + row.recurrenceOf}>an error closed earlier</a>.</p>}
      {row.status === "retrying" && (
        <p class="note">Being retried automatically: attempt {row.retryAttempts}
          {row.nextRetryAt ? <>, next <Ago at={row.nextRetryAt} /></> : null}{row.retryError ? ` (last: ${row.retryError})` : ""}. Nobody needs to act.</p>
      )}
      {row.resolution && <p class="note">Resolved: {row.resolution.split("_").join(" ")}.</p>}
    </>
  );
}

const REASONS: [string, string][] = [
  ["fixed_at_source", "Fixed at the source"],
  ["not_an_error", "Not an error"],
  ["duplicate", "Duplicate of another error"],
];

/** ResolveDialog asks why an error is closed without a write; children say more (bulk: which rows). */
export function ResolveDialog(props: { title: string; onConfirm: (reason: string, note: string) => void; onClose: () => void; children?: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState(REASONS[0][0]);
  const [note, setNote] = useState("");
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-label={props.title} onClose={props.onClose}>
      <form onSubmit={(e) => { e.preventDefault(); props.onConfirm(reason, note.trim()); }}>
        <h2>{props.title}</h2>
        <p>Closes the error with no write to any system.</p>
        {props.children}
        <label for="resolve-reason">Reason</label>{" "}
        <select id="resolve-reason" value={reason} onChange={(e) => setReason((e.target as HTMLSelectElement).value)}>
          {REASONS.map(([v, label]) => <option value={v}>{label}</option>)}
        </select>
        <label for="resolve-note">Note (optional)</label>
        <textarea id="resolve-note" value={note} aria-keyshortcuts="Control+Enter Meta+Enter" onKeyDown={submitOnCtrlEnter}
          onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)} />
        <div class="actions">
          <button type="submit" class="primary">Resolve</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

