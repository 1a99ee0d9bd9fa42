// Flows: the runs of the tenant's flows, newest first, filtered by outcome; a run reads
// source event → mapped fields → guard decision → target result, and a failed one links
// to the sync error it became. Above the runs, each target system's health; admins also see
// the flow definitions with each flow's last run and failures. Like the queue: the outcome
// filter is in the URL, a shared link opens its run from any page, and below 1024 px list
// and detail are two views with a way back.
import { useEffect, useState } from "preact/hooks";
import { read, readQuiet, write } from "../api/client";
import { demoFlowRuns, demoFlows } from "../api/demo";
import type { Flow, FlowRun, FlowSaved, FlowStatus, List } from "../api/types";
import { navigate, segments } from "../router";
import { Ago, announce, Chip, ConfirmDialog, PanelError, showError } from "../ui";
import { CycleNotice } from "./flow-cycles";
import { FlowEditor } from "./flow-editor";
import { XRefs } from "./flow-xrefs";

const OUTCOMES = ["", "failed", "retrying", "rejected", "loop_broken", "held", "written", "skipped"] as const;

export function FlowsPanel({ admin }: { admin: boolean }) {
  const [outcome, setOutcome] = useState<string>(() => {
    const o = new URLSearchParams(location.search).get("outcome") ?? "";
    return (OUTCOMES as readonly string[]).includes(o) ? o : "";
  });
  const [rows, setRows] = useState<FlowRun[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [demo, setDemo] = useState(false);
  const [status, setStatus] = useState<FlowStatus | null>(null);
  const selected = segments()[1];

  const load = async (cursor: string | null) => {
    const q = new URLSearchParams({ limit: "50" });
    if (outcome) q.set("outcome", outcome);
    if (cursor) q.set("cursor", cursor);
    setLoading(true);
    let r;
    try {
      r = await read<List<FlowRun>>("/api/flows/runs?" + q, demoFlowRuns);
    } catch (e) {
      setFailed(e);
      setLoading(false);
      return;
    }
    setFailed(null);
    setDemo(r.demo);
    setRows((prev) => (cursor ? [...prev, ...r.data.items] : r.data.items));
    setNext(r.data.nextCursor);
    setLoading(false);
  };
  useEffect(() => {
    // Only the outcome is this list's: the cross-reference lookup keeps its own parameters.
    const q = new URLSearchParams(location.search);
    if (outcome) q.set("outcome", outcome);
    else q.delete("outcome");
    const qs = q.size ? "?" + q : "";
    if (qs !== location.search) history.replaceState(null, "", location.pathname + qs);
    void load(null);
  }, [outcome]);
  useEffect(() => void readQuiet<FlowStatus>("/api/flows/status").then(setStatus), []);

  // A linked run that is not in the list (another page or outcome) is read on its own.
  const listed = rows.find((r) => r.id === selected);
  const [linked, setLinked] = useState<FlowRun | null>(null);
  useEffect(() => {
    if (!selected || listed || linked?.id === selected || loading || demo) return;
    read<FlowRun>("/api/flows/runs/" + encodeURIComponent(selected), () => { throw new Error("not in demo data"); })
      .then((r) => setLinked(r.data), setFailed);
  }, [selected, listed, loading, demo]);
  const run = listed ?? (linked?.id === selected ? linked : undefined);
  const open = (id: string) => navigate("/flows/" + id + location.search);
  return (
    <div class={run ? "split has-detail" : "split"}>
      <section class="list" aria-labelledby="flows-h">
        <div class="toolbar">
          <h1 id="flows-h">Flow runs</h1>
          <label>Outcome{" "}
            <select value={outcome} onChange={(e) => setOutcome((e.target as HTMLSelectElement).value)}>
              {OUTCOMES.map((o) => <option value={o}>{o || "all"}</option>)}
            </select>
          </label>
        </div>
        {status && <SystemHealth systems={status.systems} />}
        {failed !== null && <PanelError what="Flow runs" error={failed} onRetry={() => void load(null)} />}
        {/* Below 760 px each run is a card of labelled values (style.css: .grid.runs). */}
        <table class="grid runs">
          <thead><tr><th scope="col">Run</th><th scope="col">Flow</th><th scope="col">Record</th><th scope="col">Fields</th><th scope="col">When</th><th scope="col">Outcome</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} tabIndex={0} class={r.id === selected ? "selected" : ""} aria-selected={r.id === selected}
                onClick={() => open(r.id)} onKeyDown={(e) => e.key === "Enter" && open(r.id)}>
                <td class="mono" data-label="Run">{r.id.slice(0, 12)}…</td><td data-label="Flow">{r.flowId}</td>
                <td data-label="Record">{r.target.system}/{r.target.entity} <span class="mono">{r.recordId}</span></td>
                <td data-label="Fields">{(r.fields ?? []).join(", ")}</td><td data-label="When"><Ago at={r.createdAt} /></td>
                <td data-label="Outcome"><Chip kind={r.outcome}>{r.outcome.replace("_", " ")}</Chip></td>
              </tr>
            ))}
          </tbody>
        </table>
        {loading && rows.length === 0 && failed === null && <p class="note" aria-busy="true">Loading flow runs…</p>}
        {!loading && rows.length === 0 && failed === null && <p class="empty">No {outcome ? outcome.replace("_", " ") + " " : ""}runs.</p>}
        {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
        {admin && <FlowDefinitions status={status} />}
        <XRefs admin={admin} />
      </section>
      {run && <RunDetail key={run.id} run={run} onBack={() => navigate("/flows" + location.search)} />}
    </div>
  );
}

