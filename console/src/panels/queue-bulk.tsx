// Bulk work on the rows an operator picked, or on every row matching the filter ("Select
// all N matching"): each item is still leased, guarded and audited on the server, which
// acts on a filter 100 rows a request (and at most 1000 in all), resumed by its cursor.
// Approve is offered to everyone: the approval policy judges each item, and the ones the
// caller may not approve come back refused. The confirmation shows the fixes to be
// written; the outcome stays in the panel, failures grouped by cause.
import { useEffect, useRef, useState } from "preact/hooks";
import { write } from "../api/client";
import type { BulkDecisionResult, BulkItemResult, ProposalSummary } from "../api/types";
import { AskDialog, Chip, ConfirmDialog, plural, Progress, show, showError } from "../ui";
import { BulkSummary, CHANGED, EMPTY_RESULT, mergeResults, type BulkResult } from "./bulk-summary";
import { ResolveDialog } from "./queue-more";

type Action = "approve" | "reject" | "retry" | "resolve" | "assign" | "tag";
type Preview = NonNullable<BulkDecisionResult["preview"]>;
const BULK = "/api/sync-error-assist/proposals/bulk";
const DONE: Record<Action, string> = { approve: "Approved", reject: "Rejected", retry: "Retried", resolve: "Resolved", assign: "Assigned", tag: "Tagged" };
const WORKING: Record<Action, string> = { approve: "Approving", reject: "Rejecting", retry: "Retrying", resolve: "Resolving", assign: "Assigning", tag: "Tagging" };
const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const USER = /^[A-Za-z0-9._@:+|-]{1,128}$/;

