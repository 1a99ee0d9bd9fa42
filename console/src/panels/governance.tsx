// Governance: held writes waiting for an approver, and what the guard refused or broke
// in the last hour, each paged with the API's cursors. Each row says which system tried to
// write which fields of which record, and which rule decided.
import { useState } from "preact/hooks";
import { ApiError, write } from "../api/client";
import { demoApprovals, demoLoops, demoRejections } from "../api/demo";
import type { GovernanceApproval, List, LoopDetection, OwnershipRejection } from "../api/types";
import { MoreRows, type Paged, usePaged } from "../paging";
import { actorName, Ago, announce, AskDialog, Chip, ConfirmDialog, PanelError, plural, showError } from "../ui";

const TABS = ["Pending approvals", "Ownership rejections", "Loop detections"] as const;

export function GovernancePanel() {
  const [tab, setTab] = useState<(typeof TABS)[number]>(TABS[0]);
  return (
    <section aria-labelledby="gov-h">
      <h1 id="gov-h">Governance</h1>
      <div role="tablist" aria-label="Governance records">
        {TABS.map((t, i) => (
          <button type="button" role="tab" id={"tab-" + i} aria-controls={"tabpanel-" + i} aria-selected={tab === t} onClick={() => setTab(t)}>{t}</button>
        ))}
      </div>
      <div role="tabpanel" id={"tabpanel-" + TABS.indexOf(tab)} aria-labelledby={"tab-" + TABS.indexOf(tab)}>
        {tab === TABS[0] && <Approvals />}
        {tab === TABS[1] && <Window<OwnershipRejection> path="/api/governance/ownership-rejections" demo={demoRejections}
          cols={["Time", "Write", "Record", "Declared owner", "Policy", "Correlation"]}
          cells={(r) => [<Ago at={r.time} />, <Attempt w={r} />, <span class="mono">{r.resource}</span>, r.declaredOwner, <Chip>{r.policy}</Chip>, <code>{r.correlationId}</code>]} />}
        {tab === TABS[2] && <Window<LoopDetection> path="/api/governance/loop-detections" demo={demoLoops}
          cols={["Time", "Write", "Record", "Breaking condition", "Correlation"]}
          cells={(r) => [<Ago at={r.time} />, <Attempt w={r} />, <span class="mono">{r.resource}</span>, r.breakingCondition, <code>{r.correlationId}</code>]} />}
      </div>
    </section>
  );
}

/** Attempt is the write the guard judged: which system wrote to which, and which fields. */
function Attempt({ w }: { w: { caller?: string; target?: string; entity: string; fields?: string[] } }) {
  return <>{w.caller ?? "?"} → {w.target ?? "?"}: {w.entity}{w.fields?.length ? <span class="note"> {w.fields.join(", ")}</span> : null}</>;
}

/** What an approve did, in the approver's words. A release by retry wrote nothing: the
 *  operation that asked writes it when it is approved again (the API's message says so). */
function approvedNote(a: GovernanceApproval, done: GovernanceApproval): string {
  if (done.releaseByRetry) return `Approved the held write to ${a.resource}. ${done.message ?? "Nothing was written yet: the operation that asked writes it when it is approved again."}`;
  return `Approved the held write to ${a.resource}; it was written`;
}

const noUnsettled = (): List<GovernanceApproval> => ({ nextCursor: null, items: [] });

/** Settle is an approver's word on an unsettled release, having checked the record. */
type Settle = { settle: "written" | "not_written"; recordId?: string };

function settledNote(a: GovernanceApproval, s: Settle): string {
  return s.settle === "written"
    ? `Settled the write to ${a.resource} as written: it is approved, and nothing was sent again`
    : `Settled the write to ${a.resource} as not written: it is back with the held writes, to approve or deny`;
}

