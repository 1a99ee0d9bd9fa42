// The audit log: who did what, when, with what result, filtered on the server by action
// type, actor and time range, paged with the API's cursors. The filters live in the URL.
import { useEffect, useState } from "preact/hooks";
import { demoAudit } from "../api/demo";
import type { AuditList, AuditRecord } from "../api/types";
import { MoreRows, usePaged } from "../paging";
import { actorName, Ago, Chip, PanelError, plural } from "../ui";

const TYPES = ["", "syncerror", "finance", "governance", "connector", "settings", "ai", "dlp", "session", "mcp"];

function localInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

const isTime = (v: string) => v !== "" && !isNaN(new Date(v).getTime());

const param = (name: string) => new URLSearchParams(location.search).get(name) ?? "";

/** A time from the URL (RFC 3339) for a datetime-local input, else the fallback. */
function timeParam(name: string, fallback: Date): string {
  const t = new Date(param(name));
  return localInput(isNaN(t.getTime()) ? fallback : t);
}

export function AuditPanel() {
  const [type, setType] = useState(() => (TYPES.includes(param("actionType")) ? param("actionType") : ""));
  const [actor, setActor] = useState(() => param("actor").trim());
  const [from, setFrom] = useState(() => timeParam("from", new Date(Date.now() - 24 * 3600_000)));
  const [to, setTo] = useState(() => timeParam("to", new Date(Date.now() + 60_000)));
  const [defaults] = useState(() => ({ from, to }));

  const q = new URLSearchParams();
  // A cleared time field leaves that end of the window to the API's default.
  for (const [name, v] of [["from", from], ["to", to]]) if (isTime(v)) q.set(name, new Date(v).toISOString());
  if (type) q.set("actionType", type);
  if (actor) q.set("actor", actor);
  const paged = usePaged<AuditRecord, AuditList>("/api/audit?" + q, () => {
    const d = demoAudit();
    return { ...d, items: d.items.filter((r) => !actor || r.actor?.actor === actor) };
  });

  // An actor asked for by the identity behind a masked one (an e-mail address) is answered
  // as the log stores it: the filter, its field and the URL take that form, so the address
  // stays in neither the page nor the URL.
  const matched = paged.page?.actor;
  // Keyed on each answer, not its value: the same address typed again over its own stored
  // form answers the same actor, and must be replaced again.
  useEffect(() => {
    if (actor && matched && matched !== actor) setActor(matched);
  }, [paged.page]);

  useEffect(() => {
    const u = new URLSearchParams();
    if (type) u.set("actionType", type);
    if (actor && matched === actor) u.set("actor", actor);
    if (from !== defaults.from && isTime(from)) u.set("from", new Date(from).toISOString());
    if (to !== defaults.to && isTime(to)) u.set("to", new Date(to).toISOString());
    const qs = u.size ? "?" + u : "";
    if (qs !== location.search) history.replaceState(null, "", location.pathname + qs);
  }, [type, actor, matched, from, to]);

  return (
    <section aria-labelledby="audit-h">
      <div class="toolbar">
        <h1 id="audit-h">Audit log</h1>
        <label>Action type{" "}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            {TYPES.map((t) => <option value={t}>{t || "all"}</option>)}
          </select>
        </label>
        <form role="search" aria-label="Filter by actor" key={actor}
          onSubmit={(e) => { e.preventDefault(); setActor(((e.target as HTMLFormElement).actor as HTMLInputElement).value.trim()); }}>
          <label>Actor <input type="search" name="actor" defaultValue={actor} placeholder="as shown, or an e-mail" maxLength={256} /></label>{" "}
          <button type="submit">Filter</button>
          {actor && <button type="button" onClick={() => setActor("")}>Everyone</button>}
        </form>
        <label>From <input type="datetime-local" value={from} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} /></label>
        <label>To <input type="datetime-local" value={to} onChange={(e) => setTo((e.target as HTMLInputElement).value)} /></label>
      </div>
      {paged.failed !== null && <PanelError what="The audit log" error={paged.failed} onRetry={paged.reload} />}
      <table class="grid">
        <thead><tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Result</th><th scope="col">Resource</th><th scope="col">Details</th></tr></thead>
        <tbody>
          {(paged.rows ?? []).map((r) => (
            <tr key={r.id}>
              <td><Ago at={r.at} /></td>
              <td>{r.actor?.actor && r.actor.actor !== actor
                ? <button type="button" class="link" title={`Show only ${r.actor.actor}'s records`} onClick={() => setActor(r.actor!.actor!)}>{actorName(r.actor.actor)}</button>
                : actorName(r.actor?.actor)}</td>
              <td class="mono">{r.actionKey}</td>
              <td><Chip kind={r.result}>{r.result}</Chip></td><td class="mono">{r.resource}</td>
              <td>{r.details ? <details><summary>details</summary><pre>{JSON.stringify(r.details, null, 2)}</pre></details> : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {paged.rows?.length === 0 && paged.failed === null && !paged.page?.nextCursor &&
        <p class="empty">{actor ? `No records of ${actorName(actor)} in this range.` : "No records in this range."}</p>}
      <MoreRows paged={paged} noun={(n) => plural(n, "record")} />
    </section>
  );
}