export function BulkBar(props: {
  picked: ProposalSummary[]; canApprove: boolean; demo: boolean; onClear: () => void; onDone: () => void;
  /** filter is the listing's query; allShown says every loaded row is picked; onSelect picks rows by id. */
  filter?: string; allShown?: boolean; onSelect?: (ids: string[]) => void;
}) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // Every row matching the filter (a dry run's count), once every loaded row is picked.
  const [matching, setMatching] = useState<Preview | null>(null);
  const [all, setAll] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  // The rows' error ids are kept with the result: the decided rows leave the list (and the
  // selection) when it refreshes, and the outcomes must still name them.
  const [result, setResult] = useState<{ action: Action; r: BulkResult; total: number; names: Record<string, string> } | null>(null);
  const rows = props.picked;
  const scope = all && matching ? matching.total : rows.length;
  const asked = useRef(0);

  // The age filter's since moves with the clock: the count is asked again when the rest of
  // the filter changes, not on every render.
  const filterKey = (() => {
    const q = new URLSearchParams(props.filter ?? "");
    q.delete("since");
    q.delete("cursor");
    return q.toString();
  })();
  useEffect(() => {
    setAll(false);
    setMatching(null);
    if (!props.allShown || !props.filter || props.demo) return;
    const n = ++asked.current;
    write<BulkResult>("POST", BULK, { action: "approve", filter: props.filter, dryRun: true })
      .then((r) => n === asked.current && setMatching(r.preview ?? null), () => {});
  }, [props.allShown, filterKey, props.demo]);

  const target = (action: Action) => (all && props.filter ? { action, filter: props.filter } : { action, ids: rows.map((p) => p.id) });
  const ask = (action: Action) => {
    setAsking(action);
    setPreview(null);
    if (action !== "approve") return;
    const n = ++asked.current;
    write<BulkResult>("POST", BULK, { ...target(action), dryRun: true }).then((r) => n === asked.current && setPreview(r.preview ?? null), () => {});
  };

  const decide = async (action: Action, extra: Record<string, unknown>) => {
    const total = scope;
    const names = Object.fromEntries(rows.map((p) => [p.id, p.errorId]));
    setBusy(`${WORKING[action]} ${plural(total, "sync error")}, one at a time…`);
    let acc = EMPTY_RESULT;
    // A run by filter sends the count's cursor (approve) and follows each answer's cursor.
    let cursor: string | null = all && action === "approve" ? preview?.cursor ?? null : null;
    try {
      for (;;) {
        const r = await write<BulkResult>("POST", BULK, { ...target(action), ...extra, ...(all && cursor ? { cursor } : {}) });
        acc = mergeResults(acc, r);
        for (const i of r.results) if (i.errorId) names[i.id] = i.errorId;
        cursor = r.nextCursor;
        if (!all || !cursor) break;
        setBusy(`${WORKING[action]} ${plural(total, "sync error")}: ${acc.results.length} done…`);
      }
    } catch (e) {
      showError(e);
    } finally {
      setBusy(null);
      if (acc.results.length) {
        setResult({ action, r: acc, total: Math.max(total, acc.results.length), names });
        // Done with, the selection goes now, not when the list's refresh lands: a late
        // refresh would take the picks the operator made meanwhile (the failed ones).
        setAll(false);
        props.onClear();
        props.onDone();
      }
    }
  };
  const close = () => setAsking(null);
  const members = all ? null : <ul class="members">{rows.map((p) => <li><span class="mono">{p.errorId}</span> — {p.recordType} / {p.recordId}</li>)}</ul>;
  const off = !!busy || props.demo;
  const words = plural(scope, "sync error");
  return (
    <div class="bulk" role="region" aria-label="Selected sync errors">
      {rows.length > 0 && (
        <div class="toolbar">
          <strong>{all && matching ? (matching.truncated ? `The newest ${matching.total} matching selected (more match; the rest stay for another run)` : `All ${matching.total} matching selected`) : `${rows.length} selected`}</strong>
          {props.allShown && matching && matching.total > rows.length && !all && (
            <button type="button" class="link" onClick={() => setAll(true)}>Select all {matching.truncated ? `${matching.total}+` : matching.total} matching</button>
          )}
          <button type="button" class="primary" disabled={off} onClick={() => ask("approve")}>Approve selected…</button>
          <button type="button" disabled={off} onClick={() => ask("reject")}>Reject selected…</button>
          <button type="button" disabled={off} onClick={() => ask("retry")}>Retry selected…</button>
          <button type="button" disabled={off} onClick={() => ask("resolve")}>Resolve selected…</button>
          <button type="button" disabled={off} onClick={() => ask("assign")}>Assign…</button>
          <button type="button" disabled={off} onClick={() => ask("tag")}>Tag…</button>
          <button type="button" class="link" onClick={() => { setAll(false); props.onClear(); }}>Clear selection</button>
        </div>
      )}
      <Progress text={busy} />
      {asking === "approve" && (
        <ConfirmDialog title={`Approve ${words}?`} confirm={`Approve ${scope}`} onClose={close} ready={!!preview && preview.fixes.length > 0}
          onConfirm={() => { close(); void decide("approve", { fixKeys: preview?.fixes.map((f) => f.key) ?? [] }); }}>
          <p>Each fix listed is written to its records, one guarded write each; a row whose fix is not listed here, or changes
            before its write, is left for you to review. The approval policy judges each item:
            {props.canApprove ? " " : " as an operator you approve the fixes it gives operators; "}the ones you may not approve, and rows without a fix, are refused and reported.</p>
          <Fixes preview={preview} />
          {members}
        </ConfirmDialog>
      )}
      {asking === "reject" && <AskDialog title={`Reject ${words}`} label="Reason" confirm="Reject"
        onClose={close} onConfirm={(t) => { close(); void decide("reject", { reason: t }); }} />}
      {asking === "retry" && (
        <ConfirmDialog title={`Retry ${words}?`} confirm={`Retry ${scope}`}
          onClose={close} onConfirm={() => { close(); void decide("retry", {}); }}>
          <p>Each sync runs again from its source: the host ERP re-runs its record's sync (with an approved fix written first),
            a flow reads its source again. Nothing stored is sent again. One that lands is resolved; one that fails for now stays
            retrying on the schedule; one that cannot succeed as things stand returns to pending, its error as received, with the
            attempt listed under it.</p>
          {members}
        </ConfirmDialog>
      )}
      {asking === "resolve" && (
        <ResolveDialog title={`Resolve ${words}`} onClose={close}
          onConfirm={(reason, note) => { close(); void decide("resolve", { reason, ...(note ? { note } : {}) }); }}>
          <p>All {plural(scope, "selected error")} are closed with the reason below; none is sent again.</p>
          {members}
        </ResolveDialog>
      )}
      {asking === "assign" && <InputDialog title={`Assign ${words}`} label="Assign to (user id)" pattern={USER} confirm="Assign"
        hint="Each row is taken from whoever has it now; a row someone changes meanwhile is reported, not overwritten."
        onClose={close} onConfirm={(to) => { close(); void decide("assign", { assign: { to } }); }} />}
      {asking === "tag" && <InputDialog title={`Tag ${words}`} label="Tag to add" pattern={TAG} confirm="Tag"
        hint="lower-case letters, digits, - or _ (up to 32); a row holds at most 10 tags"
        onClose={close} onConfirm={(tag) => { close(); void decide("tag", { tag: { add: tag } }); }} />}
      {result && <>
        <BulkSummary done={DONE[result.action]} total={result.total} r={result.r} onDismiss={() => setResult(null)}
          onSelectFailed={props.onSelect && ((ids) => { props.onSelect?.(ids); })} />
        {(result.action === "retry" || result.action === "resolve") && <Outcomes action={result.action} r={result.r} errorId={(id) => result.names[id] ?? id} />}
        {result.action === "approve" && <Changed r={result.r} errorId={(id) => result.names[id] ?? id} />}
      </>}
    </div>
  );
}

