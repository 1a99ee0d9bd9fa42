// Admins' checks before a flow runs: a connector's "Test connection", a flow's "Dry run",
// and the vendors' own entity and field names offered in the flow editor (free text
// stays allowed: a datalist only suggests). Kept apart from the panels that use it so
// that it loads with them, lazily.
import { useEffect, useState } from "preact/hooks";
import { ApiError, parseJSON, readQuiet, write } from "../api/client";
import type { components } from "../api/schema";
import type { FieldError, FlowInput, FlowSystem } from "../api/types";
import { Chip, show } from "../ui";
import { VENDORS } from "./fix-values";

type S = components["schemas"];
type Metadata = S["VendorMetadata"];
type DryRunAnswer = S["FlowDryRun"];
type Check = S["ConnectorCheck"];

// The vendors' names of the systems live with the queue's fix values, which say them too.
export { VENDORS };

const problemText = (e: unknown) => (e instanceof ApiError ? e.message : String(e));

/** useNames reads a vendor's entities (no entity) or an entity's fields, quietly: without
 *  a connector the editor simply offers no names. */
export function useNames(system: FlowSystem, entity?: string): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    if (entity === "") return setNames([]);
    let live = true;
    const q = entity ? "?entity=" + encodeURIComponent(entity) : "";
    void readQuiet<Metadata>(`/api/settings/connectors/${system}/metadata${q}`).then((m) => {
      if (live) setNames((entity ? m?.fields : m?.entities)?.map((x) => x.name) ?? []);
    });
    return () => { live = false; };
  }, [system, entity]);
  return names;
}

/** Names is the datalist an input's list attribute points at. */
export function Names({ id, names }: { id: string; names: string[] }) {
  return <datalist id={id}>{names.map((n) => <option value={n} />)}</datalist>;
}

/** TestConnection checks one connector and says what worked or failed, in the vendor's words. */
export function TestConnection({ system, disabled }: { system: FlowSystem; disabled?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [out, setOut] = useState<Check | string | null>(null);
  const run = async () => {
    setBusy(true);
    try {
      setOut(await write<Check>("POST", `/api/settings/connectors/${system}/test`));
    } catch (e) {
      setOut(problemText(e));
    }
    setBusy(false);
  };
  return (
    <>
      <button type="button" disabled={disabled || busy} onClick={() => void run()}>
        {busy ? "Testing…" : "Test connection"}<span class="sr-live"> {VENDORS[system]}</span></button>
      <span role="status" class="check-result">
        {typeof out === "string" && <Chip kind="failed">{out}</Chip>}
        {out && typeof out !== "string" && (out.ok
          ? <Chip kind="written">{VENDORS[system]} answered {out.read} in {out.durationMs} ms</Chip>
          : <Chip kind="failed">{out.failure?.message}{out.failure?.status ? ` (HTTP ${out.failure.status}${out.failure.code ? ", " + out.failure.code : ""})` : ""}</Chip>)}
      </span>
    </>
  );
}

/** DryRun runs the flow as edited (saved or not) on one record, writing nothing, and shows
 *  what it would do: outcomes as "would …", never as done. A definition the API refuses
 *  puts its field errors on the editor's inputs. */
export function DryRun({ flow, onFieldErrors }: { flow: () => FlowInput; onFieldErrors: (e: FieldError[]) => void }) {
  const [recordId, setRecordId] = useState("");
  const [sample, setSample] = useState("");
  const [out, setOut] = useState<DryRunAnswer | string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    let fields: unknown;
    if (sample.trim()) {
      try {
        fields = parseJSON(sample);
      } catch {
        return setOut("The sample fields must be a JSON object.");
      }
    }
    const f = flow();
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(f.id ?? "")) return setOut("Give the flow an id first: the dry run names the flow by it.");
    setBusy(true);
    try {
      setOut(await write<DryRunAnswer>("POST", `/api/settings/flows/${encodeURIComponent(f.id ?? "")}/dry-run`,
        { recordId: recordId.trim(), ...(fields ? { fields } : {}), flow: f }));
      onFieldErrors([]);
    } catch (e) {
      const refused = e instanceof ApiError && e.status === 400 ? (e.problem.errors ?? []).filter((x) => x.field.startsWith("flow.")) : [];
      onFieldErrors(refused.map((x) => ({ ...x, field: x.field.slice(5) })));
      setOut(refused.length ? "The flow as edited is not valid; see the fields marked above. Nothing was run." : problemText(e));
    }
    setBusy(false);
  };
  return (
    <fieldset class="dry-run">
      <legend>Dry run</legend>
      <p class="note">Runs the flow as edited above, saved or not, on one record; nothing is written.</p>
      <label for="dry-record">Source record id</label>
      <input id="dry-record" type="text" value={recordId} spellcheck={false} onInput={(e) => setRecordId((e.target as HTMLInputElement).value)} />
      <label for="dry-sample">Sample fields (JSON; empty reads the record from the source)</label>
      <input id="dry-sample" type="text" size={48} value={sample} spellcheck={false} placeholder='{"companyName": "Nordwind"}'
        onInput={(e) => setSample((e.target as HTMLInputElement).value)} />
      <button type="button" disabled={busy || !recordId.trim()} onClick={() => void run()}>{busy ? "Running…" : "Dry run"}</button>
      <div role="status" aria-label="Dry run result">{typeof out === "string" ? <Chip kind="failed">{out}</Chip> : out && <DryRunResult r={out} />}</div>
    </fieldset>
  );
}

