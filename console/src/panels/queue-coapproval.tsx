// A two-approver round on a sync error (the detail's coApproval): who edited the fix, who
// approved it so far, and what the next approval does. The service's rule: an edit waiting
// for its second approval is what Approve approves and, as the second approval, writes; it
// replaces an edit the row kept. The diff above Approve is that edit, and Approve names it
// (coApproval: its key) so that a fix replaced meanwhile is refused, never written unseen.
import type { Proposal } from "../api/types";
import { actorName } from "../ui";

type Round = NonNullable<Proposal["coApproval"]>;

/** roundOf is the row's round under way, on a row awaiting a decision. */
export function roundOf(row: Proposal | null): Round | undefined {
  return row && (row.status === "pending" || row.status === "escalated") ? row.coApproval : undefined;
}

/** waitingFix is the edit waiting for its second approval: what Approve writes. */
export function waitingFix(row: Proposal | null): Round["fix"] | undefined {
  const fix = roundOf(row)?.fix;
  return fix && fix.length > 0 ? fix : undefined;
}

/** approveLabel is the Approve button's words on a row with a round under way ("" for the
 *  plain "Approve"): whether this approval writes the fix shown or is the first of two. */
export function approveLabel(round: Round | undefined, edited: boolean): string {
  if (!round || edited) return "";
  const second = round.approvers.length >= 1;
  if (round.fix?.length) return second ? "Approve and write this edit" : "Approve this edit (first of two)";
  return second ? "Approve and write this fix" : "Approve this fix (first of two)";
}

/** blocked says why the viewer cannot be the next approver ("" when they can). */
export function blocked(round: Round | undefined): string {
  if (round?.you === "editor") return "You edited this fix, so you cannot be one of its two approvers: two other approvers approve it.";
  if (round?.you === "approved") return "You approved this fix already: a second, different approver writes it.";
  return "";
}

const person = (actor: string, you?: boolean) => (you ? "you" : actorName(actor));

/** CoApprovalSummary is "Waiting for a second approver": editor, approvals, and what the
 *  next approval does. The diff below it is the fix that approval writes. */
export function CoApprovalSummary({ round, edited, canApprove }: { round: Round; edited: boolean; canApprove: boolean }) {
  const done = round.approvers.length;
  const why = blocked(round);
  return (
    <div class="coapproval" role="group" aria-labelledby="coapproval-h">
      <h3 id="coapproval-h">{done >= round.needed ? "Approved by two approvers, not written yet" : "Waiting for a second approver"}</h3>
      <dl class="record">
        {round.editor && <><dt>Edited by</dt><dd>{person(round.editor, round.editorIsYou)}</dd></>}
        <dt>Approved by</dt><dd>{done ? round.approvers.map((a) => person(a.actor, a.you)).join(", ") : "nobody yet"} ({done} of {round.needed})</dd>
      </dl>
      {round.supersedes && <p class="note">This edit replaces the operator's edit that was {round.supersedes === "held" ? "held for an ownership approval" :
        "not verified"}: that edit is no longer written. Enter it again to approve it instead.</p>}
      {!canApprove ? <p class="note">Two approvers, neither of them its editor, approve it; the second approval writes the fix shown below.</p>
        : edited ? <p class="note">You changed a value: Approve sends your edit, which starts a new round that two other approvers must approve.</p>
        : why ? <p class="note" id="coapproval-why">{why}</p>
        : <p class="note">{done >= 1 ? `Approve writes ${round.fix?.length ? "this edit" : "this fix"} exactly as shown below.`
          : "Your approval is the first of two: nothing is written until a second approver approves the fix shown below."}</p>}
    </div>
  );
}
