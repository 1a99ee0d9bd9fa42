// One sync error: the whole record, the proposed fix as an editable diff, why, its
// history, and the three decisions.
import { useEffect, useState } from "preact/hooks";
import { ApiError, read, readOptional, write } from "../api/client";
import { demoAutoApplied, demoProposals } from "../api/demo";
import type { ApproveOutcomeUnknown, ApproveWritten, CoApprovalPending, CostList, List, Proposal, Trace } from "../api/types";
import { AddChanges, DiffTable, planWrite, useFields, WritesLine, type Added } from "./fix-editor";
import { writeTarget } from "./fix-values";
import { useKeys } from "../keys";
import { Attempts, retryOutcome } from "./queue-attempts";
import { Facts, mayApprove, ResolveDialog } from "./queue-more";
import { ActionError, actorName, Ago, announce, AskDialog, Chip, clearError, Key, later, PanelError, Progress, shortcutKey, showError } from "../ui";

interface Props {
  id: string;
  demo: boolean;
  canApprove: boolean;
  onDecided: (row: Proposal) => void;
  /** onUndone puts a row back after its decision was undone before being sent. */
  onUndone: () => void;
  /** onChanged shows a row's new state in the list (a failed write-back, say). */
  onChanged: (row: Proposal) => void;
  /** onBack returns to the list where list and detail are two views (small screens). */
  onBack: () => void;
}

/** STAGES say what a write that may take seconds is doing while it runs. */
const STAGES: Record<string, string> = {
  approve: "Approving: lease taken, writing the fix through the guard…",
  retry: "Retrying: running the sync again from its source…",
};