const HEALTH_WORDS: Record<string, string> = {
  ok: "every write landed", degraded: "some writes failed", failing: "the newest writes failed", idle: "no writes",
};

/** SystemHealth is each target system's health over the status window, judged from its
 *  write attempts, with the newest failure: where an operator looks first. */
function SystemHealth({ systems }: { systems: FlowStatus["systems"] }) {
  if (systems.length === 0) return null;
  return (
    <ul class="health" aria-label="Target systems">
      {systems.map((s) => (
        <li key={s.system}>
          <strong>{s.system}</strong> <Chip kind={s.health === "ok" ? "written" : s.health === "idle" ? "skipped" : "failed"}>{s.health}</Chip>
          <span class="note"> {HEALTH_WORDS[s.health] ?? ""}{s.lastFailureAt && <>; last failure <Ago at={s.lastFailureAt} />{s.lastFailure ? `: ${s.lastFailure}` : ""}</>}</span>
        </li>
      ))}
    </ul>
  );
}

function RunDetail({ run, onBack }: { run: FlowRun; onBack: () => void }) {
  return (
    <section class="detail" aria-labelledby="run-h">
      <button type="button" class="link back" onClick={onBack}>← Back to flow runs</button>
      <h2 id="run-h">Run <span class="mono">{run.id}</span></h2>
      <dl class="steps">
        <dt>Source event</dt>
        <dd>{run.source.system}/{run.source.entity} <span class="mono">{run.recordId}</span>, event <span class="mono">{run.eventId}</span>, changed <Ago at={run.changedAt} /></dd>
        <dt>Mapped fields</dt>
        <dd>{(run.fields ?? []).length ? (run.fields ?? []).join(", ") : "none"}{run.dropped?.length ? ` (dropped by source_wins: ${run.dropped.join(", ")})` : ""}{run.looped?.length ? ` (not written, would loop: ${run.looped.join(", ")})` : ""}{run.superseded?.length ? ` (not written, a newer change wrote them: ${run.superseded.join(", ")})` : ""}</dd>
        <dt>Guard decision and target result</dt>
        <dd><Chip kind={run.outcome}>{run.outcome.replace("_", " ")}</Chip> {run.decision}</dd>
        <dt>Attempts</dt>
        <dd>{run.attempts}{run.nextAttemptAt && <>; next <Ago at={run.nextAttemptAt} /></>}</dd>
      </dl>
      {run.syncErrorId && (
        <p>This failure is a sync error in the queue:{" "}
          <a href={"/queue/" + run.syncErrorId} onClick={(e) => { e.preventDefault(); navigate("/queue/" + run.syncErrorId); }}>{run.syncErrorId}</a>
        </p>
      )}
      {run.approvalId && (
        <p>Held for an ownership approval: <a href="/governance" onClick={(e) => { e.preventDefault(); navigate("/governance"); }}>{run.approvalId}</a></p>
      )}
    </section>
  );
}

/** FlowDefinitions lists the flows, and lets an admin create, change and delete them:
 *  under the runs, and alone as the embedded field-mapping module. The poll status is a
 *  decoration read quietly: an embedded field-mapping context may not read the
 *  integration status, and then shows none. */
