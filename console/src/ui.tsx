// Small shared pieces: chips that carry text, relative times with the exact time on
// hover (past or future), the toast (also announced) for action results, the alert for
// write errors, a panel's read error, and the dialogs that ask for a reason or a confirmation.
import { effect, signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { ApiError, embeddedExpired, retryAPI, staleSince } from "./api/client";
import { session } from "./auth";
import { path } from "./router";
import { submitOnCtrlEnter } from "./keys";

export const announcement = signal("");
/** The last write's error: where it was raised (the element acted on), shown next to it
 *  by the ActionError inside the same action bar, or at the top of the panel otherwise. */
export const writeError = signal<{ title: string; detail?: string; at?: Element | null } | null>(null);
/** The mounted ActionErrors: the top of the panel leaves an error to one that claims it. */
const slots = new Set<HTMLElement>();
/** claims says whether the slot shows an error raised at `at`: inside its bar's parent. */
const claims = (slot: HTMLElement, at?: Element | null) => !!at && !!slot.parentElement?.parentElement?.contains(at);

// An error belongs to the panel it was raised in: another panel does not show it.
let panelOf = path.peek().split("/")[1];
effect(() => {
  const panel = path.value.split("/")[1];
  if (panel !== panelOf) writeError.value = null;
  panelOf = panel;
});
/** The visible toast: what was just done, shown for a few seconds; with undo set, the
 *  action has not been sent yet and Undo stops it. */
const toast = signal<{ msg: string; n: number; undo?: () => void } | null>(null);
let toasts = 0;

/** UNDO_MS is how long a decision waits for Undo before it is sent. */
export const UNDO_MS = 5000;

/** later shows msg with Undo and runs send after UNDO_MS unless Undo was pressed first
 *  (then undone runs). Leaving the page before then sends it at once: nothing is lost. */
export function later(msg: string, send: () => void, undone: () => void) {
  const n = ++toasts;
  let done = false;
  const fire = () => {
    if (done) return;
    done = true;
    removeEventListener("pagehide", fire);
    if (toast.value?.n === n) toast.value = null;
    send();
  };
  addEventListener("pagehide", fire);
  const timer = setTimeout(fire, UNDO_MS);
  announcement.value = msg + " — press Undo within 5 seconds to keep it";
  toast.value = { msg, n, undo: () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    removeEventListener("pagehide", fire);
    toast.value = null;
    announce("Undone: nothing was sent");
    undone();
  } };
}

export function announce(msg: string) {
  announcement.value = msg;
  writeError.value = null;
  const n = ++toasts;
  toast.value = { msg, n };
  setTimeout(() => {
    if (toast.value?.n === n) toast.value = null;
  }, 5000);
}

/** Progress says what a slow write is doing while it runs (and to screen readers). */
export function Progress({ text }: { text: string | null }) {
  return text ? <p class="progress" aria-live="polite">{text}</p> : null;
}

/** typedKey is a key that goes to a field (text, list box, editable), or is taken with Ctrl,
 *  Cmd or Alt: the browser's and the system's own (Ctrl+A selects, it never approves). */
function typedKey(e: KeyboardEvent): boolean {
  const t = e.target;
  return e.ctrlKey || e.metaKey || e.altKey || t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement ||
    t instanceof HTMLSelectElement || (t instanceof HTMLElement && t.isContentEditable);
}

// Whether this key follows a lone g: then it is a panel jump (g a is Audit), never an
// action on the open row. Seen on capture, before every panel's own listener.
let previousKey = "";
let thisFollowsG = false;
addEventListener("keydown", (e) => {
  thisFollowsG = previousKey === "g" && !typedKey(e);
  previousKey = typedKey(e) || thisFollowsG ? "" : e.key; // a jump uses its g up
}, true);

/** goKey says whether the key being handled is the letter of a g jump (after a lone g). */
export function goKey(): boolean {
  return thisFollowsG;
}