/** Fixes lists what an approve would write, from the dry run. */
function Fixes({ preview }: { preview: Preview | null }) {
  if (!preview) return <p class="note" aria-busy="true">Reading the fixes…</p>;
  // The preview lists the 20 largest fixes; the approve writes only those.
  const unlisted = preview.total - preview.withoutFix - preview.fixes.reduce((n, f) => n + f.count, 0);
  return (
    <>
      {preview.allowed !== undefined && <p>The approval policy lets you approve <strong>{preview.allowed} of {preview.total}</strong>.</p>}
      {preview.fixes.length > 0 && (
        <ul class="members" aria-label="Fixes to be written">
          {preview.fixes.map((f) => (
            <li><span class="mono">{f.changes.map((c) => `${c.path} → ${show(c.after)}`).join(", ")}</span> <Chip kind="class">{f.class}</Chip> ×{f.count}
              <span class="note"> e.g. {f.errorIds.join(", ")}</span></li>
          ))}
        </ul>
      )}
      {preview.withoutFix > 0 && <p class="note">{plural(preview.withoutFix, "row")} without a fix will be refused.</p>}
      {unlisted > 0 && <p class="note">{plural(unlisted, "row")} with a fix not listed here will not be written.</p>}
    </>
  );
}

/** InputDialog asks for one line of text matching pattern before an action. */
function InputDialog(props: { title: string; label: string; hint: string; confirm: string; pattern: RegExp; onConfirm: (v: string) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [v, setV] = useState("");
  useEffect(() => ref.current?.showModal(), []);
  const ok = props.pattern.test(v.trim());
  return (
    <dialog ref={ref} aria-label={props.title} onClose={props.onClose}>
      <form onSubmit={(e) => { e.preventDefault(); if (ok) props.onConfirm(v.trim()); }}>
        <h2>{props.title}</h2>
        <label for="bulk-input">{props.label}</label>
        <input id="bulk-input" type="text" value={v} spellcheck={false} autoComplete="off" aria-describedby="bulk-input-hint"
          onInput={(e) => setV((e.target as HTMLInputElement).value)} />
        <p id="bulk-input-hint" class="note">{props.hint}</p>
        <div class="actions">
          <button type="submit" class="primary" disabled={!ok}>{props.confirm}</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

/** Outcomes lists where each retried or resolved item ended. */
function Outcomes({ action, r, errorId }: { action: Action; r: BulkResult; errorId: (id: string) => string }) {
  return (
    <ul class="results" aria-label={`${DONE[action]}: outcome per sync error`}>
      {r.results.map((i) => (
        <li><span class="mono">{errorId(i.id)}</span> <Chip kind={i.outcome}>{i.outcome}</Chip>
          {i.outcome === "retried" && <span> {retryWords(i)}</span>}
          {i.problem && <span> {i.problem.title}{i.problem.detail ? ` — ${i.problem.detail}` : ""}</span>}</li>
      ))}
    </ul>
  );
}

/** Changed lists the rows an approve left unwritten because their fix changed since the
 *  confirmation (outcome changed); the summary counts them, this names each. */
function Changed({ r, errorId }: { r: BulkResult; errorId: (id: string) => string }) {
  const changed = r.results.filter((i) => i.outcome === "changed");
  if (changed.length === 0) return null;
  return (
    <ul class="results" aria-label="Approved: outcome per sync error">
      {changed.map((i) => <li><span class="mono">{errorId(i.id)}</span> <Chip kind={i.outcome}>{i.outcome}</Chip> {CHANGED}</li>)}
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