export function Detail({ id, demo: listDemo, canApprove: isApprover, onDecided, onUndone, onChanged, onBack }: Props) {
  const [row, setRow] = useState<Proposal | null>(null);
  const [demo, setDemo] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [added, setAdded] = useState<Added[]>([]);
  const [refused, setRefused] = useState<Record<string, string>>({}); // the server's field errors, by change
  const [asking, setAsking] = useState<"reject" | "escalate" | "resolve" | null>(null);
  const [busy, setBusy] = useState(false);
  const [stage, setStage] = useState<string | null>(null);
  const [triage, setTriage] = useState<typeof import("./queue-triage") | null>(null);
  const [revert, setRevert] = useState<typeof import("./revert") | null>(null);
  // A chunk that cannot load (offline, or replaced by a deploy) leaves the section out.
  useEffect(() => void import("./queue-triage").then(setTriage, () => setTriage(null)), []);
  useEffect(() => void import("./revert").then(setRevert, () => setRevert(null)), []);
  const [coap, setCoap] = useState<typeof import("./queue-coapproval") | null>(null);

  // A demo row stands in only when the API cannot be reached at all (read's rule): an
  // error answer for this row is shown as that, never as someone else's record.
  const load = async (): Promise<Proposal | null> => {
    try {
      const r = await read<Proposal>("/api/sync-error-assist/proposals/" + encodeURIComponent(id),
        () => [...demoProposals(), ...demoAutoApplied()].find((p) => p.id === id) ?? demoProposals()[0]);
      setRow(r.data);
      setDemo(r.demo || listDemo);
      setFailed(null);
      return r.data;
    } catch (e) {
      setFailed(e);
      return null;
    }
  };
  useEffect(() => {
    clearError(); // an alert belongs to the row it was raised on
    void load();
  }, [id]);

  // An edit equal to the AI's value is no edit: the AI's original is what gets approved.
  const edit = (path: string, value: string, ai: string) => {
    const { [path]: _, ...rest } = edits;
    setEdits(value === ai ? rest : { ...rest, [path]: value });
    setRefused({});
  };
  const addChanges = (a: Added[]) => {
    setAdded(a);
    setRefused({});
  };
  const pending = row?.status === "pending";
  // Escalating hands a row on to an approver, who approves or rejects it from there.
  const escalated = row?.status === "escalated";
  const decidable = pending || (escalated && isApprover);
  const canApprove = !!row && mayApprove(row, isApprover);
  // Retry re-runs the sync from its source (issue 33); resolve closes with no write (issue 24).
  const retryable = !!row && ["pending", "retrying", "escalated", "approved"].includes(row.status);
  const resolvable = !!row && ["pending", "retrying", "escalated"].includes(row.status);
  const locked = busy || demo; // demo data never takes a write
  const ready = !!row?.proposal && row.diagnosis === "ready";
  // Values are typed by the field they are written to, from the target's metadata.
  const target = row ? writeTarget(row) : undefined;
  const fields = useFields(target?.system ?? "hosterp", target?.recordType, !!row && !demo);
  // A row that keeps an operator's edit (its write held for an ownership approval, or not
  // verified) sends that edit when approved without a change: the diff, its inputs and
  // the sentence above Approve start from it, not from the AI's values.
  const kept = !!row?.editKept && !!row.editedFix?.length && (pending || escalated);
  // Under two approvers, an edit waiting for its second approval is what Approve approves
  // and writes (it replaces a kept edit, which the service then leaves out): the diff is it.
  const round = pending || escalated ? row?.coApproval : undefined;
  const waiting = round?.fix?.length ? round.fix : undefined;
  // Its summary (who edited, who approved) is a chunk of its own, loaded for such rows only.
  useEffect(() => void (round && !coap && import("./queue-coapproval").then(setCoap, () => setCoap(null))), [!!round]);
  const base = row && waiting ? withFix(row, waiting) : row && kept ? withFix(row, row.editedFix ?? []) : row;
  const plan = base ? planWrite(base, edits, added, fields) : null;
  const errors = { ...plan?.errors, ...refused };
  // A flow's failed write whose target record its run did not know names none: there is
  // no record to write a fix to (the service refuses it, 409 target_record_unknown).
  const unknownTarget = target?.recordId === "";
  const writable = !!plan && plan.changes.length > 0 && Object.keys(errors).length === 0 && !unknownTarget;
  const editable = decidable && canApprove && !demo;
  // The editor of a waiting fix, or an approver who approved it, is not its next approver
  // (unless they change it, which starts a new round).
  const notMe = !plan?.edited && !!round?.you;
  const what = waiting ? "edit" : "fix";
  const label = !round || plan?.edited ? "Approve" : round.approvers.length ? `Approve and write this ${what}` : `Approve this ${what} (first of two)`;

  const act = async (what: "approve" | "reject" | "escalate" | "retry" | "resolve", text?: string, note?: string) => {
    if (!row) return;
    setBusy(true);
    setStage(STAGES[what] ?? null);
    try {
      let body: unknown = what === "retry" ? {} : what === "resolve" ? { reason: text, ...(note ? { note } : {}) } : { reason: text };
      // An edited fix is sent whole: what is sent is what the sentence above Approve said.
      if (what === "approve" && plan?.edited) body = { fix: plan.changes.map(({ path, after }) => ({ path, after })) };
      // Approving the waiting edit names it, and approving the row's own fix names none
      // (""): if another edit waits by now, nothing is recorded or written. fixKey names
      // the fix shown: one changed since (a kept edit, a re-diagnosis) is not written.
      else if (what === "approve") body = { coApproval: waiting && round?.key ? round.key : "", ...(row.fixKey ? { fixKey: row.fixKey } : {}) };
      const done = await write<Proposal | Accepted>("POST", `/api/sync-error-assist/proposals/${row.id}/${what}`, body);
      if (isAccepted(done)) {
        // 202: the fix is in the ERP and the reconcile completes the approval, a second
        // approver is needed, or the write's answer was lost and its outcome is settled
        // later. The answer says which; the row, read again, shows where it stands.
        announce(`${row.errorId}: ${done.message}`);
        const now = (await load()) ?? row;
        if (now.status === "pending" || now.status === "escalated") onChanged(now);
        else onDecided(now);
        return;
      }
      if (what === "retry") {
        const now = done as Proposal;
        announce(`Retried ${row.errorId}: ${retryOutcome(now)}`);
        setRow(now);
        if (now.status === "resolved") onDecided(now);
        else onChanged(now);
        return;
      }
      const verbs = { approve: "Approved", reject: "Rejected", escalate: "Escalated", resolve: "Resolved" } as const;
      announce(`${verbs[what]} ${row.errorId}`);
      onDecided(done);
    } catch (e) {
      const now = await load(); // someone else may have acted: show the row as it is now
      if (now) onChanged(now);
      if (what === "approve" && plan) setRefused(refusedFields(e, plan));
      showError(now ? explainConflict(e, now) : e);
    } finally {
      setBusy(false);
      setStage(null);
    }
  };

  // Reject and escalate write nothing to the ERP, so they can wait a few seconds for Undo:
  // the queue moves on at once, and the decision is sent when the time is up.
  const deferred = (what: "reject" | "escalate", text: string) => {
    if (!row) return;
    const decided: Proposal = { ...row, status: what === "reject" ? "rejected" : "escalated" };
    onDecided(decided);
    later(`${what === "reject" ? "Rejecting" : "Escalating"} ${row.errorId}`, () => void send(row, what, text), onUndone);
  };

  useKeys((e) => {
    if (locked || asking || !shortcutKey(e)) return;
    if (e.key === "t" && retryable) return void act("retry");
    if (e.key === "s" && resolvable) return setAsking("resolve");
    if (!decidable) return;
    if (e.key === "a" && canApprove && ready && writable && notMe) showError(new ApiError({ status: 403, title: "Needs another approver" }));
    if (e.key === "a" && canApprove && ready && writable && !notMe) void act("approve");
    if (e.key === "a" && canApprove && ready && !writable) showError(new ApiError({ status: 422, title: "Nothing to approve yet",
      detail: unknownTarget ? UNKNOWN_TARGET : Object.values(errors).join("; ") || "Add a field change, or reject, escalate or resolve it." }));
    if (e.key === "a" && !canApprove) showError(new ApiError({ status: 403, title: "Needs an approver",
      detail: (row?.approval?.reason ? row.approval.reason + ". " : "") + "Reject, escalate or resolve it, or ask an approver." }));
    if (e.key === "r") setAsking("reject");
    if (e.key === "e" && pending) setAsking("escalate");
  });

  const back = <button type="button" class="link back" onClick={onBack}>← Back to the queue</button>;
  if (failed !== null && !row) {
    return <section class="detail" aria-label="Sync error">{back}<PanelError what="This sync error" error={failed} onRetry={() => void load()} /></section>;
  }
  if (!row) return <section class="detail" aria-busy="true" aria-label="Loading sync error"><p class="note">Loading…</p></section>;
  const shown = base ?? row;
  const fix = shown.proposal?.fix ?? [];
  const err = row.error;
  const to = target ?? writeTarget(row);
  return (
    <section class="detail" aria-labelledby="detail-h">
      {back}
      <header>
        <h2 id="detail-h" class="mono">{row.errorId}</h2>
        <p>{row.recordType} / {row.recordId} {row.proposal && <Chip kind="class">{row.proposal.class}</Chip>}{" "}
          {row.proposal && <span>{Math.round(row.proposal.confidence * 100)}% confident</span>} <Chip kind={row.status}>{row.status}</Chip></p>
      </header>
      {/* The actions at the top, in one bar that stays in sight (sticky) with its error
          beside it (issue 35 §6, §8); where Approve writes is said where it is clicked. */}
      {decidable && unknownTarget && <p id="writes-line" class="writes warn">{UNKNOWN_TARGET}</p>}
      {decidable && plan && !unknownTarget && <WritesLine id="writes-line" plan={{ ...plan, errors }} to={to} />}
      {(decidable || retryable || resolvable) && (
        <div class="actions action-bar" role="group" aria-label="Actions">
          {decidable && canApprove && <button type="button" class="primary" disabled={locked || !ready || !writable || !!notMe} aria-keyshortcuts="a"
            aria-describedby={notMe ? "coapproval-why" : unknownTarget || plan && (plan.changes.length > 0 || Object.keys(errors).length > 0) ? "writes-line" : undefined}
            onClick={() => void act("approve")}>{label} <Key k="a" /></button>}
          {decidable && <button type="button" disabled={locked} aria-keyshortcuts="r" onClick={() => setAsking("reject")}>Reject <Key k="r" /></button>}
          {pending && <button type="button" disabled={locked} aria-keyshortcuts="e" onClick={() => setAsking("escalate")}>Escalate <Key k="e" /></button>}
          {retryable && <button type="button" disabled={locked} aria-keyshortcuts="t" onClick={() => void act("retry")}>Retry <Key k="t" /></button>}
          {resolvable && <button type="button" disabled={locked} aria-keyshortcuts="s" onClick={() => setAsking("resolve")}>Resolve <Key k="s" /></button>}
          <ActionError />
        </div>
      )}
      <Progress text={stage} />
      <h3 id="error-h">Error as received</h3>
      <p aria-labelledby="error-h" role="group"><code>{err.errorCode}</code> {err.message}</p>
      {row.proposal?.summary && <p>{row.proposal.summary}</p>}
      <dl class="record">
        {err.occurredAt && <><dt>Occurred</dt><dd><Ago at={err.occurredAt} /></dd></>}
        <dt>Received</dt><dd><Ago at={row.claimedAt} /></dd>
        {err.integration && <><dt>Integration</dt><dd>{err.integration}</dd></>}
        {(err.externalSystem || err.direction) && <><dt>Systems</dt><dd>{syncDirection(err.direction, err.externalSystem)}</dd></>}
        {row.proposal?.retryable !== undefined && <><dt>Retryable</dt><dd>{row.proposal.retryable ? "yes — running the sync again can succeed" : "no — something must change first"}</dd></>}
      </dl>
      {err.payload && Object.keys(err.payload).length > 0 && (
        <details class="payload"><summary>Payload that was sent (masked)</summary><pre>{JSON.stringify(err.payload, null, 2)}</pre></details>
      )}
      <Attempts row={row} />
      {row.diagnosisError && <p class="warn">Diagnosis failed: {row.diagnosisError}</p>}
      {row.applyError && <p class="warn" role="note">Last write-back failed: {row.applyError}</p>}
      {round && coap && <coap.CoApprovalSummary round={round} edited={!!plan?.edited} canApprove={decidable && canApprove} />}
      <h3>{waiting ? "Proposed fix, as edited for two approvers" : kept ? "Proposed fix, as the operator edited it" : "Proposed fix"}</h3>
      {fix.length === 0 && <p class="empty">{ready ? "No field change proposed." : "Diagnosis " + row.diagnosis + "."}</p>}
      {fix.length > 0 && <DiffTable row={shown} fields={fields} editable={editable} edits={edits} errors={errors} onEdit={edit}
        resetLabel={waiting ? "Reset to the edit awaiting approval" : kept ? "Reset to the operator's edit" : undefined} />}
      {fix.length === 0 && ready && editable && (
        <AddChanges row={row} fields={fields} vendor={to.vendor} added={added} errors={errors} onChange={addChanges} />
      )}
      {revert && <revert.AutoApplied row={row} canRevert={isApprover} demo={demo} onReverted={() => void load().then((now) => now && onChanged(now))} />}
      {/* editedFix comes with the write that carries it (applying) or carried it, and on a
          row that keeps it (editKept): then the diff above is that edit, what Approve sends.
          An edit whose write failed is off the row, named in the history's approve entry,
          and the diff above, the AI's, is what Approve writes unless edited again. */}
      {row.editedFix && row.editedFix.length > 0 && <p class="note">{editNote(row, kept)}: {row.editedFix.map((c) => `${c.path} = ${JSON.stringify(c.after)}`).join(", ")}
        {kept && row.editKept === "held" && ". Once an admin approves the held write under Governance, Approve writes this edit as it stands (shown above); change a value to approve another fix instead."}
        {kept && row.editKept === "unverified" && ". Its write may have reached the record: check the record. Approve sends this edit again as it stands (shown above); change a value to send another fix instead."}</p>}
      <h3>Why</h3>
      <p>{row.proposal?.rationale ?? "—"}</p>
      {!demo && <AIActivity id={row.id} />}
      {triage && !demo && <triage.Triage row={row} locked={locked} onChanged={(p) => { setRow(p); onChanged(p); }} />}
      <h3>History</h3>
      <ol class="history">
        {/* People are named as the audit panel names them (masked, pseudonymised); the viewer's own entries say "you". */}
        {row.history.map((h) => <li><Ago at={h.at} /> {h.you ? "you" : actorName(h.actor)} {h.action}{h.note ? ` — ${h.note}` : ""}</li>)}
      </ol>
      <Facts row={row} />
      {pending && !canApprove && ready && fix.length > 0 && <p class="note">Approving this fix needs an approver. You can reject, escalate or resolve it.</p>}
      {escalated && !isApprover && <p class="note">Escalated: an approver approves or rejects it. You can still retry or resolve it.</p>}
      {asking === "resolve" && <ResolveDialog title="Resolve sync error" onClose={() => setAsking(null)}
        onConfirm={(reason, note) => { setAsking(null); void act("resolve", reason, note); }} />}
      {asking === "reject" && <AskDialog title="Reject sync error" label="Reason" confirm="Reject" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); deferred("reject", t); }} />}
      {asking === "escalate" && <AskDialog title="Escalate sync error" label="Note" confirm="Escalate" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); deferred("escalate", t); }} />}
    </section>
  );
}

