// The fix a person approves, as they will approve it: the proposed fix as an editable diff
// whose inputs are typed by the target field, "Add a field change" on a row with no
// proposed fix, and the one sentence that says what Approve writes where (issue 33).
import { useEffect, useRef, useState } from "preact/hooks";
import { readOptional, unsure } from "../api/client";
import { session } from "../auth";
import type { components } from "../api/schema";
import type { FlowSystem, Proposal } from "../api/types";
import { show } from "../ui";
import { effectiveKind, kindOf, typed, writesSentence, type FieldKind, type Target } from "./fix-values";

type VendorField = components["schemas"]["VendorField"];
type Metadata = components["schemas"]["VendorMetadata"];
/** Fields are a record type's fields by name, from its vendor's metadata, and its system. */
export interface Fields { system: FlowSystem; byName: Map<string, VendorField> }

// One read per tenant, system and record type for the page's life (the service caches an
// hour): opening row after row reads nothing again. A role that may not read metadata (an
// admin's route: 403) is refused once per record type, and its values fall back to the
// proposal's types.
const cache = new Map<string, Promise<Fields | null>>();

async function readFields(key: string, system: FlowSystem, entity: string): Promise<Fields | null> {
  try {
    const m = await readOptional<Metadata>(`/api/settings/connectors/${system}/metadata?entity=${encodeURIComponent(entity)}`);
    return m ? { system, byName: new Map((m.fields ?? []).map((f) => [f.name, f])) } : null;
  } catch {
    cache.delete(key); // the vendor or the way to it failed: a later row asks again
    return null;
  }
}

/** useFields is the target record type's fields, or null while unknown or unavailable. */
export function useFields(system: FlowSystem, entity: string | undefined, enabled: boolean): Fields | null {
  const [fields, setFields] = useState<Fields | null>(null);
  useEffect(() => {
    if (!enabled || !entity) return;
    let live = true;
    const key = `${session.value?.tenant}/${system}/${entity}`;
    if (!cache.has(key)) cache.set(key, readFields(key, system, entity));
    void cache.get(key)!.then((f) => live && setFields(f));
    return () => { live = false; };
  }, [system, entity, enabled]);
  return fields;
}

/** Added is a field change a person adds to a row with no proposed fix. */
export interface Added { key: number; path: string; text: string }

/** Plan is what an approve sends: each change typed, or the reasons it cannot be sent. */
export interface Plan {
  changes: { key: string; path: string; after: unknown }[];
  errors: Record<string, string>;
  /** edited is true when the person changed the AI's fix: then the fix is sent. */
  edited: boolean;
}

/** ROUNDED says, once for the fix, why an edited fix cannot carry a value this browser may
 *  have rounded, and what the person can do: the unedited approve sends no values. */
const ROUNDED = "this browser cannot read or send numbers of so many digits exactly, and an edited fix is sent whole: reset the edits to approve the fix " +
  "as proposed (the service writes its exact values), or edit it in a current browser";

const kindFor = (fields: Fields | null, path: string) => (fields ? kindOf(fields.system, fields.byName.get(path)?.type) : null);

/** planWrite types every value by its field: edited proposal values and added changes. */
export function planWrite(row: Proposal, edits: Record<string, string>, added: Added[], fields: Fields | null): Plan {
  const plan: Plan = { changes: [], errors: {}, edited: Object.keys(edits).length > 0 || added.length > 0 };
  const fix = row.proposal?.fix ?? [];
  for (const c of fix) {
    const key = "p:" + c.path;
    if (edits[c.path] === undefined) {
      // Sent with an edit, a value this browser may have rounded would be written rounded.
      if (plan.edited && unsure(c.after)) plan.errors[key] = `${c.path} holds a number this browser may have rounded`;
      else plan.changes.push({ key, path: c.path, after: c.after });
      continue;
    }
    const t = typed(edits[c.path], kindFor(fields, c.path), c.after);
    if (t.ok) plan.changes.push({ key, path: c.path, after: t.value });
    else plan.errors[key] = `${c.path} ${t.error}`;
  }
  const payload = row.error.payload ?? {};
  const taken = new Set(fix.map((c) => c.path));
  for (const a of added) {
    const key = "a:" + a.key;
    if (!a.path) {
      plan.errors[key] = "Choose the field to change";
      continue;
    }
    if (taken.has(a.path)) {
      plan.errors[key] = `${a.path} is already changed above`;
      continue;
    }
    taken.add(a.path);
    // Without metadata, the value the record was sent with says the field's type.
    const t = typed(a.text, kindFor(fields, a.path), payload[a.path]);
    if (t.ok) plan.changes.push({ key, path: a.path, after: t.value });
    else plan.errors[key] = `${a.path} ${t.error}`;
  }
  if (plan.edited && fix.some((c) => edits[c.path] === undefined && unsure(c.after))) plan.errors.rounded = ROUNDED;
  return plan;
}

