// Auto-resolved: the fixes enforced approval-policy rules applied (actor policy:<rule>),
// listed apart from people's decisions as the issue asks, each with the rule and what it
// wrote, and Revert for approvers within 24 hours. The Shadow tab shows what shadow rules
// would have applied and how that compared with what people then decided.
import { useEffect, useState } from "preact/hooks";
import { ApiError, read, write } from "../api/client";
import { demoAutomation } from "../api/demo-assist";
import type { Automation, List } from "../api/types";
import { navigate } from "../router";
import { actorName, Ago, Chip, ConfirmDialog, PanelError, show, announce } from "../ui";

const REVERT_MS = 24 * 3600_000;
type Mode = "enforce" | "shadow";

const OUTCOME_WORDS: Record<string, string> = {
  applied: "applied", reverted: "reverted", failed: "not applied: failed", capped: "not applied: per-minute cap reached",
  auto_apply_off: "not applied: auto-apply is off", same: "people approved the same fix", edited: "people edited the fix",
  rejected: "people rejected the fix", "": "waiting for people's decision",
};

export function AutomationPanel({ canRevert }: { canRevert: boolean }) {
  const [mode, setMode] = useState<Mode>(new URLSearchParams(location.search).get("mode") === "shadow" ? "shadow" : "enforce");
  const [rows, setRows] = useState<Automation[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [demo, setDemo] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  const [reverting, setReverting] = useState<Automation | null>(null);
  const [results, setResults] = useState<Record<string, { ok: boolean; text: string }>>({});

  const load = async (cursor: string | null) => {
    const q = new URLSearchParams({ mode, limit: "50" });
    if (cursor) q.set("cursor", cursor);
    try {
      const r = await read<List<Automation>>("/api/sync-error-assist/automation?" + q, demoAutomation);
      setRows((prev) => (cursor && prev ? [...prev, ...r.data.items] : r.data.items));
      setNext(r.data.nextCursor);
      setDemo(r.demo);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  useEffect(() => {
    setRows(null);
    void load(null);
  }, [mode]);
  const pick = (m: Mode) => {
    setMode(m);
    navigate("/auto-resolved" + (m === "shadow" ? "?mode=shadow" : ""), true);
  };

  const revert = async (a: Automation, reason: string) => {
    setReverting(null);
    try {
      await write("POST", `/api/sync-error-assist/proposals/${a.claimId}/revert`, reason ? { reason } : {});
      setRows((rs) => rs && rs.map((x) => (x.claimId === a.claimId ? { ...x, outcome: "reverted" } : x)));
      setResults((m) => ({ ...m, [a.claimId]: { ok: true, text: "Reverted: the record holds its values from before the fix again." } }));
      announce(`Reverted ${a.claimId}: the record is restored`);
    } catch (e) {
      const p = e instanceof ApiError ? e.problem : null;
      const text = p ? `Not reverted — ${p.title}${p.detail ? ": " + p.detail : ""}` : "Not reverted — " + String(e);
      setResults((m) => ({ ...m, [a.claimId]: { ok: false, text } }));
      announce(`${a.claimId} was not reverted`);
    }
  };

  return (
    <section aria-labelledby="auto-h">
      <div class="toolbar"><h1 id="auto-h">Auto-resolved</h1>
        <span class="note">fixes the approval policy's auto rules applied, without a person</span></div>
      <div role="tablist" aria-label="Rule mode">
        <button type="button" role="tab" aria-selected={mode === "enforce"} onClick={() => pick("enforce")}>Applied by rules</button>
        <button type="button" role="tab" aria-selected={mode === "shadow"} onClick={() => pick("shadow")}>Shadow (would have applied)</button>
      </div>
      {failed !== null && <PanelError what="The auto-resolved list" error={failed} onRetry={() => void load(null)} />}
      {rows === null && failed === null && <p aria-busy="true">Loading…</p>}
      {rows && rows.length === 0 && (
        <p class="empty">{mode === "enforce" ? "No rule applied a fix yet. Rules apply only in enforce mode, with sync_error_assist.auto_apply on."
          : "No shadow rule matched a fix yet."}</p>
      )}
      {rows && rows.length > 0 && (
        <table class="grid plain auto-list">
          <thead><tr><th scope="col">Sync error</th><th scope="col">Rule</th><th scope="col">{mode === "enforce" ? "Written" : "Would have written"}</th>
            <th scope="col">When</th><th scope="col">Outcome</th>{mode === "enforce" && <th scope="col"><span class="sr-live">Actions</span></th>}</tr></thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.claimId}>
                <td><a class="mono" href={"/queue/" + a.claimId} onClick={(e) => { e.preventDefault(); navigate("/queue/" + a.claimId); }}>{a.claimId}</a>
                  {" "}<Chip kind="class">{a.class}</Chip></td>
                <td><code>{a.ruleId}</code><div class="note">{actorName("policy:" + a.ruleId)}</div></td>
                <td><ul class="fix-list">{a.fix.map((f) => <li><code>{f.path}</code>: <del>{show(f.before)}</del> → <ins>{show(f.after)}</ins></li>)}</ul></td>
                <td><Ago at={a.at} /></td>
                <td><Chip kind={a.outcome || "waiting"}>{a.outcome || "undecided"}</Chip>
                  <div class="note">{OUTCOME_WORDS[a.outcome] ?? a.outcome}{a.detail ? ` (${a.detail})` : ""}
                    {a.decidedBy ? <> — {actorName(a.decidedBy)}{a.decidedAt ? <> <Ago at={a.decidedAt} /></> : null}</> : null}</div></td>
                {mode === "enforce" && <td class="row-actions">
                  <RevertCell a={a} canRevert={canRevert} demo={demo} onRevert={() => setReverting(a)} />
                  {results[a.claimId] && <p class={results[a.claimId].ok ? "note" : "warn"} role="status">{results[a.claimId].text}</p>}
                </td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
      {reverting && <RevertDialog a={reverting} onClose={() => setReverting(null)} onConfirm={(reason) => void revert(reverting, reason)} />}
    </section>
  );
}

function RevertCell({ a, canRevert, demo, onRevert }: { a: Automation; canRevert: boolean; demo: boolean; onRevert: () => void }) {
  if (a.outcome !== "applied") return null;
  if (Date.now() - new Date(a.at).getTime() > REVERT_MS) return <span class="note">Revert window (24 h) closed</span>;
  if (!canRevert) return <span class="note">Revert needs an approver</span>;
  return <button type="button" disabled={demo} onClick={onRevert}>Revert<span class="sr-live"> {a.claimId}</span></button>;
}

function RevertDialog({ a, onConfirm, onClose }: { a: Automation; onConfirm: (reason: string) => void; onClose: () => void }) {
  const [reason, setReason] = useState("");
  return (
    <ConfirmDialog title={`Revert the fix on ${a.claimId}?`} confirm="Revert" onClose={onClose} onConfirm={() => onConfirm(reason.trim())}>
      <p>The values before the fix are written back through the guarded write, only if the record still holds what rule{" "}
        <code>{a.ruleId}</code> wrote; the row is marked reverted and the fix is learned as rejected, so it is not proposed again.</p>
      <ul class="fix-list">{a.fix.map((f) => <li><code>{f.path}</code>: {show(f.after)} → {show(f.before)}</li>)}</ul>
      <label for="revert-reason">Reason (optional)</label>
      <textarea id="revert-reason" maxLength={1000} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
    </ConfirmDialog>
  );
}
