// The flow editor (admins): a flow's source and target, trigger, field mapping, filter and
// match (how the target record is found when the systems' ids differ).
// One PUT saves the whole flow; a 400 puts each refused field's message beside its input
// and saves nothing.
import { useEffect, useRef, useState } from "preact/hooks";
import { write } from "../api/client";
import type { FieldError, Flow, FlowInput, FlowSaved, FlowSystem } from "../api/types";
import { change, FieldMessage, invalid, OtherErrors, type Reload, SYSTEMS } from "../forms";
import { DryRun, Names, useNames, VENDORS } from "./flow-tools";

interface Pair {
  target: string;
  source: string;
}

interface Draft {
  id: string;
  enabled: boolean;
  trigger: "event" | "poll";
  sourceSystem: FlowSystem;
  sourceEntity: string;
  targetSystem: FlowSystem;
  targetEntity: string;
  mapping: Pair[];
  /** filter is JSON text of an object, edited as text: values may be any JSON. */
  filter: string;
  /** match is JSON text of the flow's match, edited as text; empty: none. */
  match: string;
}

const draftOf = (f?: Flow): Draft => ({
  id: f?.id ?? "", enabled: f?.enabled ?? true, trigger: f?.trigger ?? "event",
  sourceSystem: f?.source.system ?? "hosterp", sourceEntity: f?.source.entity ?? "",
  targetSystem: f?.target.system ?? "crm", targetEntity: f?.target.entity ?? "",
  mapping: f ? Object.entries(f.mapping).map(([target, source]) => ({ target, source })) : [{ target: "", source: "" }],
  filter: f?.filter && Object.keys(f.filter).length ? JSON.stringify(f.filter) : "",
  match: f?.match ? JSON.stringify(f.match) : "",
});

