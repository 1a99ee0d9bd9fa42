// One paged listing read with the API's cursors: the first page when the query changes,
// the next one on "Load more", and how many rows are shown. Panels used to carry a copy of
// this each; new ones use the hook.
import { useEffect, useRef, useState } from "preact/hooks";
import { read } from "./api/client";
import type { List } from "./api/types";

export interface Paged<T, L extends List<T>> {
  /** rows loaded so far, null before the first page arrives */
  rows: T[] | null;
  /** the last page's answer (its envelope may say more than its items) */
  page: L | null;
  demo: boolean;
  failed: unknown;
  /** a next page is being read */
  busy: boolean;
  more: () => void;
  reload: () => void;
  /** replaces the loaded rows, e.g. to drop a row decided in place */
  setRows: (f: (rows: T[]) => T[]) => void;
}

/** usePaged reads path (its own query, without limit and cursor) page by page. An answer
 *  to a query that has since changed is dropped, so a slow first page cannot overwrite the
 *  rows of a newer filter. slot is read's (api/client.ts): a second list of one resource
 *  on a page names one. */
export function usePaged<T, L extends List<T> = List<T>>(path: string, demo: () => L, limit = 50, slot?: string): Paged<T, L> {
  const [rows, setRows] = useState<T[] | null>(null);
  const [page, setPage] = useState<L | null>(null);
  const [isDemo, setDemo] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);

  const load = async (cursor: string | null) => {
    const gen = cursor ? generation.current : ++generation.current;
    const q = new URLSearchParams({ limit: String(limit) });
    if (cursor) q.set("cursor", cursor);
    setBusy(true);
    try {
      const r = await read<L>(path + (path.includes("?") ? "&" : "?") + q, demo, slot);
      if (gen !== generation.current) return;
      setRows((prev) => (cursor && prev ? [...prev, ...r.data.items] : r.data.items));
      setPage(r.data);
      setDemo(r.demo);
      setFailed(null);
    } catch (e) {
      if (gen === generation.current) setFailed(e);
    } finally {
      if (gen === generation.current) setBusy(false);
    }
  };
  const reload = () => {
    setRows(null);
    void load(null);
  };
  useEffect(reload, [path]);

  return {
    rows, page, demo: isDemo, failed, busy, reload,
    more: () => {
      if (page?.nextCursor && !busy) void load(page.nextCursor);
    },
    setRows: (f) => setRows((rs) => rs && f(rs)),
  };
}

/** MoreRows says how many rows are shown and offers the next page while there is one. */
export function MoreRows<T, L extends List<T>>({ paged, noun }: { paged: Paged<T, L>; noun: (n: number) => string }) {
  const n = paged.rows?.length ?? 0;
  const next = paged.page?.nextCursor;
  if (!paged.rows || (n === 0 && !next)) return null;
  return (
    <p class="more-rows">
      <span class="note">Showing {noun(n)}{next ? "; more to load." : ", all there are."}</span>{" "}
      {next && <button type="button" disabled={paged.busy} onClick={paged.more}>{paged.busy ? "Loading…" : "Load more"}</button>}
    </p>
  );
}