/** UNKNOWN_TARGET says why a flow row whose target record is not known cannot be approved. */
const UNKNOWN_TARGET = "Approve cannot write this fix: the flow's run failed before it knew which record of the target system to write " +
  "(its match could not pick the record, or the create was refused). Retry runs the flow again, which finds the record through its match; " +
  "link the counterpart under Flows › Cross-reference first if the match cannot pick it.";

/** withFix is row with fix in place of the AI's: what its diff and Approve start from. */
function withFix(row: Proposal, fix: NonNullable<Proposal["editedFix"]>): Proposal {
  return row.proposal ? { ...row, proposal: { ...row.proposal, fix } } : row;
}

/** editNote says what the row's operator's edit is to its write. */
function editNote(row: Proposal, kept: boolean): string {
  if (kept) return row.editKept === "held" ? "Held for an ownership approval, with an operator's edit" : "Not verified, with an operator's edit";
  return row.status === "applying" ? "Being written with an operator's edit" : "Approved with an operator's edit";
}

/** send is a deferred decision's request, made after the detail may have closed: it reports
 *  by toast or alert, not by the detail's state. */
async function send(row: Proposal, what: "reject" | "escalate", reason: string) {
  try {
    await write<Proposal>("POST", `/api/sync-error-assist/proposals/${row.id}/${what}`, { reason });
    announce(`${what === "reject" ? "Rejected" : "Escalated"} ${row.errorId}`);
  } catch (e) {
    showError(e instanceof ApiError ? new ApiError({ ...e.problem, title: `${row.errorId} was not ${what === "reject" ? "rejected" : "escalated"}: ${e.problem.title}` }) : e);
  }
}

