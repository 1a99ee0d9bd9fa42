// Panels most sessions never open are loaded when first shown (esbuild splits each
// import() into a chunk of its own), which keeps the first load within its budget.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/** lazy wraps a panel module's import: the panel renders once its chunk has arrived, a
 *  loading line until then, and an alert with Try again when the chunk cannot be fetched
 *  (offline, or a deploy replaced the console since this page was loaded). */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [, setReady] = useState(false);
    const [failed, setFailed] = useState(false);
    const [attempt, setAttempt] = useState(0);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      pending ??= load();
      pending.then(
        (c) => { loaded = c; if (live) setReady(true); },
        () => { pending = null; if (live) setFailed(true); },
      );
      return () => { live = false; };
    }, [attempt]);
    if (loaded) { const C = loaded; return <C {...props} />; }
    if (failed) {
      return (
        <div class="panel-error" role="alert"><strong>This panel could not be loaded.</strong> The connection may be down, or the
          console was updated since this page was opened (then reload the page).{" "}
          <button type="button" onClick={() => { setFailed(false); setAttempt((n) => n + 1); }}>Try again</button></div>
      );
    }
    return <p aria-busy="true">Loading…</p>;
  };
}
