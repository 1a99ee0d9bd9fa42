// What the tenant learned from people's decisions, paged: each case (error code, record
// type, field, value before) with the value people approved, whose decisions it comes from
// and the values they rejected. An admin corrects a learned value or forgets a case (the
// next such error is diagnosed afresh); both are audited by the service.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, parseJSON, read, unsure, write } from "../api/client";
import { demoKnowledge } from "../api/demo-assist";
import type { FieldError, Knowledge, List } from "../api/types";
import { FieldMessage, invalid } from "../forms";
import { actorName, Ago, announce, Chip, ConfirmDialog, PanelError, show, showError } from "../ui";

export function KnowledgeList({ demo }: { demo: boolean }) {
  const [rows, setRows] = useState<Knowledge[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const [correcting, setCorrecting] = useState<Knowledge | null>(null);
  const [forgetting, setForgetting] = useState<Knowledge | null>(null);
  const load = async (cursor: string | null) => {
    try {
      const r = await read<List<Knowledge>>("/api/settings/knowledge?limit=50" + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""), demoKnowledge);
      setRows((prev) => (cursor && prev ? [...prev, ...r.data.items] : r.data.items));
      setNext(r.data.nextCursor);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  useEffect(() => {
    void load(null);
  }, []);
  const stale = async () => {
    await load(null);
    showError(new ApiError({ status: 409, title: "Changed by someone else — reloaded",
      detail: "The learned fix changed since the list was read. The list now shows it as it is; make the change again if it still applies." }));
  };
  const forget = async (k: Knowledge) => {
    setForgetting(null);
    try {
      await write("DELETE", `/api/settings/knowledge/${encodeURIComponent(k.id)}?version=${k.version}`);
      setRows((rs) => rs && rs.filter((x) => x.id !== k.id));
      announce(`Forgot the learned fix for ${k.field} “${show(k.before)}”`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) return void stale();
      showError(e);
    }
  };
  return (
    <section aria-labelledby="knowledge-h">
      <h2 id="knowledge-h">Learned fixes</h2>
      <p class="note">Every approval, edit, rejection and revert of a fix is kept here by case. The diagnosis proposes a learned value
        before asking the AI, and never proposes a value people rejected for the same case.</p>
      {failed !== null && <PanelError what="The learned fixes" error={failed} onRetry={() => void load(null)} />}
      {rows && rows.length === 0 && <p class="empty">Nothing learned yet: decisions on fixes in the queue teach the service.</p>}
      {rows && rows.length > 0 && (
        <table class="grid plain">
          <thead><tr><th scope="col">Case</th><th scope="col">Learned value</th><th scope="col">From</th><th scope="col">Rejected values</th>
            <th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id}>
                <th scope="row"><Chip kind="class">{k.class}</Chip> <span class="mono">{k.errorCode}</span>
                  <div><span class="mono">{k.recordType}.{k.field}</span> was <span class="mono">{show(k.before)}</span></div></th>
                <td>{k.hasValue ? <span class="mono">{show(k.value)}</span> : <span class="note">none (only rejections)</span>}</td>
                <td>{k.approvals} approval{k.approvals === 1 ? "" : "s"} by {k.approvers.length} {k.approvers.length === 1 ? "person" : "people"}
                  {k.lastApprovedBy && <div class="note">last by {actorName(k.lastApprovedBy)}{k.lastApprovedAt && <> <Ago at={k.lastApprovedAt} /></>}</div>}
                  {k.correctedBy && <div class="note">corrected by {actorName(k.correctedBy)}</div>}</td>
                <td>{k.rejected.length === 0 ? <span class="note">none</span> : (
                  <ul class="fix-list">{k.rejected.map((r) => <li><del>{show(r.value)}</del> ×{r.count} — “{r.reason}” ({actorName(r.by)})</li>)}</ul>)}</td>
                <td class="row-actions">
                  <button type="button" disabled={demo} onClick={() => setCorrecting(k)}>Correct…<span class="sr-live"> {k.field} {show(k.before)}</span></button>
                  <button type="button" disabled={demo} onClick={() => setForgetting(k)}>Forget…<span class="sr-live"> {k.field} {show(k.before)}</span></button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
      {forgetting && (
        <ConfirmDialog title="Forget this learned fix?" confirm="Forget" onClose={() => setForgetting(null)} onConfirm={() => void forget(forgetting)}>
          <p>What people decided about <span class="mono">{forgetting.recordType}.{forgetting.field}</span> = <span class="mono">{show(forgetting.before)}</span>{" "}
            ({forgetting.errorCode}) is deleted, rejected values included: the next such error is diagnosed afresh.</p>
        </ConfirmDialog>
      )}
      {correcting && <CorrectDialog k={correcting} onClose={() => setCorrecting(null)} onStale={() => { setCorrecting(null); void stale(); }}
        onSaved={(k) => { setCorrecting(null); setRows((rs) => rs && rs.map((x) => (x.id === k.id ? k : x))); announce(`Corrected the learned fix for ${k.field}`); }} />}
    </section>
  );
}

/** ROUNDED is why a browser without exact JSON numbers saves no long number: the one it
 *  shows may be a rounding of the learned value, and saving it would teach the rounding. */
const ROUNDED = "holds a number this browser may have rounded (it cannot read or send so many digits exactly): use a current browser";

/** CorrectDialog asks for the value to propose from now on. A text value is sent as text;
 *  a learned number, boolean or object is read as JSON, so its type is kept. */
function CorrectDialog(props: { k: Knowledge; onSaved: (k: Knowledge) => void; onStale: () => void; onClose: () => void }) {
  const { k } = props;
  const asText = !k.hasValue || typeof k.value === "string";
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState(k.hasValue ? (asText ? String(k.value) : JSON.stringify(k.value)) : "");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => ref.current?.showModal(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    let value: unknown = text;
    if (!asText) {
      try {
        value = parseJSON(text); // its digits as typed: 12345678901234567891 is not 12345678901234567000
      } catch {
        return setErrors([{ field: "value", message: "must be JSON (a number, true/false, a quoted text, a list or an object)" }]);
      }
      if (unsure(value)) return setErrors([{ field: "value", message: ROUNDED }]);
    }
    setBusy(true);
    setErrors([]);
    try {
      props.onSaved(await write<Knowledge>("PUT", `/api/settings/knowledge/${encodeURIComponent(k.id)}`, { value, version: k.version }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) return props.onStale();
      if (err instanceof ApiError && err.status === 400) setErrors(err.problem.errors ?? []);
      else showError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} aria-labelledby="correct-h" onClose={props.onClose}>
      <form onSubmit={submit}>
        <h2 id="correct-h">Correct the learned fix</h2>
        <p>For <span class="mono">{k.recordType}.{k.field}</span> = <span class="mono">{show(k.before)}</span> ({k.errorCode}), propose from now on:</p>
        <label for="correct-value">Value{asText ? "" : " (JSON)"}</label>
        <input id="correct-value" type="text" value={text} spellcheck={false} onInput={(e) => setText((e.target as HTMLInputElement).value)}
          {...invalid(errors, "value", "correct-hint")} />
        <FieldMessage errors={errors} field="value" />
        <p id="correct-hint" class="note">Counts as your approval; its earlier approvals were of another value. No secret, card number or national id is accepted.</p>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>Save value</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}