/** refusedFields puts the server's field errors of an approve (fix[i].path, fix[i].after)
 *  beside the inputs of the changes they name. */
function refusedFields(e: unknown, plan: { changes: { key: string; path: string }[] }): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(e instanceof ApiError)) return out;
  for (const fe of e.problem.errors ?? []) {
    const m = /^fix\[(\d+)\]/.exec(fe.field);
    const c = m ? plan.changes[Number(m[1])] : undefined;
    // A refused name is said at the field's name, a refused value at the value.
    if (c) out[c.key + (fe.field.endsWith(".path") ? "/path" : "")] = fe.message.startsWith(c.path + " ") ? fe.message : `${c.path}: ${fe.message}`;
  }
  return out;
}

/** explainConflict says who won a 409, from the row's newest history entry. */
function explainConflict(e: unknown, now: Proposal): unknown {
  if (e instanceof ApiError && e.status === 409 && e.problem.code === "co_approval_changed") {
    // Another edit waits now (or none): the detail, read again, shows it; nothing was written.
    return new ApiError({ ...e.problem, title: "The fix changed" });
  }
  if (e instanceof ApiError && e.status === 409 && e.problem.code === "fix_changed") {
    // The fix is not the one shown (a kept edit, a re-diagnosis): the detail, read again, shows it.
    return new ApiError({ ...e.problem, title: "The fix changed", detail: "The fix changed since it was shown, so nothing was written. It is shown again as it is now: review it before approving." });
  }
  if (e instanceof ApiError && e.status === 409) {
    const last = now.history[now.history.length - 1];
    const at = last ? new Date(last.at).toLocaleTimeString() : "";
    // The winner may be the viewer in another tab: say so rather than blame "someone else".
    if (last?.you) {
      return new ApiError({ ...e.problem, title: "Already done", detail: `${e.problem.detail ?? e.problem.title} You ${last.action} it at ${at}, in another tab or window.` });
    }
    const who = last ? ` ${actorName(last.actor)} ${last.action} it at ${at}.` : "";
    return new ApiError({ ...e.problem, title: "Someone else acted first", detail: (e.problem.detail ?? e.problem.title) + who });
  }
  return e;
}