/** shortcutKey says whether e may act as a one-key shortcut: not typed, not part of a g
 *  jump, and no dialog open (an open dialog owns the keys; the row behind it waits). */
export function shortcutKey(e: KeyboardEvent): boolean {
  return !typedKey(e) && !thisFollowsG && !document.querySelector("dialog[open]");
}

/** clearError drops a write error that belonged to a row the user has left. */
export function clearError() {
  writeError.value = null;
}

// The element the user last pressed or typed on: where an action's error is shown. (The
// focused element may be gone by then: a busy button is disabled while its write runs.)
let acted: EventTarget | null = null;
for (const type of ["pointerdown", "keydown"]) addEventListener(type, (e) => (acted = e.target), true);

export function showError(e: unknown) {
  const at = acted instanceof Element && acted.isConnected ? acted : document.activeElement;
  writeError.value =
    e instanceof ApiError ? { title: e.problem.title, detail: e.problem.detail, at } : { title: "Unexpected error", detail: String(e), at };
}

/** ActionError shows the write error raised by an action of its bar (the element acted on
 *  is inside the bar's parent), next to the action instead of at the top of the panel,
 *  which may be scrolled out of sight. */
export function ActionError() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const slot = ref.current!;
    slots.add(slot);
    return () => void slots.delete(slot);
  }, []);
  const e = writeError.value;
  const mine = !!e && !!ref.current && claims(ref.current, e.at);
  useEffect(() => {
    if (mine) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [mine, e]);
  return (
    <div ref={ref} class="action-error">
      {mine && e && <div role="alert" class="alert"><strong>{e.title}</strong>{e.detail && <span> — {e.detail}</span>}</div>}
    </div>
  );
}

export function Chip({ kind, children }: { kind?: string; children: ComponentChildren }) {
  return <span class={"chip " + (kind ?? "")}>{children}</span>;
}

export function Ago({ at }: { at: string }) {
  const d = new Date(at);
  const s = Math.round((Date.now() - d.getTime()) / 1000);
  const a = Math.abs(s);
  const span = a < 3600 ? `${Math.round(a / 60)} min` : a < 86400 ? `${Math.round(a / 3600)} h` : `${Math.round(a / 86400)} d`;
  const text = a < 60 ? "just now" : s > 0 ? `${span} ago` : `in ${span}`;
  return <time dateTime={at} title={d.toLocaleString()}>{text}</time>;
}

export function Money({ amount, currency }: { amount: string; currency: string }) {
  const n = Number(amount);
  const text = Number.isFinite(n) ? new Intl.NumberFormat(undefined, { style: "currency", currency }).format(n) : `${amount} ${currency}`;
  return <span class="num">{text}</span>;
}

export function Key({ k }: { k: string }) {
  return <kbd aria-hidden="true">{k}</kbd>;
}

