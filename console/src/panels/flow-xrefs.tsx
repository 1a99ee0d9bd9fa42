// The flows' cross-reference of one record: which record in each other system it is linked
// to, and, for admins, linking, re-linking and unlinking by hand (PUT /api/flows/xrefs).
// Every change says what the admin saw (expect); a link someone changed meanwhile answers
// 409, shown with the link as it is now and a way to apply the change to that instead.
// A pending entry marked creating (a create whose answer was lost, for a flow that matches
// by nothing) is settled by the admin's word: created (linked to the record they found)
// or not created (dropped, so the next change creates it).
import { useEffect, useState } from "preact/hooks";
import { ApiError, read, write } from "../api/client";
import { demoXRefs } from "../api/demo";
import type { FieldError, FlowSystem, FlowXRef, FlowXRefList } from "../api/types";
import { FieldMessage, invalid, OtherErrors, SYSTEMS } from "../forms";
import { navigate } from "../router";
import { actorName, Ago, announce, Chip, ConfirmDialog, PanelError } from "../ui";
import { VENDORS } from "./flow-tools";

type Ref = FlowXRef["source"];
/** Change is one fix-up as sent: the counterpart (id "" unlinks) and the link the admin saw,
 *  or with settle the admin's word on a create whose answer was lost. */
interface Change { target: Ref; expect: string; settle?: "created" | "not_created" }
/** Refused is a 409: the change, the API's words, and the entry as it is now (null: none). */
interface Refused { change: Change; code: string; detail: string; now: FlowXRef | null }

const sameEndpoint = (a: Ref, b: Ref) => a.system === b.system && a.entity === b.entity;

export function XRefs({ admin }: { admin: boolean }) {
  const q = new URLSearchParams(location.search);
  const [form, setForm] = useState<Ref>({ system: (q.get("xsystem") as FlowSystem) || "hosterp", entity: q.get("xentity") ?? "", id: q.get("xid") ?? "" });
  const [source, setSource] = useState<Ref | null>(null);
  const [items, setItems] = useState<FlowXRef[] | null>(null);
  const [demo, setDemo] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [refused, setRefused] = useState<Refused | null>(null);
  const [busy, setBusy] = useState(false);

  const lookup = async (src: Ref): Promise<FlowXRef[] | null> => {
    setErrors([]);
    const qs = new URLSearchParams({ system: src.system, entity: src.entity, id: src.id });
    try {
      const r = await read<FlowXRefList>("/api/flows/xrefs?" + qs, () => demoXRefs(src));
      setSource(src);
      setItems(r.data.items);
      setDemo(r.demo);
      setFailed(null);
      return r.data.items;
    } catch (e) {
      if (e instanceof ApiError && e.status === 400) setErrors(e.problem.errors ?? []);
      else setFailed(e);
      return null;
    }
  };
  useEffect(() => {
    if (form.entity && form.id) void lookup(form);
  }, []);
  const submit = (e: Event) => {
    e.preventDefault();
    setRefused(null);
    const here = new URLSearchParams(location.search);
    here.set("xsystem", form.system);
    here.set("xentity", form.entity);
    here.set("xid", form.id);
    navigate(location.pathname + "?" + here, true);
    void lookup(form);
  };

  const send = async (c: Change) => {
    if (!source) return;
    setBusy(true);
    setRefused(null);
    setErrors([]);
    try {
      const r = await write<FlowXRefList>("PUT", "/api/flows/xrefs", { source, target: c.target, expect: c.expect, ...(c.settle ? { settle: c.settle } : {}) });
      setItems(r.items);
      announce(changed(source, c));
    } catch (e) {
      await refusal(e, c);
    } finally {
      setBusy(false);
    }
  };
  const refusal = async (e: unknown, c: Change) => {
    if (!(e instanceof ApiError) || (e.status !== 409 && e.status !== 400)) {
      setRefused({ change: c, code: "", detail: e instanceof ApiError ? e.message : String(e), now: null });
      return;
    }
    if (e.status === 400) return setErrors(e.problem.errors ?? []);
    const fresh = source ? await lookup(source) : null;
    const now = fresh?.find((x) => sameEndpoint(x.target, c.target)) ?? null;
    setRefused({ change: c, code: e.code, detail: e.problem.detail ?? e.problem.title, now });
  };

  return (
    <section aria-labelledby="xref-h" class="xrefs">
      <h2 id="xref-h">Cross-reference</h2>
      <p class="note">Which record in each other system a record is linked to: the flows write that counterpart.
        {admin ? " Link, re-link or unlink one when a flow matched the wrong record or none." : " Changing a link needs an admin."}</p>
      <form class="xref-lookup" aria-label="Look up a record's links" onSubmit={submit}>
        <label>System{" "}
          <select value={form.system} {...invalid(errors, "system")} onChange={(e) => setForm({ ...form, system: (e.target as HTMLSelectElement).value as FlowSystem })}>
            {SYSTEMS.map((s) => <option value={s}>{VENDORS[s]} ({s})</option>)}
          </select></label>
        <label>Entity{" "}
          <input value={form.entity} required {...invalid(errors, "entity")} onInput={(e) => setForm({ ...form, entity: (e.target as HTMLInputElement).value })} />
          <FieldMessage errors={errors} field="entity" /></label>
        <label>Record id{" "}
          <input value={form.id} required {...invalid(errors, "id")} onInput={(e) => setForm({ ...form, id: (e.target as HTMLInputElement).value })} />
          <FieldMessage errors={errors} field="id" /></label>
        <button type="submit">Look up</button>
      </form>
      {failed !== null && <PanelError what="The cross-reference" error={failed} onRetry={() => source && void lookup(source)} />}
      {refused && <RefusedNotice refused={refused} admin={admin} busy={busy} onRetry={(c) => void send(c)} onDismiss={() => setRefused(null)} />}
      {source && items && (
        <XRefTable source={source} items={items} admin={admin} locked={busy || demo} onChange={(c) => void send(c)} />
      )}
      {source && items && admin && <NewLink source={source} items={items} errors={errors} locked={busy || demo} onLink={(c) => void send(c)} />}
      <OtherErrors errors={errors} shown={["system", "entity", "id", "target.system", "target.entity", "target.id", "target"]} />
    </section>
  );
}

