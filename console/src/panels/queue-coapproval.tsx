// A two-approver round on a sync error (the detail's coApproval): who edited the fix, who
// approved it so far, and what the next approval does; loaded by the detail for such rows
// only. The service's rule: an edit waiting for its second approval is what Approve
// approves and, as the second approval, writes; it replaces an edit the row kept. The diff
// below is that edit, and Approve names it (coApproval: its key) so that a fix replaced
// meanwhile is refused, never written unseen. The editor, or an approver who approved it,
// finds Approve disabled (the detail) and reads why here.
import type { Proposal } from "../api/types";
import { actorName } from "../ui";

type Round = NonNullable<Proposal["coApproval"]>;

/** blocked says why the viewer cannot be the next approver ("" when they can). */
function blocked(round: Round | undefined): string {
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
