// Finance approvals: approve runs the two-stage lease on the server (applying, then
// accepted or back to pending with the reason); the panel shows each stage as it happens.
// It follows the queue's pattern: the status filter in the URL, a shared link opens its
// approval even when it is not on the first page, a and r act on the open approval, and
// below 1024 px list and detail are two views with a way back.
import { useEffect, useState } from "preact/hooks";
import { type ApiError, read, write } from "../api/client";
import { demoFinance } from "../api/demo";
import type { FinanceApproval, List } from "../api/types";
import { useKeys } from "../keys";
import { navigate, segments } from "../router";
import { Ago, announce, AskDialog, Chip, ConfirmDialog, Key, Money, PanelError, shortcutKey, showError } from "../ui";

const STATUSES = ["pending", "applying", "accepted", "rejected"];

export function FinancePanel({ canApprove }: { canApprove: boolean }) {
  const [status, setStatus] = useState(() => {
    const s = new URLSearchParams(location.search).get("status") ?? "pending";
    return STATUSES.includes(s) ? s : "pending";
  });
  const [rows, setRows] = useState<FinanceApproval[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [demo, setDemo] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const selected = segments()[1];

  const load = async (cursor: string | null) => {
    const q = new URLSearchParams({ status, limit: "25" });
    if (cursor) q.set("cursor", cursor);
    setLoading(true);
    let r;
    try {
      r = await read<List<FinanceApproval>>("/api/finance-ops/approvals?" + q, demoFinance);
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
    const qs = status === "pending" ? "" : "?status=" + status;
    if (qs !== location.search) history.replaceState(null, "", location.pathname + qs);
    void load(null);
  }, [status]);

  // A decided approval leaves the list it no longer matches, but its detail stays on screen
  // until the approver moves on, so the outcome can be read. A linked approval that is not
  // in the list (another page or status) is read on its own.
  const [last, setLast] = useState<FinanceApproval | null>(null);
  const listed = rows.find((r) => r.id === selected);
  useEffect(() => {
    if (!selected || listed || last?.id === selected || loading || demo) return;
    read<FinanceApproval>(`/api/finance-ops/approvals/${encodeURIComponent(selected)}`, () => { throw new Error("not in demo data"); })
      .then((r) => setLast(r.data), setFailed);
  }, [selected, listed, loading, demo]);
  const row = listed ?? (last?.id === selected ? last : undefined);
  const back = () => navigate("/finance" + location.search);
  return (
    <div class={row ? "split has-detail" : "split"}>
      <section class="list" aria-labelledby="fin-h">
        <div class="toolbar">
          <h1 id="fin-h">Finance approvals</h1>
          <label>Status{" "}
            <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
              {STATUSES.map((s) => <option value={s}>{s}</option>)}
            </select>
          </label>
        </div>
        {failed !== null && <PanelError what="Finance approvals" error={failed} onRetry={() => void load(null)} />}
        <table class="grid">
          <thead><tr><th scope="col">Approval</th><th scope="col">Vendor</th><th scope="col">Amount</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id} tabIndex={0} class={r.id === selected ? "selected" : ""} aria-selected={r.id === selected}
                onClick={() => navigate("/finance/" + r.id + location.search)} onKeyDown={(e) => e.key === "Enter" && navigate("/finance/" + r.id + location.search)}>
                <td class="mono">{r.id}</td><td>{r.vendor}</td><td><Money amount={r.amount} currency={r.currency} /></td>
                <td><Ago at={r.createdAt} /></td><td><Chip kind={r.status}>{r.status}</Chip></td>
              </tr>
            ))}
          </tbody>
        </table>
        {loading && rows.length === 0 && failed === null && <p class="note" aria-busy="true">Loading finance approvals…</p>}
        {!loading && rows.length === 0 && failed === null && <p class="empty">No {status} approvals.</p>}
        {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
      </section>
      {row && <FinanceDetail key={row.id} row={row} demo={demo} canApprove={canApprove} onBack={back}
        onChange={(r) => {
          setLast(r);
          // Kept where it still matches the filter; an approval opened by link that now matches it joins the list.
          setRows((all) => {
            const kept = all.flatMap((x) => (x.id !== r.id ? [x] : r.status === status || r.status === "applying" ? [r] : []));
            return r.status === status && !all.some((x) => x.id === r.id) ? [r, ...kept] : kept;
          });
        }} />}
    </div>
  );
}

