// The sync-error queue: the list with filters and cursors, the grouped view, and the
// detail pane where an operator corrects and decides a proposal.
import { useEffect, useRef, useState } from "preact/hooks";
import { read, readQuiet } from "../api/client";
import { demoGroups, demoProposalList } from "../api/demo";
import type { List, Proposal, ProposalGroupList, ProposalList, ProposalSummary, SystemChoice } from "../api/types";
import { navigate, segments } from "../router";
import { actorName, announce, Ago, Chip, PanelError, plural, shortcutKey, showError } from "../ui";
import { useKeys } from "../keys";
import { BulkBar } from "./queue-bulk";
import { Detail } from "./queue-detail";

/** REFRESH_MS is how often the list looks for new errors (a 304 when nothing changed). */
const REFRESH_MS = 20_000;

/** open is what still waits on someone (pending, retrying, escalated); any is every status. */
const STATUSES = ["pending", "open", "any", "retrying", "applying", "approved", "rejected", "escalated", "resolved", "reverted"] as const;
const CLASSES = ["value", "missing", "reference", "duplicate", "permission", "connection", "intermittent", "rate_limit", "too_large", "parse"];
const AGES: Record<string, number> = { "last hour": 3600_000, "last 24 hours": 86400_000, "last 7 days": 7 * 86400_000 };
const SORTS = ["newest", "oldest", "class", "confidence", "escalated"] as const;
const WHOSE: Record<string, string> = { "": "anyone", me: "me", none: "nobody" };
/** DECIDERS say who can approve a row's fix for the signed-in person (the server's
 *  `decider`, from the tenant's approval policy): the chip on each row and its filter. */
export const DECIDERS: Record<string, string> = { you: "You can approve", approver: "Needs an approver", two_approvers: "Needs two approvers" };
/** SEARCH_DEBOUNCE_MS is how long typing pauses before the search runs; a newer search
 *  aborts the one in flight (the client aborts a read superseded by another query). */
export const SEARCH_DEBOUNCE_MS = 300;
const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** MAX_SYSTEM is the API's bound on the system filter (as on a record's externalSystem). */
const MAX_SYSTEM = 128;

/** The filters live in the URL's query, so a reload or a shared link keeps them. */
function filterParam(name: string, fallback: string, allowed: readonly string[]): string {
  const v = new URLSearchParams(location.search).get(name) ?? fallback;
  return allowed.includes(v) ? v : fallback;
}

/** QueuePanel is the queue; as the Escalated inbox (inbox) it lists what waits for an
 *  approver, newest escalation first, under its own address. */