/** objectOf parses JSON text of an object; undefined for empty text, null when it is not one. */
function objectOf(text: string): Record<string, unknown> | undefined | null {
  if (!text.trim()) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** body is the draft as the API takes it, or the filter's or match's parse error. */
function body(d: Draft): FlowInput | FieldError {
  const filter = objectOf(d.filter);
  if (filter === null) return { field: "filter", message: "must be a JSON object, such as {\"Type\": \"Customer\"}" };
  const match = objectOf(d.match);
  if (match === null) return { field: "match", message: "must be a JSON object, such as {\"by\": \"lookup\", \"field\": \"Email\"}" };
  return {
    id: d.id.trim(), enabled: d.enabled, trigger: d.trigger,
    source: { system: d.sourceSystem, entity: d.sourceEntity.trim() }, target: { system: d.targetSystem, entity: d.targetEntity.trim() },
    mapping: Object.fromEntries(d.mapping.filter((p) => p.target.trim() || p.source.trim()).map((p) => [p.target.trim(), p.source.trim()])),
    ...(filter ? { filter } : {}),
    ...(match ? { match: match as FlowInput["match"] } : {}),
  };
}

export function FlowEditor(props: { flow?: Flow; onSaved: (f: FlowSaved) => void; onCancel: () => void; reload: Reload }) {
  const [d, setD] = useState<Draft>(draftOf(props.flow));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  // The first field that can change takes the focus: the id of a new flow, else the source.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLElement>("input:not([disabled]), select")?.focus(), []);
  const set = (p: Partial<Draft>) => setD({ ...d, ...p });
  const pair = (i: number, p: Partial<Pair>) => set({ mapping: d.mapping.map((x, j) => (j === i ? { ...x, ...p } : x)) });
  const isNew = !props.flow;
  // The vendors' names: entities of each side's system, and the fields of an entity the
  // vendor lists (a typed entity it does not list is asked for nothing).
  const entities = { source: useNames(d.sourceSystem), target: useNames(d.targetSystem) };
  const known = (side: "source" | "target", entity: string) => (entities[side].includes(entity.trim()) ? entity.trim() : "");
  const sourceFields = useNames(d.sourceSystem, known("source", d.sourceEntity));
  const targetFields = useNames(d.targetSystem, known("target", d.targetEntity));
  const save = async (e: Event) => {
    e.preventDefault();
    const b = body(d);
    if ("field" in b) {
      setErrors([b]);
      return;
    }
    setBusy(true);
    const saved = await change(() => write<FlowSaved>("PUT", "/api/settings/flows/" + encodeURIComponent(b.id ?? ""), b), setErrors, props.reload);
    setBusy(false);
    if (saved) props.onSaved(saved);
  };
  const shown = ["id", "trigger", "source", "source.system", "source.entity", "target", "target.system", "target.entity", "mapping", "filter", "match",
    ...d.mapping.map((p) => "mapping." + p.target.trim())];
  const endpoint = (side: "source" | "target", sys: FlowSystem, entity: string) => (
    <fieldset class="endpoint">
      <legend>{side === "source" ? "Source" : "Target"}</legend>
      <label for={side + "-system"}>System</label>
      <select id={side + "-system"} value={sys} {...invalid(errors, side + ".system")}
        onChange={(e) => set({ [side + "System"]: (e.target as HTMLSelectElement).value as FlowSystem })}>
        {SYSTEMS.map((x) => <option value={x}>{VENDORS[x]}</option>)}
      </select>
      <label for={side + "-entity"}>Entity</label>
      <input id={side + "-entity"} type="text" required value={entity} spellcheck={false} list={side + "-entities"} {...invalid(errors, side + ".entity")}
        onInput={(e) => set({ [side + "Entity"]: (e.target as HTMLInputElement).value })} />
      <Names id={side + "-entities"} names={entities[side]} />
      <FieldMessage errors={errors} field={side + ".system"} />
      <FieldMessage errors={errors} field={side + ".entity"} />
      <FieldMessage errors={errors} field={side} />
    </fieldset>
  );
  return (
    <form ref={form} class="flow-form" aria-label={isNew ? "New flow" : `Edit flow ${props.flow?.id}`} onSubmit={save}
      onKeyDown={(e) => e.key === "Escape" && props.onCancel()}>
      <div class="field">
        <label for="flow-id">Flow id</label>
        <input id="flow-id" type="text" required value={d.id} disabled={!isNew} spellcheck={false} {...invalid(errors, "id", "flow-id-hint")}
          onInput={(e) => set({ id: (e.target as HTMLInputElement).value })} />
        <span id="flow-id-hint" class="note">letters, digits, '_', '.' or '-'; it names the flow in runs and cannot change</span>
        <FieldMessage errors={errors} field="id" />
      </div>
      <div class="endpoints">
        {endpoint("source", d.sourceSystem, d.sourceEntity)}
        {endpoint("target", d.targetSystem, d.targetEntity)}
      </div>
      <div class="field">
        <label for="flow-trigger">Trigger</label>
        <select id="flow-trigger" value={d.trigger} {...invalid(errors, "trigger", "flow-trigger-hint")}
          onChange={(e) => set({ trigger: (e.target as HTMLSelectElement).value as Draft["trigger"] })}>
          <option value="event">event: the source posts its changes</option>
          <option value="poll">poll: read the source's changes every 30 minutes</option>
        </select>
        <span id="flow-trigger-hint" class="note">poll for systems that cannot push</span>
      </div>
      <table class="grid plain" aria-label="Mapping">
        <thead><tr><th scope="col">Target field</th><th scope="col">← Source field</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
        <tbody>
          {d.mapping.map((p, i) => (
            <tr>
              <td><input type="text" aria-label={`Target field, row ${i + 1}`} value={p.target} spellcheck={false} list="target-fields"
                {...invalid(errors, "mapping." + p.target.trim())} onInput={(e) => pair(i, { target: (e.target as HTMLInputElement).value })} />
                <FieldMessage errors={errors} field={"mapping." + p.target.trim()} /></td>
              <td><input type="text" aria-label={`Source field, row ${i + 1}`} value={p.source} spellcheck={false} list="source-fields"
                onInput={(e) => pair(i, { source: (e.target as HTMLInputElement).value })} /></td>
              <td><button type="button" onClick={() => set({ mapping: d.mapping.filter((_, j) => j !== i) })}>Remove<span class="sr-live"> mapping row {i + 1}</span></button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <Names id="target-fields" names={targetFields} />
      <Names id="source-fields" names={sourceFields} />
      <FieldMessage errors={errors} field="mapping" />
      <div class="actions"><button type="button" onClick={() => set({ mapping: [...d.mapping, { target: "", source: "" }] })}>Add field</button></div>
      <div class="field">
        <label for="flow-filter">Filter</label>
        <input id="flow-filter" type="text" value={d.filter} size={48} spellcheck={false} placeholder='{"Type": "Customer"}'
          {...invalid(errors, "filter", "flow-filter-hint")} onInput={(e) => set({ filter: (e.target as HTMLInputElement).value })} />
        <span id="flow-filter-hint" class="note">source fields and the JSON values they must have for the flow to run; empty runs for every change</span>
        <FieldMessage errors={errors} field="filter" />
      </div>
      <div class="field">
        <label for="flow-match">Match</label>
        <input id="flow-match" type="text" value={d.match} size={48} spellcheck={false}
          placeholder='{"by": "externalId", "field": "ERP_Customer_Id__c", "create": true}'
          {...invalid(errors, "match", "flow-match-hint")} onInput={(e) => set({ match: (e.target as HTMLInputElement).value })} />
        <span id="flow-match-hint" class="note">how the target record is found when the systems' ids differ: by externalId, lookup or none, and whether to create it; empty writes the record with the source record's id</span>
        <FieldMessage errors={errors} field="match" />
      </div>
      <label><input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: (e.target as HTMLInputElement).checked })} /> Enabled</label>
      <OtherErrors errors={errors} shown={shown} />
      {props.flow && <DryRun flowId={props.flow.id} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? "Saving…" : "Save flow"}</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}