function FinanceDetail(props: { row: FinanceApproval; demo: boolean; canApprove: boolean; onChange: (r: FinanceApproval) => void; onBack: () => void }) {
  const { row, demo, canApprove } = props;
  const [stage, setStage] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const decidable = canApprove && row.status === "pending" && !demo && !stage;

  // Above the tenant's confirmation threshold the API answers 428 confirmation_required
  // and changes nothing; the approver is asked with the threshold, the record and the
  // values the approve writes (the problem names them), and confirms.
  const [confirming, setConfirming] = useState<Confirmation | null>(null);
  // Four eyes: the requester may not approve their own request; the API says so per viewer.
  const own = !!row.ownRequest;
  const approve = async (confirm?: boolean) => {
    setStage("Applying: lease taken, updating the ERP…");
    try {
      const done = await write<FinanceApproval & { message?: string }>("POST", `/api/finance-ops/approvals/${row.id}/approve`, confirm && { confirm });
      setStage(null);
      // 202: the ERP was updated and the approval is completed by the sweep.
      announce(done.message ? `${row.id}: ${done.message}` : `Approved ${row.id}: ${done.status}`);
      props.onChange(done);
    } catch (e) {
      setStage(null);
      if ((e as ApiError).code === "confirmation_required") return setConfirming(confirmationOf(e as ApiError, row));
      showError(e);
      try {
        const r = await read<FinanceApproval>(`/api/finance-ops/approvals/${row.id}`, () => row);
        props.onChange(r.data); // back to pending, with the failure reason on the row
      } catch {
        // the write's error is already shown; the row stays as it was
      }
    }
  };
  useKeys((e) => {
    if (!decidable || asking || confirming || !shortcutKey(e)) return;
    if (e.key === "a" && row.erpId && !own) void approve();
    if (e.key === "r") setAsking(true);
  });
  const reject = async (reason: string) => {
    try {
      const done = await write<FinanceApproval>("POST", `/api/finance-ops/approvals/${row.id}/reject`, { reason });
      announce(`Rejected ${row.id}`);
      props.onChange(done);
    } catch (e) {
      showError(e);
    }
  };
  return (
    <section class="detail" aria-labelledby="fin-d">
      <button type="button" class="link back" onClick={props.onBack}>← Back to finance approvals</button>
      <h2 id="fin-d" class="mono">{row.id}</h2>
      <p><Chip kind={row.status}>{row.status}</Chip> {row.entity} {row.erpId ?? "(no ERP id)"}</p>
      <dl>
        <dt>Vendor</dt><dd>{row.vendor}</dd>
        <dt>Amount</dt><dd><Money amount={row.amount} currency={row.currency} /></dd>
        <dt>Description</dt><dd>{row.description || "—"}</dd>
        <dt>Requested by</dt><dd>{row.requestedBy || "—"}</dd>
        {row.decidedBy && <><dt>Decided by</dt><dd>{row.decidedBy}</dd></>}
      </dl>
      {row.lastError && <p class="warn">Last attempt failed: {row.lastError}</p>}
      {stage && <p class="progress" aria-live="polite">{stage}</p>}
      {canApprove && row.status === "pending" && !row.erpId && (
        <p class="note">Approve is not offered: this approval names no ERP record to update. Ask the ERP to send it again with its record id, or reject it.</p>
      )}
      {!canApprove && row.status === "pending" && <p class="note">An approver approves or rejects finance approvals.</p>}
      {canApprove && row.status === "pending" && own && (
        <p class="note">Approve is not offered: you requested this approval, and another approver must approve it (four eyes). You can reject it.</p>
      )}
      {canApprove && row.status === "pending" && (
        <div class="actions">
          {row.erpId && !own && <button type="button" class="primary" disabled={demo || !!stage} aria-keyshortcuts="a" onClick={() => void approve()}>Approve <Key k="a" /></button>}
          <button type="button" disabled={demo || !!stage} aria-keyshortcuts="r" onClick={() => setAsking(true)}>Reject <Key k="r" /></button>
        </div>
      )}
      {confirming && <ConfirmDialog title={`Approve ${row.id}?`} confirm="Approve" onClose={() => setConfirming(null)}
        onConfirm={() => { setConfirming(null); void approve(true); }}>
        <p><Money amount={confirming.amount} currency={confirming.currency} /> for {row.vendor} is above your tenant's
          confirmation threshold of <Money amount={confirming.threshold} currency={confirming.currency} />.</p>
        <p>Approving writes to {confirming.entity} <code>{confirming.erpId}</code> in the ERP:</p>
        <ul class="fix-list">{Object.entries(confirming.fields).map(([k, v]) => <li><code>{k}</code> = {JSON.stringify(v)}</li>)}</ul>
      </ConfirmDialog>}
      {asking && <AskDialog title="Reject finance approval" label="Reason" confirm="Reject" onClose={() => setAsking(false)} onConfirm={(t) => { setAsking(false); void reject(t); }} />}
    </section>
  );
}

/** Confirmation is what a 428 confirmation_required names: the tenant's threshold, the
 *  amount, and the record and values the approve writes. */
interface Confirmation {
  threshold: string;
  amount: string;
  currency: string;
  erpId: string;
  entity: string;
  fields: Record<string, unknown>;
}

/** confirmationOf reads the 428's members, falling back to the row for any it lacks. */
function confirmationOf(e: ApiError, row: FinanceApproval): Confirmation {
  const p = e.problem as Partial<Confirmation>;
  const fields = (p.fields ?? row.fields) as Record<string, unknown> | undefined;
  return { threshold: p.threshold ?? "?", amount: p.amount ?? row.amount ?? "", currency: p.currency ?? row.currency ?? "",
    erpId: p.erpId ?? row.erpId ?? "", entity: p.entity ?? row.entity ?? "", fields: fields && typeof fields === "object" ? fields : {} };
}