/** changed says in words what a change did, for the status line. */
function changed(source: Ref, c: Change): string {
  const src = `${source.system}/${source.entity} ${source.id}`;
  const to = `${c.target.system}/${c.target.entity}`;
  if (c.settle === "created") return `Settled: ${src} is linked to ${to} ${c.target.id}, the record its create made`;
  if (c.settle === "not_created") return `Settled: no ${to} record was created for ${src}; its next change creates one`;
  const what = c.target.id === "" ? "Unlinked" : c.expect ? "Re-linked" : "Linked";
  return `${what} ${src}` + (c.target.id ? ` to ${to} ${c.target.id}` : ` from ${to}`);
}

/** RefusedNotice explains a 409: someone changed the link meanwhile (shown as it is now,
 *  with the change offered again on it), or the target is another record's counterpart. */
function RefusedNotice({ refused, admin, busy, onRetry, onDismiss }: { refused: Refused; admin: boolean; busy: boolean;
  onRetry: (c: Change) => void; onDismiss: () => void }) {
  const { change, now } = refused;
  const want = change.target.id ? `link it to ${change.target.id}` : "unlink it";
  if (refused.code !== "xref_changed") {
    const title = refused.code === "target_linked_elsewhere" ? "That record is already another record's counterpart"
      : refused.code === "xref_not_creating" ? "Not settled: there is no unconfirmed create to settle" : "Not changed";
    return <div class="panel-error" role="alert"><strong>{title}.</strong> {refused.detail} <button type="button" onClick={onDismiss}>Dismiss</button></div>;
  }
  const pending = now?.state === "pending";
  const current = now?.target.id || "";
  const retry = { target: change.target, expect: current };
  const noop = current === change.target.id;
  return (
    <div class="panel-error" role="alert">
      <strong>Someone changed this link meanwhile; nothing was changed.</strong>{" "}
      {pending ? <>A flow run is finding or creating the {change.target.system}/{change.target.entity} counterpart now; look again shortly.</>
        : current ? <>It is now linked to <code>{current}</code>{now?.linkedBy ? <> by {actorName(now.linkedBy)}</> : null} (<Ago at={now!.updatedAt} />).</>
        : <>It is now not linked to any {change.target.system}/{change.target.entity} record.</>}
      {" "}You wanted to {want}.{" "}
      {admin && !pending && !noop && <button type="button" disabled={busy} onClick={() => onRetry(retry)}>
        {change.target.id ? `Link to ${change.target.id} instead of ${current || "nothing"}` : `Unlink ${current}`}</button>}
      {noop && <span>That is what it is now.</span>}{" "}
      <button type="button" onClick={onDismiss}>Keep it as it is</button>
    </div>
  );
}