/** WOULD says each decision of a dry run as what would happen: nothing happened. */
const WOULD: Record<string, string> = {
  written: "would write", skipped: "would skip", held: "would be held for approval", rejected: "would be refused",
  loop: "would stop: it would loop", dlp_blocked: "would be blocked by data-loss prevention", dlp_masked_value: "would write masked",
  owned_elsewhere: "would skip: owned by another system", no_counterpart: "would skip: no counterpart", ambiguous: "would stop: several matches",
  waiting: "would wait for the counterpart",
};
export const would = (decision: string) => WOULD[decision] ?? "would " + decision.replace(/_/g, " ");

function DryRunResult({ r }: { r: DryRunAnswer }) {
  const t = r.target;
  const missing = r.missingFields ?? [];
  return (
    <div class="dry-result">
      <p><Chip kind={r.decision === "written" ? "written" : "skipped"}>{would(r.decision)}</Chip>{" "}
        {t.action === "none" ? "nothing would be written" : `would ${t.action} ${VENDORS[t.system]} ${t.entity}${t.id ? " " + t.id : ""}`}: {t.how}
        {r.reason && <> — {r.reason}</>}. Nothing was written.</p>
      {r.fields.length > 0 && (
        <table class="grid plain" aria-label="Fields the flow would write">
          <thead><tr><th scope="col">Target field</th><th scope="col">← Source</th><th scope="col">Value</th><th scope="col">Now</th><th scope="col">Guard</th></tr></thead>
          <tbody>
            {r.fields.map((f) => (
              <tr>
                <td>{f.field}</td><td>{f.sourceField}</td><td class="mono">{show(f.value)}</td>
                <td class="mono">{f.current === undefined ? "—" : show(f.current)}{f.changed ? "" : " (unchanged)"}</td>
                <td><Chip kind={f.verdict === "written" ? "written" : "skipped"}>{would(f.verdict)}</Chip> {f.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {missing.length > 0 && (
        <p class="missing" role="note">Not in the record, so left as they are: {missing.map((m) => `${m.field} ← ${m.sourceField}`).join(", ")}.</p>
      )}
      {r.notEvaluated.length > 0 && <p class="note">Not evaluated in a dry run: {r.notEvaluated.join(", ")}.</p>}
    </div>
  );
}