function Approvals() {
  const paged = usePaged<GovernanceApproval>("/api/governance/approvals?reason=ownership&status=pending", demoApprovals);
  // Releases whose write's answer was lost: they may have landed, cannot be denied, and
  // are settled by an approver's word (or an update by approving it again). A slot of its
  // own: read beside the pending list, it must not abort that read.
  const unsettled = usePaged<GovernanceApproval>("/api/governance/approvals?reason=ownership&status=unsettled", noUnsettled, 50, "governance-unsettled");
  const decide = async (a: GovernanceApproval, action: "approve" | "deny", settle?: Settle) => {
    try {
      const done = await write<GovernanceApproval>("POST", `/api/governance/approvals/${a.id}/${action}`, settle);
      announce(settle ? settledNote(a, settle) : action === "approve" ? approvedNote(a, done) : `Denied the held write to ${a.resource}`);
    } catch (e) {
      showError(e);
      paged.reload(); // someone may have acted first: show the list as it stands
      // A release whose answer was lost (or a create's release taken over) moved the
      // approval to the unsettled list.
      if (e instanceof ApiError && (e.code === "release_unsettled" || e.code === "unsettled_create")) unsettled.reload();
      return;
    }
    // Decided: it is no longer pending (nor unsettled), and the pages loaded so far keep their place.
    paged.setRows((rs) => rs.filter((x) => x.id !== a.id));
    unsettled.setRows((rs) => rs.filter((x) => x.id !== a.id));
    // Settled as not written: it is pending again, and listed there.
    if (settle?.settle === "not_written") paged.reload();
  };
  const rows = paged.rows;
  if (paged.failed !== null) return <PanelError what="Held writes" error={paged.failed} onRetry={paged.reload} />;
  if (!rows) return <p aria-busy="true">Loading…</p>;
  const settle = <Unsettled paged={unsettled} settle={(a, how) => void decide(a, "approve", how)} />;
  if (rows.length === 0 && !paged.page?.nextCursor) return <><p class="empty">No held writes wait for an approver.</p>{settle}</>;
  return (
    <>
      <table class="grid">
        <thead><tr><th scope="col">Time</th><th scope="col">Write</th><th scope="col">Record</th><th scope="col">Declared owner</th><th scope="col">Asked by</th><th scope="col">Why</th><th scope="col">Decision</th></tr></thead>
        <tbody>
          {rows.map((a) => (
            <tr key={a.id}>
              <td><Ago at={a.time} /></td><td><Attempt w={a} /></td><td class="mono">{a.resource}</td>
              <td>{a.declaredOwner}<div class="note">{a.reason}</div></td><td>{a.requestedBy ? actorName(a.requestedBy) : "—"}</td>
              <td>{a.writeReason || "—"}{a.releaseByRetry && <div class="note">Approving allows the write but does not make it: it is written when {a.requestedBy ? actorName(a.requestedBy) : "the requester"} approves (or retries) it again.</div>}</td>
              <td class="actions">
                <button type="button" class="primary" disabled={paged.demo} onClick={() => void decide(a, "approve")}>Approve</button>
                <button type="button" disabled={paged.demo} onClick={() => void decide(a, "deny")}>Deny</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreRows paged={paged} noun={(n) => plural(n, "held write")} />
      {settle}
    </>
  );
}

/** Unsettled lists the releases whose write's answer was lost: the write may be in the
 *  record, so they cannot be denied until an approver who checked the record says whether
 *  it holds the write. An update may also be approved again (sent under the same key, not
 *  applied twice); a create never is, as a second create is a second record. Hidden while
 *  there are none. */
function Unsettled(props: { paged: Paged<GovernanceApproval, List<GovernanceApproval>>; settle: (a: GovernanceApproval, how?: Settle) => void }) {
  const { paged } = props;
  const [asking, setAsking] = useState<{ a: GovernanceApproval; how: Settle["settle"] } | null>(null);
  if (paged.failed !== null) return <PanelError what="Unsettled releases" error={paged.failed} onRetry={paged.reload} />;
  if (!paged.rows || paged.rows.length === 0) return null;
  const done = (a: GovernanceApproval, how: Settle) => { setAsking(null); props.settle(a, how); };
  return (
    <>
      <h2>Releases not settled</h2>
      <p class="note">The answer to these writes was lost, so they may have been written. Check the record in the target system, then say what you found: written, or not written (it goes back to the held writes, where it can be denied). An update can also be approved again: it is sent again and not applied twice. A create is never sent again, since that would make a second record.</p>
      <table class="grid">
        <thead><tr><th scope="col">Time</th><th scope="col">Write</th><th scope="col">Record</th><th scope="col">Released by</th><th scope="col">Decision</th></tr></thead>
        <tbody>
          {paged.rows.map((a) => (
            <tr key={a.id}>
              <td><Ago at={a.time} /></td><td><Attempt w={a} /></td><td class="mono">{a.resource}{a.create && <div class="note">Creates a record</div>}</td>
              <td>{a.decidedBy ? actorName(a.decidedBy) : "—"}</td>
              <td class="actions">
                {!a.create && <button type="button" class="primary" disabled={paged.demo} onClick={() => props.settle(a)}>Approve again</button>}
                <button type="button" disabled={paged.demo} onClick={() => setAsking({ a, how: "written" })}>It was written</button>
                <button type="button" disabled={paged.demo} onClick={() => setAsking({ a, how: "not_written" })}>It was not written</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreRows paged={paged} noun={(n) => plural(n, "unsettled release")} />
      {asking?.how === "written" && asking.a.create && (
        <AskDialog title="The record was created" label={`Id of the record it created in ${asking.a.target ?? "the target system"}`} confirm="Settle as written"
          onClose={() => setAsking(null)} onConfirm={(id) => done(asking.a, { settle: "written", recordId: id })} />
      )}
      {asking?.how === "written" && !asking.a.create && (
        <ConfirmDialog title="The write is in the record" confirm="Settle as written" onClose={() => setAsking(null)}
          onConfirm={() => done(asking.a, { settle: "written" })}>
          <p>Only if {asking.a.resource} holds this write ({asking.a.fields?.join(", ")}). The approval is approved and recorded as written; nothing is sent.</p>
        </ConfirmDialog>
      )}
      {asking?.how === "not_written" && (
        <ConfirmDialog title="The write is not in the record" confirm="Settle as not written" onClose={() => setAsking(null)}
          onConfirm={() => done(asking.a, { settle: "not_written" })}>
          <p>Only if {asking.a.create ? `no such record was created in ${asking.a.target ?? "the target system"}` : `${asking.a.resource} shows none of this write`}. A write whose answer was lost can still land a little later: look again after a few minutes. The approval goes back to the held writes, where it can be approved (sent again) or denied.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function Window<T extends { id: string }>(props: { path: string; demo: () => List<T>; cols: string[]; cells: (r: T) => unknown[] }) {
  const paged = usePaged<T>(props.path, props.demo);
  const rows = paged.rows;
  if (paged.failed !== null) return <PanelError what="These records" error={paged.failed} onRetry={paged.reload} />;
  if (!rows) return <p aria-busy="true">Loading…</p>;
  if (rows.length === 0) return <p class="empty">None in the last hour.</p>;
  return (
    <>
      <table class="grid">
        <thead><tr>{props.cols.map((c) => <th scope="col">{c}</th>)}</tr></thead>
        <tbody>{rows.map((r) => <tr key={r.id}>{props.cells(r).map((c) => <td>{c as string}</td>)}</tr>)}</tbody>
      </table>
      <MoreRows paged={paged} noun={(n) => plural(n, "record")} />
    </>
  );
}
