// The flow editor (admins): a flow's source and target, trigger, field mapping, filter and
// match (how the target record is found when the systems' ids differ), the filter and the
// match as fields, not JSON. One PUT saves the whole flow; a 400 puts each refused field's
// message beside its input and saves nothing. The dry run runs the flow as edited.
import { useEffect, useRef, useState } from "preact/hooks";
import { parseJSON, unsure, write } from "../api/client";
import type { FieldError, Flow, FlowInput, FlowSaved, FlowSystem } from "../api/types";
import { change, FieldMessage, invalid, OtherErrors, type Reload, SYSTEMS } from "../forms";
import { DryRun, Names, useNames, VENDORS } from "./flow-tools";

interface Pair {
  target: string;
  source: string;
}

/** A filter row: a source field that must equal a value (the API's filter is equality). */
interface Condition {
  field: string;
  /** value as typed: a number, true, false or null is taken as such, anything else as text */
  value: string;
}

type MatchBy = "" | "externalId" | "lookup" | "none";

interface Draft {
  id: string;
  enabled: boolean;
  trigger: "event" | "poll";
  sourceSystem: FlowSystem;
  sourceEntity: string;
  targetSystem: FlowSystem;
  targetEntity: string;
  mapping: Pair[];
  filter: Condition[];
  /** by "" is no match: the target record has the source record's id */
  match: { by: MatchBy; field: string; sourceField: string; create: boolean };
}

/** valueText shows a filter value as typed: text as it is, unless it would read as another
 *  type (then quoted); numbers, booleans, null and anything else as JSON. */
export function valueText(v: unknown): string {
  if (typeof v !== "string") return JSON.stringify(v);
  try {
    return typeof JSON.parse(v) === "string" ? v : JSON.stringify(v);
  } catch {
    return v;
  }
}

/** valueOf reads a typed filter value back: JSON where it is JSON ("42", "true", "\"42\""), text otherwise. */
export function valueOf(text: string): unknown {
  const t = text.trim();
  try {
    return parseJSON(t); // its digits: a filter of 12345678901234567891 is not one of 12345678901234567000
  } catch {
    return t;
  }
}

const draftOf = (f?: Flow): Draft => ({
  id: f?.id ?? "", enabled: f?.enabled ?? true, trigger: f?.trigger ?? "event",
  sourceSystem: f?.source.system ?? "hosterp", sourceEntity: f?.source.entity ?? "",
  targetSystem: f?.target.system ?? "crm", targetEntity: f?.target.entity ?? "",
  mapping: f ? Object.entries(f.mapping).map(([target, source]) => ({ target, source })) : [{ target: "", source: "" }],
  filter: Object.entries(f?.filter ?? {}).map(([field, v]) => ({ field, value: valueText(v) })),
  match: { by: f?.match?.by ?? "", field: f?.match?.field ?? "", sourceField: f?.match?.sourceField ?? "", create: f?.match?.create ?? false },
});