/** AskDialog is a modal asking for a required text before an action. */
export function AskDialog(props: {
  title: string;
  label: string;
  confirm: string;
  onConfirm: (text: string) => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const submit = (e: Event) => {
    e.preventDefault();
    if (text.trim()) props.onConfirm(text.trim());
  };
  return (
    <dialog ref={ref} aria-label={props.title} onClose={props.onClose}>
      <form onSubmit={submit}>
        <h2>{props.title}</h2>
        <label for="ask-text">{props.label}</label>
        <textarea id="ask-text" required value={text} aria-keyshortcuts="Control+Enter Meta+Enter" onKeyDown={submitOnCtrlEnter}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={!text.trim()}>{props.confirm}</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

/** ConfirmDialog is a modal that explains an action and asks before doing it. */
export function ConfirmDialog(props: {
  title: string;
  confirm: string;
  children: ComponentChildren;
  onConfirm: () => void;
  onClose: () => void;
  /** ready false offers the confirmation disabled: what it asks about is still loading, and
   *  the button would move (under the pointer) when it arrives. */
  ready?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-h" aria-describedby="confirm-body" onClose={props.onClose}>
      <form method="dialog" onSubmit={(e) => { e.preventDefault(); props.onConfirm(); }}>
        <h2 id="confirm-h">{props.title}</h2>
        <div id="confirm-body">{props.children}</div>
        <div class="actions">
          <button type="submit" class="primary" disabled={props.ready === false}>{props.confirm}</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

/** REOPEN is what an ERP user does where trying again cannot work: the panel's session
 *  comes from the record page it sits on. */
export const REOPEN = "Close this panel and reopen the record in NetSuite: that opens it with a new session.";

/** PanelError is a read that failed with an answer: said in words, with Try again, except
 *  in an embedded panel whose session has ended, where it says what to do instead. */
export function PanelError({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  const e = error instanceof ApiError ? error : null;
  const ended = embeddedExpired.value || (e?.status === 401 && !!session.value?.embeddedContextId);
  if (ended) return <div class="panel-error" role="alert"><strong>{what} could not be read:</strong> the panel's session has ended. {REOPEN}</div>;
  return (
    <div class="panel-error" role="alert">
      <strong>{what} could not be read.</strong> {e ? e.problem.title : "Unexpected error"}
      {e?.problem.detail && <span> — {e.problem.detail}</span>}
      {e?.problem.correlationId && <span class="note"> (reference {e.problem.correlationId})</span>}{" "}
      {e?.problem.errors?.length ? <ul>{e.problem.errors.map((f) => <li><code>{f.field}</code> {f.message}</li>)}</ul> : null}
      <button type="button" onClick={onRetry}>Try again</button>
    </div>
  );
}

/** Stale says that what is shown was read before the API became unreachable, as of when,
 *  and greys it (the main area's class) until a read answers again. */
function Stale() {
  const at = staleSince.value;
  useEffect(() => {
    document.body.classList.toggle("stale", at !== null);
  }, [at]);
  if (at === null) return null;
  const time = new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return (
    <div class="banner stale-banner" role="status">The service cannot be reached: showing what was read as of{" "}
      <time dateTime={new Date(at).toISOString()}>{time}</time>. Actions may fail until it answers again.{" "}
      <button type="button" onClick={retryAPI}>Retry</button></div>
  );
}

export function Status() {
  const e = writeError.value;
  return (
    <>
      <Stale />
      <div role="status" class="sr-live">{announcement.value}</div>
      {toast.value && (toast.value.undo
        ? <div class="toast" role="group" aria-label="Pending action">{toast.value.msg} <button type="button" onClick={toast.value.undo}>Undo</button></div>
        : <div class="toast" aria-hidden="true">{toast.value.msg}</div>)}
      {e && ![...slots].some((slot) => claims(slot, e.at)) && (
        <div role="alert" class="alert top-alert">
          <strong>{e.title}</strong>
          {e.detail && <span> — {e.detail}</span>}
        </div>
      )}
    </>
  );
}

/** actorName shows who acted as a person would say it: people by name, the service's own
 *  actors ("webhook:msg_…", "schedule:reconcile", "policy:rule-1") by what they are. */
/** plural says "1 sync error" and "3 sync errors". */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function actorName(actor?: string): string {
  if (!actor) return "—";
  const [kind, rest] = [actor.slice(0, actor.indexOf(":")), actor.slice(actor.indexOf(":") + 1)];
  switch (kind) {
    case "webhook": return "host ERP webhook";
    case "schedule": return `scheduled ${rest}`;
    case "policy": return `approval policy (rule ${rest})`;
    case "flow": return `flow ${rest}`;
  }
  return actor === "reconcile" ? "scheduled reconcile" : actor;
}

/** show is a value as text: strings as they are, anything else as JSON, so a number kept
 *  as its JSON text (client.ts parseJSON) shows every digit: String() would throw on it. */
export function show(v: unknown): string {
  if (v === null || v === undefined) return "—";
  return typeof v === "string" ? v : JSON.stringify(v);
}
