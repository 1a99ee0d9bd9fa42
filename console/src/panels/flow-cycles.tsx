// The cycles a saved flow closes. Saving is allowed (two-way sync is legitimate and the
// ownership manifest decides which system's value wins), so this is a notice, not an
// error: the flows and endpoints in order, each field chain, and who owns its fields.
import type { FlowCycle, FlowCycleField } from "../api/types";

function owners(chain: FlowCycleField[]): string {
  const seen = new Set<string>();
  const owned = chain.filter((f) => f.owner).map((f) => `${f.system}/${f.entity}.${f.field}: ${f.owner} (${f.policy})`)
    .filter((s) => !seen.has(s) && seen.add(s));
  return owned.length ? "owned by " + owned.join("; ") : "no owner in the manifest: each system's value is written";
}

export function CycleNotice(props: { flowId: string; cycles: FlowCycle[]; onClose: () => void }) {
  const n = props.cycles.length;
  return (
    <div class="cycles" role="region" aria-label={`Cycles of flow ${props.flowId}`}>
      <p class="warn">Flow <span class="mono">{props.flowId}</span> closes {n === 1 ? "a cycle" : `${n} cycles`}. A value that
        would come back to where it started is not written back and is recorded as a loop detection.</p>
      <ul>
        {props.cycles.map((c) => (
          <li key={c.summary}>
            <span class="mono">{c.endpoints.join(" → ")}</span> (flows {c.flows.join(", ")})
            <ul>{c.fields.map((ch) => <li><span class="mono">{ch.map((f) => f.field).join(" → ")}</span>: {owners(ch)}</li>)}</ul>
          </li>
        ))}
      </ul>
      <button type="button" onClick={props.onClose}>Dismiss</button>
    </div>
  );
}
