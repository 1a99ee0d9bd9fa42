// Auto-resolved: the fixes enforced approval-policy rules applied (actor policy:<rule>),
// listed apart from people's decisions as the issue asks, each named by its error and
// record with the rule and what it wrote, and Revert for approvers within 24 hours. What a
// rule was kept from writing (auto_apply off, the cap, a failure) is not listed there. The Shadow tab shows what shadow rules
// would have applied and how that compared with what people then decided.
import { useEffect, useState } from "preact/hooks";
import { read, readQuiet } from "../api/client";
import { demoAutomation } from "../api/demo-assist";
import type { Automation, List, Proposal } from "../api/types";
import { navigate } from "../router";
import { actorName, Ago, Chip, PanelError, show } from "../ui";
import { revertEntry, RevertAction, ruleApplied } from "./revert";
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

  const load = async (cursor: string | null) => {
    const q = new URLSearchParams({ mode, limit: "50", ...(mode === "enforce" ? { outcome: "applied" } : {}) });
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

  const reverted = (id: string) => setRows((rs) => rs && rs.map((x) => (x.claimId === id ? { ...x, outcome: "reverted" } : x)));
  // A refused revert often means someone acted first: the row shows how the fix stands now,
  // read from the sync error (the list keeps its place; nothing else is read again).
  const refused = async (id: string) => {
    const row = await readQuiet<Proposal>("/api/sync-error-assist/proposals/" + encodeURIComponent(id));
    const outcome = row && ruleApplied(row)?.outcome;
    const undone = row ? revertEntry(row) : undefined;
    if (outcome !== "applied" && outcome !== "reverted") return;
    setRows((rs) => rs && rs.map((x) => (x.claimId !== id ? x
      : { ...x, outcome, ...(undone ? { decidedBy: undone.actor, decidedAt: undone.at } : {}) })));
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
                <td><a class="mono" href={"/queue/" + a.claimId} onClick={(e) => { e.preventDefault(); navigate("/queue/" + a.claimId); }}>{a.errorId || a.claimId}</a>
                  {" "}<Chip kind="class">{a.class}</Chip>
                  {a.recordId && <div class="note">{a.recordType} / {a.recordId}</div>}</td>
                <td><code>{a.ruleId}</code><div class="note">{actorName("policy:" + a.ruleId)}</div></td>
                <td><ul class="fix-list">{a.fix.map((f) => <li><code>{f.path}</code>: <del>{show(f.before)}</del> → <ins>{show(f.after)}</ins></li>)}</ul></td>
                <td><Ago at={a.at} /></td>
                <td><Chip kind={a.outcome || "waiting"}>{a.outcome || "undecided"}</Chip>
                  <div class="note">{OUTCOME_WORDS[a.outcome] ?? a.outcome}{a.detail ? ` (${a.detail})` : ""}
                    {a.decidedBy ? <> — {actorName(a.decidedBy)}{a.decidedAt ? <> <Ago at={a.decidedAt} /></> : null}</> : null}</div></td>
                {mode === "enforce" && <td class="row-actions">
                  <RevertAction item={a} canRevert={canRevert} demo={demo} onReverted={() => reverted(a.claimId)}
                    onRefused={() => void refused(a.claimId)} />
                </td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
    </section>
  );
}
