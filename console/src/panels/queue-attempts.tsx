// A row's retry attempts, each with its own outcome, listed under the error as received
// (issue 33 §3): an attempt never changes the row's error, so what an attempt met is said
// here, in its own words and with the vendor's code, and never above.
import type { Proposal } from "../api/types";
import { actorName, Ago, Chip } from "../ui";

type Attempt = NonNullable<Proposal["attempts"]>[number];

/** RESULTS say an attempt's result as a person would, with the chip colour it is shown in. */
const RESULTS: Record<Attempt["result"], { words: string; chip: string }> = {
  delivered: { words: "Landed", chip: "success" },
  requested: { words: "Host ERP asked to re-run", chip: "retrying" },
  transient: { words: "Will retry", chip: "retrying" },
  permanent: { words: "Needs a person", chip: "failed" },
};

/** Attempts lists the row's retry attempts, newest first; nothing when there are none. */
export function Attempts({ row }: { row: Proposal }) {
  const attempts = [...(row.attempts ?? [])].reverse(); // the API lists them oldest first
  if (attempts.length === 0) return null;
  return (
    <>
      <h3 id="attempts-h">Attempts</h3>
      <p class="note">Each retry runs the sync again from its source and is listed with its own outcome, newest first.
        The error above stays as it was received.</p>
      <ol class="attempts" aria-label="Retry attempts">
        {attempts.map((a) => (
          <li>
            <Chip kind={RESULTS[a.result].chip}>{RESULTS[a.result].words}</Chip>
            {a.system && <> {a.system}</>}
            {a.code && <> <code>{a.code}</code></>}
            {a.reason && <> — {a.reason}</>}
            <span class="note"> · {actorName(a.actor)}, <Ago at={a.at} /></span>
          </li>
        ))}
      </ol>
    </>
  );
}

/** retryOutcome says, for the announcement after Retry, what the newest attempt did. */
export function retryOutcome(now: Proposal): string {
  const last = now.attempts?.[now.attempts.length - 1];
  if (now.status === "resolved") return "landed, resolved";
  if (!last) return now.status === "retrying" ? "not yet, retrying on schedule" : "not landed, pending again";
  const said = RESULTS[last.result].words.toLowerCase();
  const code = last.code ? ` (${last.code})` : "";
  return now.status === "retrying" ? `${said}${code}, retrying on schedule` : `${said}${code}, pending again`;
}