export function FlowDefinitions({ status: given }: { status?: FlowStatus | null }) {
  const [flows, setFlows] = useState<Flow[] | null>(null);
  const [demo, setDemo] = useState(false);
  const [own, setStatus] = useState<FlowStatus | null>(null);
  const status = given ?? own;
  const polls = status?.polls ?? [];
  const [editing, setEditing] = useState<Flow | "new" | null>(null);
  const [deleting, setDeleting] = useState<Flow | null>(null);
  // The flows and the poll status are read at once: neither waits on the other.
  const [failed, setFailed] = useState<unknown>(null);
  const load = async () => {
    try {
      const [r, st] = await Promise.all([read<{ items: Flow[] }>("/api/settings/flows", demoFlows),
        given === undefined ? readQuiet<FlowStatus>("/api/flows/status") : Promise.resolve(null)]);
      setFlows(r.data.items);
      setDemo(r.demo);
      setStatus(st);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  useEffect(() => {
    void load();
  }, []);
  // The last save's cycles stay shown until dismissed or the next save.
  const [closed, setClosed] = useState<FlowSaved | null>(null);
  const saved = async (f: FlowSaved) => {
    setEditing(null);
    setClosed(f.cycles.length ? f : null);
    await load();
    announce(`Saved flow ${f.id}` + (f.cycles.length ? `; it closes ${f.cycles.length === 1 ? "a cycle" : f.cycles.length + " cycles"}` : ""));
  };
  const remove = async (f: Flow) => {
    setDeleting(null);
    try {
      await write("DELETE", "/api/settings/flows/" + encodeURIComponent(f.id));
      await load();
      announce(`Deleted flow ${f.id}; its runs stay readable`);
    } catch (e) {
      showError(e);
    }
  };
  if (failed !== null) return <PanelError what="Flows" error={failed} onRetry={() => void load()} />;
  if (!flows) return <p aria-busy="true">Loading flows…</p>;
  return (
    <section aria-labelledby="defs-h" class="flow-defs">
      <div class="toolbar">
        <h2 id="defs-h">Flows</h2>
        <button type="button" disabled={demo || editing !== null} onClick={() => setEditing("new")}>New flow</button>
      </div>
      {closed && <CycleNotice flowId={closed.id} cycles={closed.cycles} onClose={() => setClosed(null)} />}
      {editing === "new" && <FlowEditor onSaved={saved} onCancel={() => setEditing(null)} reload={load} />}
      <table class="grid">
        <thead><tr><th scope="col">Flow</th><th scope="col">Source → target</th><th scope="col">Trigger</th><th scope="col">Mapping (target ← source)</th><th scope="col">Filter</th><th scope="col">Last run</th><th scope="col">State</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
        <tbody>
          {flows.map((f) => (
            <>
              <tr key={f.id}>
                <td class="mono">{f.id}</td>
                <td>{f.source.system}/{f.source.entity} → {f.target.system}/{f.target.entity}</td>
                <td><Trigger flow={f} polls={polls} /></td>
                <td>{Object.entries(f.mapping).map(([t, s]) => `${t} ← ${s}`).join(", ")}</td>
                <td>{f.filter ? Object.entries(f.filter).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ") : "—"}</td>
                <td><LastRun flow={f} status={status} /></td>
                <td><Chip kind={f.enabled ? "written" : "skipped"}>{f.enabled ? "enabled" : "disabled"}</Chip></td>
                <td class="row-actions">
                  <button type="button" disabled={demo || editing !== null} onClick={() => setEditing(f)}>Edit<span class="sr-live"> {f.id}</span></button>
                  <button type="button" disabled={demo || editing !== null} onClick={() => setDeleting(f)}>Delete<span class="sr-live"> {f.id}</span></button>
                </td>
              </tr>
              {editing !== "new" && editing?.id === f.id && (
                <tr><td colSpan={8}><FlowEditor flow={f} onSaved={saved} onCancel={() => setEditing(null)} reload={load} /></td></tr>
              )}
            </>
          ))}
        </tbody>
      </table>
      {flows.length === 0 && <p class="empty">No flows yet: “New flow” defines one (or PUT /api/settings/flows/&#123;id&#125;).</p>}
      {deleting && (
        <ConfirmDialog title={`Delete flow ${deleting.id}?`} confirm="Delete" onConfirm={() => void remove(deleting)} onClose={() => setDeleting(null)}>
          <p>{deleting.source.system}/{deleting.source.entity} → {deleting.target.system}/{deleting.target.entity} stops running. Its runs stay readable.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

// LastRun is a flow's newest run in the status window and how many of its runs failed.
function LastRun({ flow, status }: { flow: Flow; status: FlowStatus | null }) {
  const s = status?.flows.find((x) => x.flowId === flow.id);
  if (!s) return <>—</>;
  const failed = (s.counts.failed ?? 0) + (s.counts.rejected ?? 0);
  return <><Ago at={s.lastRunAt} />{failed > 0 && <> <Chip kind="failed">{failed} failed</Chip></>}</>;
}

// Trigger says how a flow hears of changes; a polled one says when its source was last
// read and why the last read failed, which is what an admin needs when nothing arrives.
function Trigger({ flow, polls }: { flow: Flow; polls: FlowStatus["polls"] }) {
  if (flow.trigger !== "poll") return <>event</>;
  const w = polls.find((p) => p.source.system === flow.source.system && p.source.entity === flow.source.entity);
  if (!flow.enabled || !w) return <>poll</>;
  return (
    <>
      poll · {w.polledAt ? <>read <Ago at={w.polledAt} /></> : "not read yet"}
      {w.error && <> <Chip kind="failed">{w.error}</Chip></>}
    </>
  );
}
