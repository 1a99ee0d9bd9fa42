// One sync error: what failed, the proposed fix as an editable diff, why, its history,
// and the three decisions.
import { useEffect, useState } from "preact/hooks";
import { ApiError, read, write } from "../api/client";
import { demoProposals } from "../api/demo";
import type { ApproveWritten, CostList, List, Proposal, Trace } from "../api/types";
import { announce, AskDialog, Chip, Key, show, showError } from "../ui";

interface Props {
  id: string;
  demo: boolean;
  canApprove: boolean;
  onDecided: (row: Proposal) => void;
}

export function Detail({ id, demo: listDemo, canApprove, onDecided }: Props) {
  const [row, setRow] = useState<Proposal | null>(null);
  const [demo, setDemo] = useState(false);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [asking, setAsking] = useState<"reject" | "escalate" | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (): Promise<Proposal> => {
    const r = await read<Proposal>("/api/sync-error-assist/proposals/" + encodeURIComponent(id),
      () => demoProposals().find((p) => p.id === id) ?? demoProposals()[0]);
    setRow(r.data);
    setDemo(r.demo || listDemo);
    return r.data;
  };
  useEffect(() => {
    void load();
  }, [id]);

  // An edit equal to the AI's value is no edit: the AI's original is what gets approved.
  const edit = (path: string, value: string, ai: string) => {
    const { [path]: _, ...rest } = edits;
    setEdits(value === ai ? rest : { ...rest, [path]: value });
  };
  const pending = row?.status === "pending";
  const locked = busy || demo; // demo data never takes a write
  const ready = !!row?.proposal && row.diagnosis === "ready";

  const act = async (what: "approve" | "reject" | "escalate", text?: string) => {
    if (!row) return;
    setBusy(true);
    try {
      let body: unknown = { reason: text };
      if (what === "approve") {
        const fix = Object.entries(edits).map(([path, after]) => ({ path, after: parseValue(after) }));
        body = fix.length ? { fix } : {};
      }
      const done = await write<Proposal | ApproveWritten>("POST", `/api/sync-error-assist/proposals/${row.id}/${what}`, body);
      if (isWritten(done)) {
        // 202: the fix is in the ERP and the approval is completed by the reconcile.
        announce(`${row.errorId}: ${done.message}`);
        onDecided(await load());
        return;
      }
      announce(`${what === "approve" ? "Approved" : what === "reject" ? "Rejected" : "Escalated"} ${row.errorId}`);
      onDecided(done);
    } catch (e) {
      const now = await load(); // someone else may have acted: show the row as it is now
      showError(explainConflict(e, now));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!pending || locked || asking || e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
      if (e.key === "a" && canApprove && ready) void act("approve");
      if (e.key === "r") setAsking("reject");
      if (e.key === "e") setAsking("escalate");
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  });

  if (!row) return <section class="detail" aria-busy="true" aria-label="Loading sync error" />;
  const fix = row.proposal?.fix ?? [];
  return (
    <section class="detail" aria-labelledby="detail-h">
      <header>
        <h2 id="detail-h" class="mono">{row.errorId}</h2>
        <p>{row.recordType} / {row.recordId} {row.proposal && <Chip kind="class">{row.proposal.class}</Chip>}{" "}
          {row.proposal && <span>{Math.round(row.proposal.confidence * 100)}% confident</span>} <Chip kind={row.status}>{row.status}</Chip></p>
      </header>
      <h3>What failed</h3>
      <p><code>{row.error.errorCode}</code> {row.error.message}</p>
      {row.diagnosisError && <p class="warn">Diagnosis failed: {row.diagnosisError}</p>}
      {row.applyError && <p class="warn">Last write-back failed: {row.applyError}</p>}
      <h3>Proposed fix</h3>
      {fix.length === 0 ? <p class="empty">{ready ? "No field change proposed." : "Diagnosis " + row.diagnosis + "."}</p> : (
        <table class="diff">
          <thead><tr><th scope="col">Field</th><th scope="col">Current</th><th scope="col">Proposed</th></tr></thead>
          <tbody>
            {fix.map((c) => {
              const edited = edits[c.path] !== undefined;
              return (
                <tr key={c.path}>
                  <th scope="row" class="mono">{c.path}</th>
                  <td><del>{show(c.before)}</del></td>
                  <td class={edited ? "edited" : ""}>
                    <input aria-label={"Proposed value for " + c.path} disabled={!pending || !canApprove || demo}
                      value={edited ? edits[c.path] : show(c.after)}
                      onInput={(e) => edit(c.path, (e.target as HTMLInputElement).value, show(c.after))} />
                    {edited && <>
                      <span class="chip edited">edited</span>
                      <button type="button" class="link" onClick={() => edit(c.path, show(c.after), show(c.after))}>Reset to AI value</button>
                    </>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {row.editedFix && row.editedFix.length > 0 && <p class="note">Approved with an operator's edit: {row.editedFix.map((c) => `${c.path} → ${show(c.after)}`).join(", ")}</p>}
      <h3>Why</h3>
      <p>{row.proposal?.rationale ?? "—"}</p>
      {canApprove && !demo && <AIActivity id={row.id} />}
      <h3>History</h3>
      <ol class="history">
        {row.history.map((h) => <li><time dateTime={h.at}>{new Date(h.at).toLocaleString()}</time> {h.actor} {h.action}{h.note ? ` — ${h.note}` : ""}</li>)}
      </ol>
      {pending && (
        <div class="actions">
          {canApprove && <button type="button" class="primary" disabled={locked || !ready} aria-keyshortcuts="a" onClick={() => void act("approve")}>Approve <Key k="a" /></button>}
          <button type="button" disabled={locked} aria-keyshortcuts="r" onClick={() => setAsking("reject")}>Reject <Key k="r" /></button>
          <button type="button" disabled={locked} aria-keyshortcuts="e" onClick={() => setAsking("escalate")}>Escalate <Key k="e" /></button>
        </div>
      )}
      {asking === "reject" && <AskDialog title="Reject sync error" label="Reason" confirm="Reject" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); void act("reject", t); }} />}
      {asking === "escalate" && <AskDialog title="Escalate sync error" label="Note" confirm="Escalate" onClose={() => setAsking(null)} onConfirm={(t) => { setAsking(null); void act("escalate", t); }} />}
    </section>
  );
}

/** parseValue keeps numbers and booleans typed; anything else is the string typed. */
function parseValue(s: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  if (s === "true" || s === "false") return s === "true";
  return s;
}

/** explainConflict says who won a 409, from the row's newest history entry. */
function explainConflict(e: unknown, now: Proposal): unknown {
  if (e instanceof ApiError && e.status === 409) {
    const last = now.history[now.history.length - 1];
    const who = last ? ` ${last.actor} ${last.action} it at ${new Date(last.at).toLocaleTimeString()}.` : "";
    return new ApiError({ ...e.problem, title: "Someone else acted first", detail: (e.problem.detail ?? e.problem.title) + who });
  }
  return e;
}

function AIActivity({ id }: { id: string }) {
  const [traces, setTraces] = useState<Trace[] | null>(null);
  const [costs, setCosts] = useState<CostList | null>(null);
  useEffect(() => {
    void read<List<Trace>>("/api/ai/traces?claimId=" + id, () => ({ items: [], nextCursor: null })).then((r) => setTraces(r.data.items));
    void read<CostList>("/api/ai/costs?claimId=" + id, () => ({ items: [], nextCursor: null, totalUsd: 0 })).then((r) => setCosts(r.data));
  }, [id]);
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

/** isWritten tells an approve's 202 (the fix is in the ERP, the approval is completed later) from a row. */
function isWritten(d: Proposal | ApproveWritten): d is ApproveWritten {
  return (d as ApproveWritten).applied === true;
}