export function QueuePanel({ canApprove, inbox = false }: { canApprove: boolean; inbox?: boolean }) {
  const base = inbox ? "/escalated" : "/queue";
  const [status, setStatus] = useState<string>(() => (inbox ? "escalated" : filterParam("status", "pending", STATUSES)));
  const [cls, setCls] = useState(() => filterParam("class", "", CLASSES));
  const [age, setAge] = useState(() => filterParam("age", "", Object.keys(AGES)));
  const defaultSort = inbox ? "escalated" : "newest";
  const [sort, setSort] = useState(() => filterParam("sort", defaultSort, SORTS));
  const [whose, setWhose] = useState(() => filterParam("assignee", "", Object.keys(WHOSE)));
  const [decider, setDecider] = useState(() => filterParam("decider", "", Object.keys(DECIDERS)));
  const [search, setSearch] = useState(() => new URLSearchParams(location.search).get("q") ?? "");
  const [typed, setTyped] = useState(search); // the search box as typed; search follows it, debounced
  const [tag, setTag] = useState(() => filterParam("tag", "", [new URLSearchParams(location.search).get("tag") ?? ""].filter((t) => TAG.test(t))));
  const [tagTyped, setTagTyped] = useState(tag);
  const searchBox = useRef<HTMLInputElement>(null);
  // The external system as the host names it, or the system it resolves to ("erp2" lists
  // rows sent as "Business Central" too; Settings › System names), compared without case.
  // The input offers every connector system of the tenant with its names (the listing's
  // first page brings them) and the other systems of the rows this panel has loaded.
  const [system, setSystem] = useState(() => (new URLSearchParams(location.search).get("system") ?? "").trim());
  const [seenSystems, setSeenSystems] = useState<string[]>([]);
  const [systems, setSystems] = useState<SystemChoice[]>([]);
  const [failed, setFailed] = useState<unknown>(null);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const anchor = useRef<string | null>(null);
  // The filter the listed rows were read by: a refresh of the same filter (after a bulk
  // action, or the outcome's "select the failed ones") keeps the picks still listed, so a
  // refresh that lands late never empties a selection the operator just made.
  const listedBy = useRef("");
  const [grouped, setGrouped] = useState(false);
  const [rows, setRows] = useState<ProposalSummary[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [demo, setDemo] = useState(false);
  const [loading, setLoading] = useState(true);
  const [groups, setGroups] = useState<ProposalGroupList | null>(null);
  const [version, setVersion] = useState(0);
  const selected = segments()[1];
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filtersOn = [cls, age, whose, decider, tag, system, sort !== defaultSort && sort].filter(Boolean).length;

  const query = (cursor: string | null) => {
    const q = new URLSearchParams({ status, limit: "25" });
    if (cls) q.set("class", cls);
    if (age) q.set("since", new Date(Date.now() - AGES[age]).toISOString());
    if (search) q.set("q", search);
    if (whose) q.set("assignee", whose);
    if (decider) q.set("decider", decider);
    if (tag) q.set("tag", tag);
    if (system) q.set("system", system);
    if (sort !== "newest") q.set("sort", sort);
    if (cursor) q.set("cursor", cursor);
    return q;
  };
  const load = async (cursor: string | null) => {
    setLoading(true);
    const q = query(cursor);
    let r;
    try {
      r = await read<ProposalList>("/api/sync-error-assist/proposals?" + q, () => {
        const d = demoProposalList();
        return { items: d.items.filter((p) => inStatus(p.status, status) && (!system || p.externalSystem === system)), nextCursor: null };
      });
    } catch (e) {
      setFailed(e);
      if (!cursor) setRows([]); // the rows of the filters before are not this filter's
      if (!cursor) listedBy.current = "";
      setLoading(false);
      return [];
    }
    setFailed(null);
    setDemo(r.demo);
    if (!cursor) {
      const by = new URLSearchParams(q);
      by.delete("since");
      const same = by.toString() === listedBy.current;
      listedBy.current = by.toString();
      const listed = new Set(r.data.items.map((i) => i.id));
      setPicked((prev) => (same ? new Set([...prev].filter((id) => listed.has(id))) : new Set()));
    }
    setRows((prev) => (cursor ? [...prev, ...r.data.items] : r.data.items));
    setSeenSystems((prev) => withSystems(prev, r.data.items));
    if (r.data.systems) setSystems(r.data.systems);
    setNext(r.data.nextCursor);
    setLoading(false);
    return r.data.items;
  };

  useEffect(() => {
    const q = new URLSearchParams();
    if (status !== "pending" && !inbox) q.set("status", status);
    if (cls) q.set("class", cls);
    if (age) q.set("age", age);
    if (search) q.set("q", search);
    if (whose) q.set("assignee", whose);
    if (decider) q.set("decider", decider);
    if (tag) q.set("tag", tag);
    if (system) q.set("system", system);
    if (sort !== defaultSort) q.set("sort", sort);
    const qs = q.size ? "?" + q : "";
    if (qs !== location.search) history.replaceState(null, "", location.pathname + qs);
    void load(null);
  }, [status, cls, age, search, whose, decider, tag, system, sort, version]);

  // Search as you type: the search runs once typing pauses (Enter runs it at once).
  useEffect(() => {
    if (typed.trim() === search) return;
    const t = setTimeout(() => setSearch(typed.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => {
    if (tagTyped.trim() === tag || (tagTyped.trim() && !TAG.test(tagTyped.trim()))) return;
    const t = setTimeout(() => setTag(tagTyped.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [tagTyped]);

  // Live refresh reads the first page again. Rows on it take its news (class, assignee…);
  // a row of its span that it no longer holds is read on its own, and marked (not removed)
  // when its status changed: a row that only left another filter (age, assignee) is not
  // "decided". New rows join at the top when the list is newest first (elsewhere they wait
  // for the next read, and are announced). Nothing moves under the cursor. A failed poll
  // is simply tried again later.
  const [left, setLeft] = useState<Map<string, string>>(new Map());
  const known = useRef<ProposalSummary[]>([]);
  known.current = rows;
  // Bumped when the filters change: a poll answered for the filters before is dropped,
  // or its rows would join a list they do not match.
  const filters = useRef(0);
  useEffect(() => {
    filters.current++;
    setLeft(new Map());
  }, [status, cls, age, search, whose, decider, tag, system, sort, version]);
  useEffect(() => {
    if (demo || grouped) return;
    const t = setInterval(() => {
      if (document.hidden) return;
      const asked = filters.current;
      void readQuiet<List<ProposalSummary>>("/api/sync-error-assist/proposals?" + query(null)).then(async (page) => {
        if (!page || asked !== filters.current) return;
        const { added, gone: candidates } = compare(known.current, page, sort);
        const byId = new Map(page.items.map((r) => [r.id, r]));
        setRows((prev) => [...(sort === "newest" ? added : []), ...prev.map((r) => byId.get(r.id) ?? r)]);
        const now = await Promise.all(candidates.slice(0, 10).map((id) =>
          readQuiet<ProposalSummary>("/api/sync-error-assist/proposals/" + encodeURIComponent(id))));
        if (asked !== filters.current) return;
        const gone = now.flatMap((r) => (r && !inStatus(r.status, status) ? [r] : []));
        setLeft((was) => {
          const next = new Map([...was].filter(([id]) => !byId.has(id))); // back in the list: not gone
          for (const r of gone) next.set(r.id, r.status);
          return next;
        });
        const news = [added.length ? `${plural(added.length, "new sync error")} in the queue` + (sort === "newest" ? "" : " (reload the list to see them)") : "",
          gone.length ? `${plural(gone.length, "sync error")} decided elsewhere` : ""].filter(Boolean);
        if (news.length) announce(news.join("; "));
      });
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [status, cls, age, search, whose, decider, tag, system, sort, demo, grouped]);

  // The grouped view's code is a chunk of its own, loaded when it is first shown (the
  // queue's first load stays within its budget); one that cannot load is the groups' error.
  const [groupsView, setGroupsView] = useState<typeof import("./queue-groups") | null>(null);
  useEffect(() => {
    if (grouped && !groupsView) import("./queue-groups").then(setGroupsView, setFailed);
  }, [grouped, version]);

  // Groups honour the class, age and system filters, as the list does.
  useEffect(() => {
    if (!grouped) return;
    const q = new URLSearchParams({ status: "pending" });
    if (cls) q.set("class", cls);
    if (age) q.set("since", new Date(Date.now() - AGES[age]).toISOString());
    if (system) q.set("system", system);
    setGroups(null);
    read<ProposalGroupList>("/api/sync-error-assist/proposal-groups?" + q, demoGroups).then((r) => {
      setGroups(r.data);
      setDemo(r.demo);
      setFailed(null);
    }, setFailed);
  }, [grouped, version, cls, age, system]);

  // j/k move through the list; j on the last loaded row reads the next page first. / goes
  // to the search box; x selects the focused row (else the open one) for a bulk decision.
  useKeys((e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "/" && shortcutKey(e)) {
      e.preventDefault();
      searchBox.current?.focus();
      return;
    }
    if (e.key === "x" && shortcutKey(e) && status === "pending") {
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement.closest<HTMLElement>("tr[data-id]")?.dataset.id : undefined;
      const id = focused ?? selected;
      if (id && rows.some((r) => r.id === id)) pick(id, false);
      return;
    }
    if (e.key !== "j" && e.key !== "k") return;
    const i = rows.findIndex((r) => r.id === selected);
    if (e.key === "j" && i === rows.length - 1 && next && !loading) {
      void load(next).then((more) => more[0] && open(more[0].id, false, base));
      return;
    }
    const to = rows[Math.max(0, Math.min(rows.length - 1, i + (e.key === "j" ? 1 : -1)))];
    if (to) open(to.id, false, base);
  });

  /** After a decision: refresh, and open the next pending item ("resolve and next"). */
  const decided = (row: Proposal) => {
    const i = rows.findIndex((r) => r.id === row.id);
    const rest = rows.filter((r) => r.id !== row.id && r.status === (inbox ? "escalated" : "pending"));
    const nextRow = rest[Math.min(Math.max(i, 0), rest.length - 1)];
    setRows(status === "pending" || status === "escalated" ? rows.filter((r) => r.id !== row.id) : rows.map((r) => (r.id === row.id ? row : r)));
    if (nextRow) open(nextRow.id, true, base);
    else navigate(base + location.search, true);
  };

  /** pick toggles a row; with shift it sets the whole range from the last row picked. */
  const pick = (id: string, range: boolean) => {
    const next = new Set(picked);
    const on = !picked.has(id);
    const [a, b] = [rows.findIndex((r) => r.id === anchor.current), rows.findIndex((r) => r.id === id)];
    if (range && a >= 0) for (const r of rows.slice(Math.min(a, b), Math.max(a, b) + 1)) on ? next.add(r.id) : next.delete(r.id);
    else on ? next.add(id) : next.delete(id);
    anchor.current = id;
    setPicked(next);
  };
  const allPicked = rows.length > 0 && rows.every((r) => picked.has(r.id));
  const exportRows = async () => {
    try {
      await (await import("./queue-triage")).exportCSV(query(null), `sync-errors-${status}.csv`);
      announce("Export downloaded: every row of this filter");
    } catch (e) {
      showError(e);
    }
  };

  return (
    <div class={selected ? "split has-detail" : "split"}>
      <section class="list" aria-labelledby="queue-h">
        <div class="toolbar">
          <h1 id="queue-h">{inbox ? "Escalated to an approver" : "Sync-error queue"}</h1>
          {/* On a phone the filters wait behind one button (style.css), so the rows start on the first screen. */}
          <button type="button" class="filters-toggle" aria-expanded={filtersOpen} aria-controls="queue-filters"
            onClick={() => setFiltersOpen(!filtersOpen)}>Filters{filtersOn ? ` (${filtersOn})` : ""}</button>
          <div id="queue-filters" class={filtersOpen ? "filters open" : "filters"}>
          {!inbox && <label>
            Status{" "}
            <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
              {STATUSES.map((s) => <option value={s}>{STATUS_WORDS[s] ?? s}</option>)}
            </select>
          </label>}
          <label>
            Class{" "}
            <select value={cls} onChange={(e) => setCls((e.target as HTMLSelectElement).value)}>
              <option value="">all</option>
              {CLASSES.map((c) => <option value={c}>{c}</option>)}
            </select>
          </label>
          <label>
            Age{" "}
            <select value={age} onChange={(e) => setAge((e.target as HTMLSelectElement).value)}>
              <option value="">any</option>
              {Object.keys(AGES).map((a) => <option value={a}>{a}</option>)}
            </select>
          </label>
          <label>
            Who approves{" "}
            <select value={decider} onChange={(e) => setDecider((e.target as HTMLSelectElement).value)}>
              <option value="">anyone</option>
              {Object.entries(DECIDERS).map(([v, l]) => <option value={v}>{l.toLowerCase()}</option>)}
            </select>
          </label>
          <label>
            Assigned to{" "}
            <select value={whose} onChange={(e) => setWhose((e.target as HTMLSelectElement).value)}>
              {Object.entries(WHOSE).map(([v, l]) => <option value={v}>{l}</option>)}
            </select>
          </label>
          <form class="system" onSubmit={(e) => { e.preventDefault(); setSystem(((e.target as HTMLFormElement).system as HTMLInputElement).value.trim()); }}>
            <label>
              System{" "}
              <input type="text" name="system" list="queue-systems" maxLength={MAX_SYSTEM} placeholder="any" spellcheck={false} autoComplete="off"
                title="The external system as the host names it, such as webshop (any case), or the system it resolves to: erp2 also lists rows sent as Business Central; Enter applies it"
                defaultValue={system} onChange={(e) => setSystem((e.target as HTMLInputElement).value.trim())} />
            </label>
            <datalist id="queue-systems">{systemOptions(systems, seenSystems)}</datalist>
          </form>
          <label>
            Sort{" "}
            <select aria-label="Sort" value={sort} onChange={(e) => setSort((e.target as HTMLSelectElement).value as typeof sort)}>
              {SORTS.map((s) => <option value={s}>{s}</option>)}
            </select>
          </label>
          <form class="tag" onSubmit={(e) => { e.preventDefault(); if (!tagTyped.trim() || TAG.test(tagTyped.trim())) setTag(tagTyped.trim()); }}>
            <label>
              Tag{" "}
              <input type="text" name="tag" value={tagTyped} maxLength={32} placeholder="any" spellcheck={false} autoComplete="off"
                aria-invalid={!!tagTyped.trim() && !TAG.test(tagTyped.trim())} title="Rows carrying this tag: lower-case letters, digits, - or _"
                onInput={(e) => setTagTyped((e.target as HTMLInputElement).value)} />
            </label>
          </form>
          </div>
          <form role="search" onSubmit={(e) => { e.preventDefault(); setSearch(typed.trim()); }}>
            <input ref={searchBox} type="search" name="q" aria-label="Search by error id, record id or text" aria-keyshortcuts="/"
              placeholder="Error, record or text  /" value={typed} onInput={(e) => setTyped((e.target as HTMLInputElement).value)} />
          </form>
          <button type="button" aria-pressed={grouped} onClick={() => setGrouped(!grouped)}>Group by diagnosis</button>
          {!demo && <button type="button" onClick={() => void exportRows()}>Export CSV</button>}
        </div>
        {(sort === "class" || sort === "confidence" || (sort === "escalated" && !inbox)) && <p class="note">Sorted by {sort} among the newest 500 matching errors.</p>}
        {decider && <p class="note">“{DECIDERS[decider]}” is looked for among the newest 500 errors the other filters match.</p>}
        {inbox && <p class="note">Sync errors an operator escalated: the newest escalation first, with why. Approve or reject each from its detail.</p>}
        {grouped ? (
          failed !== null ? <PanelError what="The groups" error={failed} onRetry={() => setVersion(version + 1)} />
            : !groupsView ? <p class="note" aria-busy="true">Loading the groups…</p>
            : <groupsView.Groups groups={groups} demo={demo} canApprove={canApprove} onDone={() => setVersion(version + 1)}
              onSelect={(ids) => { setPicked(new Set(ids)); setGrouped(false); }} />
        ) : (
          <>
            {failed !== null && <PanelError what="The queue" error={failed} onRetry={() => void load(null)} />}
            {loading && rows.length === 0 && failed === null && <p class="note" aria-busy="true">Loading the queue…</p>}
            {status === "pending" && <BulkBar picked={rows.filter((r) => picked.has(r.id))} canApprove={canApprove} demo={demo}
              onClear={() => setPicked(new Set())} onDone={() => setVersion((v) => v + 1)}
              filter={String(query(null))} allShown={allPicked && next !== null} onSelect={(ids) => setPicked(new Set(ids))} />}
            <table class="grid">
              <thead>
                <tr>{status === "pending" && <th scope="col" class="pick"><input type="checkbox" aria-label="Select every row shown" checked={allPicked}
                  onChange={() => setPicked(allPicked ? new Set() : new Set(rows.map((r) => r.id)))} /></th>}
                  <th scope="col">Error</th><th scope="col">Record</th><th scope="col" class="wide">Message</th>
                  {status === "escalated" && <th scope="col">Escalated</th>}
                  <th scope="col">Class</th><th scope="col" class="wide">Confidence</th><th scope="col">Age</th><th scope="col" class="wide">System</th><th scope="col" class="wide">Status</th></tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id} data-id={r.id} class={[r.id === selected ? "selected" : "", left.has(r.id) ? "left" : ""].join(" ").trim()} tabIndex={0} aria-selected={r.id === selected}
                    onClick={() => open(r.id, false, base)} onKeyDown={(e) => e.key === "Enter" && open(r.id, false, base)}>
                    {status === "pending" && <td class="pick" onClick={(e) => e.stopPropagation()}>
                      <input type="checkbox" aria-label="Select row" aria-describedby={"err-" + r.id} checked={picked.has(r.id)}
                        onClick={(e) => pick(r.id, e.shiftKey)} /></td>}
                    <td class="mono" id={"err-" + r.id}>{r.errorId}{r.applyError && <> <Chip kind="failed">write failed</Chip></>}
                      {r.decider && <> <Chip kind={"decider " + r.decider}>{DECIDERS[r.decider]}</Chip></>}
                      {left.has(r.id) && <> <Chip kind="left">no longer {status} (now {left.get(r.id)})</Chip></>}</td>
                    <td>{r.recordType} / {r.recordId}{r.assignee && <> <Chip kind="assignee">{actorName(r.assignee)}</Chip></>}
                      {r.tags?.map((t) => <> <Chip kind="tag">{t}</Chip></>)}</td>
                    <td class="wide msg" title={r.message}>{r.message}</td>
                    {status === "escalated" && <td class="escalation">{r.escalation ? <>{r.escalation.note}{" "}
                      <span class="note">— {actorName(r.escalation.actor)}, <Ago at={r.escalation.at} /></span></> : "—"}</td>}
                    <td>{r.class ? <Chip kind="class">{r.class}</Chip> : <Chip>{r.diagnosis}</Chip>}</td>
                    <td class="num wide">{r.confidence === undefined ? "—" : Math.round(r.confidence * 100) + "%"}</td>
                    <td><Ago at={r.occurredAt ?? r.claimedAt} /></td>
                    <td class="wide">{r.externalSystem || "—"}{r.system && r.system !== r.externalSystem && <span class="note"> → {r.system}</span>}</td>
                    <td class="wide"><Chip kind={r.status}>{r.status}</Chip></td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!loading && failed === null && rows.length === 0 && <p class="empty">{emptyText(STATUS_WORDS[status] ?? status, next !== null, !!(cls || age || search || whose || decider || tag || system))}</p>}
            {next && <button type="button" onClick={() => void load(next)}>Load more</button>}
          </>
        )}
      </section>
      {selected && <Detail key={selected} id={selected} demo={demo} canApprove={canApprove} onDecided={decided}
        onUndone={() => setVersion((v) => v + 1)}
        onChanged={(p) => setRows((all) => all.map((r) => (r.id === p.id ? p : r)))}
        onBack={() => navigate(base + location.search)} />}
    </div>
  );
}

/** open shows a row's detail, keeping the filters, and moves focus to its row so the
 *  keyboard goes on from there (after a decision, focus would otherwise fall to the page). */
function open(id: string, replace = false, base = "/queue") {
  navigate(base + "/" + id + location.search, replace);
  requestAnimationFrame(() => document.querySelector<HTMLElement>(`tr[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: false }));
}

/** STATUS_WORDS name the statuses that merge several. */
const STATUS_WORDS: Record<string, string> = { open: "open (pending, retrying, escalated)", any: "any status" };

/** inStatus says whether a row in status s belongs to a list of status filter f. */
function inStatus(s: string, f: string): boolean {
  return f === "any" || s === f || (f === "open" && ["pending", "retrying", "escalated"].includes(s));
}

/** systemOptions offers every system of the tenant (by key, labelled with its vendor, and
 *  each name that resolves to it), then the other systems of the rows seen. */
function systemOptions(systems: SystemChoice[], seen: string[]) {
  const named = new Set(systems.flatMap((s) => s.names));
  return [
    ...systems.flatMap((s) => s.names.map((n) => <option value={n}>{n === s.system ? s.vendor : `${s.vendor} (${s.system})`}</option>)),
    ...seen.filter((n) => !named.has(n)).map((n) => <option value={n} />),
  ];
}

/** withSystems adds the external systems of rows to the ones already suggested, sorted. */
function withSystems(seen: string[], rows: ProposalSummary[]): string[] {
  const all = new Set(seen);
  for (const r of rows) if (r.externalSystem) all.add(r.externalSystem);
  return all.size === seen.length ? seen : [...all].sort((a, b) => a.localeCompare(b));
}

/** emptyText says why no row is shown: a filtered page reads a bounded number of rows, so
 *  it can come back empty with more to read; that is not a clear queue. */
function emptyText(status: string, more: boolean, filtered: boolean): string {
  if (more) return "No match among the errors read so far. Load more looks further.";
  return filtered ? `No ${status} sync errors match these filters.` : `Nothing ${status} — the queue is clear.`;
}

/** compare says what a fresh first page tells of the rows loaded: which are new, and which
 *  left the list (decided elsewhere). A loaded row has left when the page covers its place
 *  and does not hold it: the page is the whole list, or (newest or oldest first) the row
 *  sorts before the page's last row. */
export function compare(loaded: ProposalSummary[], page: List<ProposalSummary>, sort: string) {
  const have = new Set(loaded.map((r) => r.id));
  const fresh = new Set(page.items.map((r) => r.id));
  const added = page.items.filter((r) => !have.has(r.id));
  const last = page.items[page.items.length - 1]?.claimedAt;
  const covered = (r: ProposalSummary) => page.nextCursor === null ||
    (!!last && ((sort === "newest" && r.claimedAt > last) || (sort === "oldest" && r.claimedAt < last)));
  const gone = loaded.filter((r) => !fresh.has(r.id) && covered(r)).map((r) => r.id);
  return { added, gone };
}
