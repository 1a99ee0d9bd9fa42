// Panels most sessions never open are loaded when first shown (esbuild splits each
// import() into a chunk of its own), which keeps the first load within its budget.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { session } from "./auth";
import { REOPEN } from "./ui";

/** lazy wraps a panel module's import: the panel renders once its chunk has arrived, a
 *  loading line until then, and an alert with Try again when the chunk cannot be fetched
 *  (offline, or a deploy replaced the console since this page was loaded).
 *
 *  Try again reloads the page (the URL keeps the panel, sessionStorage the sign-in): a
 *  browser keeps a module that failed to fetch as failed in the document's module map
 *  (HTML, "fetch a single module script"), so importing the same chunk again in the same
 *  page is answered with the cached failure and could never load it. */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [, setReady] = useState(false);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      let live = true;
      pending ??= load();
      pending.then(
        (c) => { loaded = c; if (live) setReady(true); },
        () => { if (live) setFailed(true); },
      );
      return () => { live = false; };
    }, []);
    if (loaded) { const C = loaded; return <C {...props} />; }
    if (failed) {
      return (
        <div class="panel-error" role="alert"><strong>This panel could not be loaded.</strong> The connection may be down, or the
          console was updated since this page was opened.{" "}
          {reloadKeepsSession() ? <button type="button" onClick={() => location.reload()}>Try again</button> : REOPEN}</div>
      );
    }
    return <p aria-busy="true">Loading…</p>;
  };
}

/** reloadKeepsSession says whether a reload finds the session again: an embedded panel's
 *  lives in the page alone where the browser gives a framed site no storage, and then only
 *  the ERP can open the panel again. */
function reloadKeepsSession(): boolean {
  if (!session.value?.embeddedContextId) return true;
  try {
    return sessionStorage.getItem("syncassist.session") !== null;
  } catch {
    return false;
  }
}