const KIND_WORDS: Record<FieldKind, string> = {
  string: "text", integer: "whole number", decimal: "number", boolean: "true or false", date: "date",
  datetime: "date and time", reference: "record id", structured: "JSON",
};

const errId = (key: string) => "fix-err-" + key.replace(/[^a-zA-Z0-9_-]/g, "-");

/** ValueInput is one typed input: a list box for true/false, a date picker for dates, text
 *  (numeric keyboard for numbers) for the rest, tied to its error. */
function ValueInput(props: { id?: string; label: string; kind: FieldKind | null; proposed?: unknown; value: string; error?: string;
  errKey: string; onInput: (v: string) => void }) {
  const k = effectiveKind(props.kind, props.proposed);
  const common = { id: props.id, "aria-label": props.label, "aria-invalid": props.error ? true : undefined,
    "aria-describedby": props.error ? errId(props.errKey) : undefined };
  if (k === "boolean") {
    return (
      <select {...common} value={props.value} onChange={(e) => props.onInput((e.target as HTMLSelectElement).value)}>
        {props.value !== "true" && props.value !== "false" && <option value={props.value}>Choose…</option>}
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  return <input {...common} type={k === "date" ? "date" : "text"} inputMode={k === "integer" ? "numeric" : k === "decimal" ? "decimal" : undefined}
    value={props.value} onInput={(e) => props.onInput((e.target as HTMLInputElement).value)} />;
}

function FieldError({ errors, k }: { errors: Record<string, string>; k: string }) {
  return errors[k] ? <span class="field-error" id={errId(k)}>{errors[k]}</span> : null;
}

/** DiffTable is the proposed fix: field | current | proposed, the proposed cell editable.
 *  resetLabel names what a changed cell resets to (the AI's value unless the row's fix is
 *  an operator's edit it keeps). */
export function DiffTable(props: { row: Proposal; fields: Fields | null; editable: boolean; edits: Record<string, string>;
  errors: Record<string, string>; onEdit: (path: string, text: string, ai: string) => void; resetLabel?: string }) {
  const { fields, edits, errors } = props;
  return (
    <table class="diff">
      <thead><tr><th scope="col">Field</th><th scope="col">Current</th><th scope="col">Proposed</th></tr></thead>
      <tbody>
        {(props.row.proposal?.fix ?? []).map((c) => {
          const edited = edits[c.path] !== undefined;
          const kind = kindFor(fields, c.path);
          const ai = show(c.after);
          return (
            <tr key={c.path}>
              <th scope="row"><span class="mono">{c.path}</span>{kind && <span class="field-kind">{KIND_WORDS[kind]}</span>}</th>
              <td><del>{show(c.before)}</del></td>
              <td class={edited ? "edited" : ""}>
                {!props.editable ? <ins class="proposed">{ai}</ins> : (
                  <ValueInput label={"Proposed value for " + c.path} kind={kind} proposed={c.after} value={edited ? edits[c.path] : ai}
                    error={errors["p:" + c.path]} errKey={"p:" + c.path} onInput={(v) => props.onEdit(c.path, v, ai)} />)}
                <FieldError errors={errors} k={"p:" + c.path} />
                <FieldError errors={errors} k={"p:" + c.path + "/path"} />
                {!edited && unsure(c.after) && !errors["p:" + c.path] && <span class="note">may be shown rounded by this browser; Approve writes the exact value</span>}
                {edited && <>
                  <span class="chip edited">edited</span>
                  <button type="button" class="link" onClick={() => props.onEdit(c.path, ai, ai)}>{props.resetLabel ?? "Reset to AI value"}</button>
                </>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** AddChanges is "Add a field change" on a row with no proposed fix: a field of the record
 *  type (the vendor's metadata; free text where it cannot be read) and its typed value. */
export function AddChanges(props: { row: Proposal; fields: Fields | null; vendor: string; added: Added[]; errors: Record<string, string>;
  onChange: (a: Added[]) => void }) {
  const { row, fields, added } = props;
  const [next, setNext] = useState(1);
  const [focusKey, setFocusKey] = useState<number | null>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const pickRef = useRef<HTMLInputElement & HTMLSelectElement>(null);
  const focused = useRef<number | null>(null);
  const writable = fields ? [...fields.byName.values()].filter((f) => !f.readOnly).sort((a, b) => a.name.localeCompare(b.name)) : null;
  // The new change's picker takes the focus. When the vendor's fields arrive after it did,
  // the text box is replaced by a list and the focus falls to the page: give it back, unless
  // the person has moved on.
  const picker = writable ? "list" : "text";
  useEffect(() => {
    if (focusKey === null) return;
    const lost = document.activeElement === null || document.activeElement === document.body;
    if (focused.current !== focusKey || lost) pickRef.current?.focus();
    focused.current = focusKey;
  }, [focusKey, picker]);
  const set = (key: number, change: Partial<Added>) => props.onChange(added.map((a) => (a.key === key ? { ...a, ...change } : a)));
  const add = () => {
    props.onChange([...added, { key: next, path: "", text: "" }]);
    setFocusKey(next);
    setNext(next + 1);
  };
  const remove = (key: number) => {
    props.onChange(added.filter((a) => a.key !== key));
    addRef.current?.focus();
  };
  const payload = row.error.payload ?? {};
  return (
    <div class="add-changes">
      {added.map((a, i) => {
        const kind = a.path ? kindFor(fields, a.path) : null;
        const k = "a:" + a.key;
        // The field's own error: none chosen, or a name the service does not know.
        const nameErr = props.errors[k + "/path"] ? k + "/path" : props.errors[k] && !a.path ? k : "";
        return (
          <fieldset key={a.key} class="add-change">
            <legend>Field change {i + 1}</legend>
            <label for={"add-field-" + a.key}>Field to change</label>
            {writable ? (
              <select id={"add-field-" + a.key} value={a.path} ref={a.key === focusKey ? pickRef : undefined}
                aria-invalid={nameErr ? true : undefined} aria-describedby={nameErr ? errId(nameErr) : undefined}
                onChange={(e) => set(a.key, { path: (e.target as HTMLSelectElement).value })}>
                <option value="">Choose a field…</option>
                {writable.map((f) => <option value={f.name}>{f.label && f.label !== f.name ? `${f.name} (${f.label})` : f.name}</option>)}
              </select>
            ) : (
              <input id={"add-field-" + a.key} class="mono" value={a.path} ref={a.key === focusKey ? pickRef : undefined}
                aria-invalid={nameErr ? true : undefined} aria-describedby={["add-field-hint-" + a.key, nameErr && errId(nameErr)].filter(Boolean).join(" ")}
                autoComplete="off" spellcheck={false}
                onInput={(e) => set(a.key, { path: (e.target as HTMLInputElement).value.trim() })} />
            )}
            {!writable && <span id={"add-field-hint-" + a.key} class="note">{props.vendor}'s field names could not be read here (its metadata needs an admin);
              type the field's name as {props.vendor} spells it.</span>}
            {a.path && <span class="note">Now: <span class="mono">{show(payload[a.path])}</span>{kind && <> · {KIND_WORDS[kind]}</>}</span>}
            <label for={"add-value-" + a.key}>New value</label>
            <ValueInput id={"add-value-" + a.key} label={a.path ? "New value for " + a.path : "New value"} kind={kind} proposed={payload[a.path]}
              value={a.text} error={a.path ? props.errors[k] : undefined} errKey={k} onInput={(v) => set(a.key, { text: v })} />
            <FieldError errors={props.errors} k={k} />
            <FieldError errors={props.errors} k={k + "/path"} />
            <button type="button" class="link" onClick={() => remove(a.key)}>Remove field change {i + 1}</button>
          </fieldset>
        );
      })}
      <button type="button" ref={addRef} onClick={add}>Add a field change</button>
    </div>
  );
}

/** WritesLine says what Approve writes and where, or why it cannot yet. */
export function WritesLine({ id, plan, to }: { id: string; plan: Plan; to: Target }) {
  const bad = Object.values(plan.errors);
  if (bad.length > 0) return <p id={id} class="writes warn">Approve writes nothing until the fix is corrected: {bad.join("; ")}.</p>;
  if (plan.changes.length === 0) return null;
  return <p id={id} class="writes">{writesSentence(plan.changes, to)}</p>;
}
