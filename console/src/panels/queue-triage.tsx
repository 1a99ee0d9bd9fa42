// Who has a sync error, its tags and notes (issue 26), and the CSV export of the queue's
// filter. Loaded on demand: the queue's first paint does not wait for it.
import { useState } from "preact/hooks";
import { ApiError, authHeaders, write } from "../api/client";
import type { FieldError, Proposal } from "../api/types";
import { actorName, Ago, announce, Chip, showError } from "../ui";
import { submitOnCtrlEnter } from "../keys";

const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** Triage shows and changes the row's assignee, tags and notes; each change is one request
 *  whose answer is the row as it is now. */
export function Triage({ row, locked, onChanged }: { row: Proposal; locked: boolean; onChanged: (p: Proposal) => void }) {
  const [tag, setTag] = useState("");
  const [note, setNote] = useState("");
  const [someone, setSomeone] = useState("");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  const off = locked || busy;

  const send = async (body: object, done: (p: Proposal) => void) => {
    setBusy(true);
    try {
      const p = await write<Proposal>("POST", `/api/sync-error-assist/proposals/${row.id}/triage`, body);
      setErrors([]);
      onChanged(p);
      done(p);
    } catch (e) {
      const fields = e instanceof ApiError ? e.problem.errors ?? [] : [];
      setErrors(fields);
      if (!fields.length) showError(e);
    } finally {
      setBusy(false);
    }
  };
  const assign = (to: string) => send({ assign: { to, from: row.assignee ?? "" } }, (p) => {
    setSomeone("");
    announce(p.assignee ? `${row.errorId} assigned to ${p.assignedToYou ? "you" : actorName(p.assignee)}` : `${row.errorId} unassigned`);
  });
  const err = (f: string) => errors.find((e) => e.field === f || e.field.startsWith(f + "."))?.message;
  const tagErr = err("tag") ?? (tag && !TAG.test(tag) ? "1 to 32 lower-case letters, digits, - or _" : undefined);

  return (
    <section class="triage" aria-labelledby="triage-h">
      <h3 id="triage-h">Assignee, tags and notes</h3>
      <p>{row.assignee ? <>Assigned to <strong>{row.assignedToYou ? "you" : actorName(row.assignee)}</strong></> : "Nobody has taken it."}{" "}
        <button type="button" disabled={off} onClick={() => void assign("me")}>Take it</button>{" "}
        {row.assignee && <button type="button" disabled={off} onClick={() => void assign("")}>Unassign</button>}</p>
      <form class="inline" onSubmit={(e) => { e.preventDefault(); if (someone.trim()) void assign(someone.trim()); }}>
        <label for="assign-to">Assign to</label>{" "}
        <input id="assign-to" value={someone} placeholder="user id" aria-invalid={!!err("assign")} aria-describedby="assign-err"
          onInput={(e) => setSomeone((e.target as HTMLInputElement).value)} />{" "}
        <button type="submit" disabled={off || !someone.trim()}>Assign</button>
        {err("assign") && <span id="assign-err" class="field-error">{err("assign")}</span>}
      </form>
      <ul class="tags" aria-label="Tags">
        {(row.tags ?? []).map((t) => <li><Chip kind="tag">{t}</Chip>
          <button type="button" class="link" disabled={off} aria-label={"Remove tag " + t}
            onClick={() => void send({ tag: { remove: t } }, () => announce(`Tag ${t} removed`))}>×</button></li>)}
      </ul>
      <form class="inline" onSubmit={(e) => { e.preventDefault(); if (!tagErr) void send({ tag: { add: tag } }, () => { setTag(""); announce(`Tagged ${tag}`); }); }}>
        <label for="tag-add">Add tag</label>{" "}
        <input id="tag-add" value={tag} maxLength={32} aria-invalid={!!tagErr} aria-describedby="tag-err"
          onInput={(e) => setTag((e.target as HTMLInputElement).value)} />{" "}
        <button type="submit" disabled={off || !tag || !!tagErr}>Add</button>
        {tagErr && <span id="tag-err" class="field-error">{tagErr}</span>}
      </form>
      <ol class="notes" aria-label="Notes">
        {row.notes.map((n) => <li><Ago at={n.at} /> {n.you ? "you" : actorName(n.actor)}: {n.text}</li>)}
      </ol>
      <form onSubmit={(e) => {
        e.preventDefault();
        const text = note.trim();
        void send({ note: text }, (p) => {
          setNote("");
          const kept = p.notes[p.notes.length - 1]?.text;
          announce(kept === text ? "Note added" : "Note added; customer data and secrets in it were masked");
        });
      }}>
        <label for="note-add">New note</label>
        <textarea id="note-add" value={note} maxLength={2000} aria-invalid={!!err("note")} aria-describedby="note-help"
          aria-keyshortcuts="Control+Enter Meta+Enter" onKeyDown={submitOnCtrlEnter} onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)} />
        <p id="note-help" class={err("note") ? "field-error" : "note"}>{err("note") ?? "Customer data and secrets are masked before a note is kept."}</p>
        <button type="submit" disabled={off || !note.trim()}>Add note</button>
      </form>
    </section>
  );
}

/** exportCSV downloads every row of the query as one CSV file, reading the API's chunks in
 *  turn (each answer stays under the Lambda response limit). */
export async function exportCSV(query: URLSearchParams, name: string): Promise<void> {
  const parts: string[] = [];
  let cursor = "";
  do {
    const q = new URLSearchParams(query);
    q.set("format", "csv");
    q.delete("limit");
    if (cursor) q.set("cursor", cursor);
    const resp = await fetch("/api/sync-error-assist/proposals?" + q, { headers: authHeaders("text/csv") });
    if (!resp.ok) throw new ApiError({ title: "The export failed", status: resp.status, ...(await resp.json().catch(() => ({}))) });
    parts.push(await resp.text());
    cursor = resp.headers.get("X-Next-Cursor") ?? "";
  } while (cursor);
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob(parts, { type: "text/csv" }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
