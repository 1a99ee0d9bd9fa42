// The audit log: who did what, when, with what result, filtered on the server.
import { useEffect, useState } from "preact/hooks";
import { read } from "../api/client";
import { demoAudit } from "../api/demo";
import type { AuditRecord, List } from "../api/types";
import { actorName, Ago, Chip, PanelError } from "../ui";

const TYPES = ["", "syncerror", "finance", "governance", "connector", "settings", "ai", "dlp", "session", "mcp"];

function localInput(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function AuditPanel() {
  const [type, setType] = useState("");
  const [from, setFrom] = useState(localInput(new Date(Date.now() - 24 * 3600_000)));
  const [to, setTo] = useState(localInput(new Date(Date.now() + 60_000)));
  const [rows, setRows] = useState<AuditRecord[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);

  const load = async (cursor: string | null) => {
    const q = new URLSearchParams({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), limit: "50" });
    if (type) q.set("actionType", type);
    if (cursor) q.set("cursor", cursor);
    let r;
    try {
      r = await read<List<AuditRecord>>("/api/audit?" + q, demoAudit);
    } catch (e) {
      setFailed(e);
      return;
    }
    setFailed(null);
    setRows((prev) => (cursor ? [...prev, ...r.data.items] : r.data.items));
    setNext(r.data.nextCursor);
  };
  useEffect(() => {
    void load(null);
  }, [type, from, to]);

  return (
    <section aria-labelledby="audit-h">
      <div class="toolbar">
        <h1 id="audit-h">Audit log</h1>
        <label>Action type{" "}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            {TYPES.map((t) => <option value={t}>{t || "all"}</option>)}
          </select>
        </label>
        <label>From <input type="datetime-local" value={from} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} /></label>
        <label>To <input type="datetime-local" value={to} onChange={(e) => setTo((e.target as HTMLInputElement).value)} /></label>
      </div>
      {failed !== null && <PanelError what="The audit log" error={failed} onRetry={() => void load(null)} />}
      <table class="grid">
        <thead><tr><th scope="col">When</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Result</th><th scope="col">Resource</th><th scope="col">Details</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td><Ago at={r.at} /></td><td>{actorName(r.actor?.actor)}</td><td class="mono">{r.actionKey}</td>
              <td><Chip kind={r.result}>{r.result}</Chip></td><td class="mono">{r.resource}</td>
              <td>{r.details ? <details><summary>details</summary><pre>{JSON.stringify(r.details, null, 2)}</pre></details> : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && failed === null && <p class="empty">No records in this range.</p>}
      {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
    </section>
  );
}
