// Small shared pieces: chips that carry text, relative times with the exact time on
// hover (past or future), the live region for action results, the alert for write errors,
// and the dialogs that ask for a reason or a confirmation.
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { ApiError } from "./api/client";

export const announcement = signal("");
export const writeError = signal<{ title: string; detail?: string } | null>(null);

export function announce(msg: string) {
  announcement.value = msg;
  writeError.value = null;
}

export function showError(e: unknown) {
  writeError.value =
    e instanceof ApiError ? { title: e.problem.title, detail: e.problem.detail } : { title: "Unexpected error", detail: String(e) };
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
        <textarea id="ask-text" required value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
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
          <button type="submit" class="primary">{props.confirm}</button>
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}

export function Status() {
  return (
    <>
      <div role="status" class="sr-live">{announcement.value}</div>
      {writeError.value && (
        <div role="alert" class="alert">
          <strong>{writeError.value.title}</strong>
          {writeError.value.detail && <span> — {writeError.value.detail}</span>}
        </div>
      )}
    </>
  );
}

export function show(v: unknown): string {
  if (v === null || v === undefined) return "—";
  return typeof v === "string" ? v : JSON.stringify(v);
}