/** syncDirection says which way the failed sync went, in words. */
function syncDirection(direction?: string, system?: string): string {
  const other = system || "the other system";
  if (direction === "inbound") return `from ${other} into the host ERP`;
  if (direction === "outbound") return `from the host ERP to ${other}`;
  return direction ? `${direction}, ${other}` : other;
}

/** AIActivity is the reasoning trace and cost: optional reads that a role (an embedded
 *  operator) may not be allowed; then the section is simply not there. */
function AIActivity({ id }: { id: string }) {
  const [traces, setTraces] = useState<Trace[] | null>(null);
  const [costs, setCosts] = useState<CostList | null>(null);
  useEffect(() => {
    readOptional<List<Trace>>("/api/ai/traces?claimId=" + id).then((r) => setTraces(r?.items ?? null), () => setTraces(null));
    readOptional<CostList>("/api/ai/costs?claimId=" + id).then(setCosts, () => setCosts(null));
  }, [id]);
  if (!traces && !costs) return null;
  return (
    <details class="trace">
      <summary>Reasoning trace and inference cost {costs && <span>(${costs.totalUsd.toFixed(4)})</span>}</summary>
      {costs && costs.items.length > 0 && (
        <table class="grid">
          <caption>Cost of each inference</caption>
          <thead><tr><th scope="col">Inference</th><th scope="col">Operation</th><th scope="col">Model</th><th scope="col">USD</th></tr></thead>
          <tbody>{costs.items.map((c) => <tr><td class="mono">{c.inferenceId}</td><td>{c.operation}</td><td>{c.model}</td><td class="num">{c.costUsd.toFixed(6)}</td></tr>)}</tbody>
        </table>
      )}
      {traces?.map((t) => <pre class="mono">{JSON.stringify({ inference: t.inferenceId, provider: t.provider, model: t.model, prompt: t.prompt, response: t.response, dlpFindings: t.dlpFindings }, null, 2)}</pre>)}
    </details>
  );
}

/** An approve's 202 answers: written and completed later, waiting for a second approver, or outcome unknown. */
type Accepted = ApproveWritten | CoApprovalPending | ApproveOutcomeUnknown;

/** isAccepted tells an approve's 202 answer from a row: only a row names its error. */
function isAccepted(d: Proposal | Accepted): d is Accepted {
  return !("errorId" in d) && typeof (d as Accepted).message === "string";
}