function XRefTable({ source, items, admin, locked, onChange }: { source: Ref; items: FlowXRef[]; admin: boolean; locked: boolean;
  onChange: (c: Change) => void }) {
  const [relinking, setRelinking] = useState<FlowXRef | null>(null);
  const [to, setTo] = useState("");
  const [unlinking, setUnlinking] = useState<FlowXRef | null>(null);
  const [found, setFound] = useState<FlowXRef | null>(null);
  const [notMade, setNotMade] = useState<FlowXRef | null>(null);
  if (items.length === 0) return <p class="empty">{source.system}/{source.entity} {source.id} is linked to no record in another system.</p>;
  return (
    <>
      <table class="grid plain xref-list">
        <caption>Links of {source.system}/{source.entity} <span class="mono">{source.id}</span></caption>
        <thead><tr><th scope="col">Counterpart in</th><th scope="col">Record</th><th scope="col">State</th><th scope="col">How</th><th scope="col">Since</th>
          {admin && <th scope="col"><span class="sr-live">Actions</span></th>}</tr></thead>
        <tbody>
          {items.map((x) => {
            const name = `${x.target.system}/${x.target.entity}`;
            return (
              <tr key={name}>
                <td>{VENDORS[x.target.system]} {name}</td>
                <td class="mono">{x.target.id || "—"}</td>
                <td><Chip kind={x.state === "linked" ? "written" : x.creating ? "failed" : "retrying"}>{x.creating ? "create unconfirmed" : x.state}</Chip></td>
                <td>{x.action === "linked_by_admin" ? `by hand, ${actorName(x.linkedBy?.replace(/^admin:/, ""))}` : x.action ?? "—"}{x.flowId ? ` (flow ${x.flowId})` : ""}</td>
                <td><Ago at={x.updatedAt} /></td>
                {admin && <td class="row-actions">{x.creating ? <>
                  <button type="button" disabled={locked} onClick={() => { setFound(x); setTo(""); }}>It was created<span class="sr-live"> in {name}</span></button>
                  <button type="button" disabled={locked} onClick={() => setNotMade(x)}>It was not created<span class="sr-live"> in {name}</span></button></>
                  : x.state === "pending" ? <span class="note">a run is resolving it</span> : <>
                  <button type="button" disabled={locked} onClick={() => { setRelinking(x); setTo(""); }}>Re-link<span class="sr-live"> {name}</span></button>
                  <button type="button" disabled={locked} onClick={() => setUnlinking(x)}>Unlink<span class="sr-live"> {name}</span></button></>}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
      {items.some((x) => x.creating) && (
        <p class="note">A create is unconfirmed: a flow run sent it and its answer was lost, and the flow has no match key to look the
          record up by, so every later change of this record fails until you settle it. Look in the target system for the record:
          {admin ? " if it was created, link it by its id; if not, say so, and the next change creates it." : " an admin settles it."}</p>
      )}
      {relinking && (
        <form class="xref-relink" aria-label={`Re-link to another ${relinking.target.system}/${relinking.target.entity} record`}
          onSubmit={(e) => { e.preventDefault(); setRelinking(null); onChange({ target: { ...relinking.target, id: to.trim() }, expect: relinking.target.id }); }}>
          <label><span>New {relinking.target.system}/{relinking.target.entity} record id (now <code>{relinking.target.id}</code>)</span>
            <input value={to} required onInput={(e) => setTo((e.target as HTMLInputElement).value)} /></label>
          <button type="submit" class="primary" disabled={!to.trim() || to.trim() === relinking.target.id}>Re-link</button>
          <button type="button" onClick={() => setRelinking(null)}>Cancel</button>
        </form>
      )}
      {found && (
        <form class="xref-relink" aria-label={`Link the ${found.target.system}/${found.target.entity} record the create made`}
          onSubmit={(e) => { e.preventDefault(); setFound(null); onChange({ target: { ...found.target, id: to.trim() }, expect: "", settle: "created" }); }}>
          <label><span>Id of the {found.target.system}/{found.target.entity} record the create made</span>
            <input value={to} required onInput={(e) => setTo((e.target as HTMLInputElement).value)} /></label>
          <button type="submit" class="primary" disabled={!to.trim()}>Link as created</button>
          <button type="button" onClick={() => setFound(null)}>Cancel</button>
        </form>
      )}
      {notMade && (
        <ConfirmDialog title={`No ${notMade.target.system}/${notMade.target.entity} record was created?`} confirm="It was not created"
          onClose={() => setNotMade(null)} onConfirm={() => { const x = notMade; setNotMade(null); onChange({ target: { ...x.target, id: "" }, expect: "", settle: "not_created" }); }}>
          <p>The unconfirmed create is dropped, and the next change of {source.system}/{source.entity} <code>{source.id}</code> creates
            its {notMade.target.system}/{notMade.target.entity} record. Say so only if you checked that {notMade.target.system} holds
            no such record: otherwise it will hold two.</p>
        </ConfirmDialog>
      )}
      {unlinking && (
        <ConfirmDialog title={`Unlink ${unlinking.target.system}/${unlinking.target.entity} ${unlinking.target.id}?`} confirm="Unlink"
          onClose={() => setUnlinking(null)} onConfirm={() => { const x = unlinking; setUnlinking(null); onChange({ target: { ...x.target, id: "" }, expect: x.target.id }); }}>
          <p>{source.system}/{source.entity} <code>{source.id}</code> and <code>{unlinking.target.id}</code> are no longer counterparts, both ways.
            The next change runs the flow's match again (and may create a record, if the flow creates).</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** NewLink links the record to a counterpart in a system or entity it has no link in. */
function NewLink({ source, items, errors, locked, onLink }: { source: Ref; items: FlowXRef[]; errors: FieldError[]; locked: boolean;
  onLink: (c: Change) => void }) {
  const [t, setT] = useState<Ref>({ system: source.system === "crm" ? "hosterp" : "crm", entity: "", id: "" });
  const taken = items.some((x) => sameEndpoint(x.target, t));
  return (
    <form class="xref-new" aria-label="Link to a counterpart" onSubmit={(e) => { e.preventDefault(); onLink({ target: { ...t, id: t.id.trim() }, expect: "" }); }}>
      <h3>Link to a counterpart</h3>
      <label>System{" "}
        <select value={t.system} {...invalid(errors, "target.system")} onChange={(e) => setT({ ...t, system: (e.target as HTMLSelectElement).value as FlowSystem })}>
          {SYSTEMS.map((s) => <option value={s}>{VENDORS[s]} ({s})</option>)}
        </select></label>
      <label>Entity{" "}
        <input value={t.entity} required {...invalid(errors, "target.entity")} onInput={(e) => setT({ ...t, entity: (e.target as HTMLInputElement).value })} />
        <FieldMessage errors={errors} field="target.entity" /></label>
      <label>Record id{" "}
        <input value={t.id} required {...invalid(errors, "target.id")} onInput={(e) => setT({ ...t, id: (e.target as HTMLInputElement).value })} />
        <FieldMessage errors={errors} field="target.id" /></label>
      <button type="submit" disabled={locked || taken}>Link</button>
      {taken && <span class="note">Already linked there: re-link it above.</span>}
      <FieldMessage errors={errors} field="target" />
    </form>
  );
}
