// What a bulk decision came to, said in the panel that asked for it (a toast is gone
// before a long run is read): the count, then the failures grouped by cause — nineteen
// "Bad Gateway" answers are one line with ×19 — and a way to select the failed rows.
import type { BulkDecisionResult } from "../api/types";
import { Chip, plural } from "../ui";

/** CHANGED says why a member of a confirmed approve was not written. */
export const CHANGED = "its fix changed since you confirmed; nothing was written.";

export type BulkResult = BulkDecisionResult;
export type BulkCause = BulkDecisionResult["causes"][number];

/** mergeResults adds the answer of one more request of a run to what came before. */
export function mergeResults(a: BulkResult, b: BulkResult): BulkResult {
  const at = new Map<string, BulkCause>();
  for (const c of [...a.causes, ...b.causes]) {
    const k = c.code + "\u0000" + c.title;
    const was = at.get(k);
    at.set(k, was ? { ...was, count: was.count + c.count, ids: [...was.ids, ...c.ids] } : { ...c, ids: [...c.ids] });
  }
  return {
    results: [...a.results, ...b.results], succeeded: a.succeeded + b.succeeded, failed: a.failed + b.failed,
    causes: [...at.values()].sort((x, y) => y.count - x.count), nextCursor: b.nextCursor,
  };
}

export const EMPTY_RESULT: BulkResult = { results: [], succeeded: 0, failed: 0, causes: [], nextCursor: null };

/** BulkSummary is the run's outcome: "Approved 118 of 137 sync errors; 19 failed", then
 *  each cause once with its count. */
export function BulkSummary(props: { done: string; total: number; r: BulkResult; onSelectFailed?: (ids: string[]) => void; onDismiss?: () => void }) {
  const { r } = props;
  const failedIds = r.causes.flatMap((c) => c.ids);
  // A row whose fix changed since the confirmation did not fail (the service counts it in
  // neither succeeded nor failed): it waits for a review.
  const changed = r.results.filter((i) => i.outcome === "changed").length;
  const failed = r.failed;
  return (
    <div class="bulk-summary" role="status">
      <p><strong>{props.done} {r.succeeded} of {plural(props.total, "sync error")}</strong>{failed ? `; ${failed} failed` : ""}
        {changed ? `; ${changed} not written: ${changed === 1 ? "its fix" : "their fixes"} changed since you confirmed` : ""}.</p>
      {r.causes.length > 0 && (
        <ul class="causes" aria-label="Why items failed">
          {r.causes.map((c) => (
            <li><Chip kind="failed">×{c.count}</Chip> {c.title}{c.detail ? ` — ${c.detail}` : ""} <code>{c.code}</code></li>
          ))}
        </ul>
      )}
      <div class="actions">
        {failedIds.length > 0 && props.onSelectFailed && (
          <button type="button" onClick={() => props.onSelectFailed?.(failedIds)}>Select the failed ones ({failedIds.length})</button>
        )}
        {props.onDismiss && <button type="button" class="link" onClick={props.onDismiss}>Dismiss</button>}
      </div>
    </div>
  );
}