/** body is the draft as the API takes it. */
function body(d: Draft): FlowInput {
  const filter = d.filter.filter((c) => c.field.trim());
  const m = d.match;
  return {
    id: d.id.trim(), enabled: d.enabled, trigger: d.trigger,
    source: { system: d.sourceSystem, entity: d.sourceEntity.trim() }, target: { system: d.targetSystem, entity: d.targetEntity.trim() },
    mapping: Object.fromEntries(d.mapping.filter((p) => p.target.trim() || p.source.trim()).map((p) => [p.target.trim(), p.source.trim()])),
    ...(filter.length ? { filter: Object.fromEntries(filter.map((c) => [c.field.trim(), valueOf(c.value)])) } : {}),
    ...(m.by ? { match: { by: m.by, create: m.create, ...(m.by !== "none" ? { field: m.field.trim() } : {}),
      ...(m.by !== "none" && m.sourceField.trim() ? { sourceField: m.sourceField.trim() } : {}) } } : {}),
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
    // A browser that cannot read long numbers exactly never saves one: the filter would
    // then match a value nobody wrote.
    const rounded = Object.entries(b.filter ?? {}).filter(([, v]) => unsure(v));
    if (rounded.length) return setErrors(rounded.map(([k]) => ({ field: "filter." + k, message: "holds a number this browser may have rounded " +
      "(it cannot read or send so many digits exactly): nothing was saved; use a current browser" })));
    setBusy(true);
    const saved = await change(() => write<FlowSaved>("PUT", "/api/settings/flows/" + encodeURIComponent(b.id ?? ""), b), setErrors, props.reload);
    setBusy(false);
    if (saved) props.onSaved(saved);
  };
  const shown = ["id", "trigger", "source", "source.system", "source.entity", "target", "target.system", "target.entity", "mapping", "filter", "match",
    "match.by", "match.field", "match.sourceField", "match.create",
    ...d.mapping.map((p) => "mapping." + p.target.trim()), ...d.filter.map((c) => "filter." + c.field.trim())];
  const cond = (i: number, c: Partial<Condition>) => set({ filter: d.filter.map((x, j) => (j === i ? { ...x, ...c } : x)) });
  const match = (m: Partial<Draft["match"]>) => set({ match: { ...d.match, ...m } });
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
      <table class="grid plain filter-rows" aria-label="Filter" aria-describedby="flow-filter-hint">
        <thead><tr><th scope="col">Source field</th><th scope="col">Operator</th><th scope="col">Value</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
        <tbody>
          {d.filter.map((c, i) => (
            <tr>
              <td><input type="text" aria-label={`Filter field, row ${i + 1}`} value={c.field} spellcheck={false} list="source-fields"
                {...invalid(errors, "filter." + c.field.trim())} onInput={(e) => cond(i, { field: (e.target as HTMLInputElement).value })} />
                <FieldMessage errors={errors} field={"filter." + c.field.trim()} /></td>
              <td class="op">equals</td>
              <td><input type="text" aria-label={`Filter value, row ${i + 1}`} value={c.value} spellcheck={false}
                onInput={(e) => cond(i, { value: (e.target as HTMLInputElement).value })} /></td>
              <td><button type="button" onClick={() => set({ filter: d.filter.filter((_, j) => j !== i) })}>Remove<span class="sr-live"> filter row {i + 1}</span></button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <p id="flow-filter-hint" class="note">{d.filter.length ? "The flow runs only for changes where every row holds. " : "No filter: the flow runs for every change. "}
        A value of 42, true, false or null is taken as that; quote it ("42") to mean the text.</p>
      <FieldMessage errors={errors} field="filter" />
      <div class="actions"><button type="button" onClick={() => set({ filter: [...d.filter, { field: "", value: "" }] })}>Add condition</button></div>
      <fieldset class="match-fields" aria-describedby="flow-match-hint">
        <legend>Match</legend>
        <label>Find the target record by
          <select value={d.match.by} {...invalid(errors, "match.by")} onChange={(e) => match({ by: (e.target as HTMLSelectElement).value as MatchBy })}>
            <option value="">the source record's id (no match)</option>
            <option value="externalId">an external-id field</option>
            <option value="lookup">a lookup on a unique field</option>
            <option value="none">the cross-reference only</option>
          </select></label>
        {(d.match.by === "externalId" || d.match.by === "lookup") && <>
          <label>Target field
            <input type="text" value={d.match.field} spellcheck={false} list="target-fields" {...invalid(errors, "match.field")}
              onInput={(e) => match({ field: (e.target as HTMLInputElement).value })} /></label>
          <label>Holds the source's
            <input type="text" value={d.match.sourceField} spellcheck={false} list="source-fields" placeholder="record id" {...invalid(errors, "match.sourceField")}
              onInput={(e) => match({ sourceField: (e.target as HTMLInputElement).value })} /></label>
        </>}
        {d.match.by && <label class="inline"><input type="checkbox" checked={d.match.create} {...invalid(errors, "match.create")}
          onChange={(e) => match({ create: (e.target as HTMLInputElement).checked })} /> Create the target record when none is found</label>}
        <FieldMessage errors={errors} field="match.by" />
        <FieldMessage errors={errors} field="match.field" />
        <FieldMessage errors={errors} field="match.sourceField" />
        <FieldMessage errors={errors} field="match.create" />
        <FieldMessage errors={errors} field="match" />
      </fieldset>
      <p id="flow-match-hint" class="note">How the target record is found when the systems' ids differ; without a match the target record has the source record's id.</p>
      <label><input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: (e.target as HTMLInputElement).checked })} /> Enabled</label>
      <OtherErrors errors={errors} shown={shown} />
      <DryRun flow={() => body(d)} onFieldErrors={setErrors} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? "Saving…" : "Save flow"}</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}
