// Keys that work the same in every text box of the console (issue 35 §9), and the page's
// shortcuts' one listener.

import { useEffect, useRef } from "preact/hooks";

/** submitOnCtrlEnter lets Ctrl+Enter (Cmd+Enter on a Mac) submit the form of a text box
 *  (a reason, a note), where Enter adds a line; single-line inputs submit on Enter. */
export function submitOnCtrlEnter(e: KeyboardEvent) {
  if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
  e.preventDefault();
  (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
}

/** useKeys calls onKey for every keydown on the page, always the onKey of the latest
 *  render. A listener an effect registers is swapped only after the browser paints
 *  (Preact runs effects after the next frame), so a key pressed between a render and its
 *  effect ran the previous render's handler with that render's state: an "x" pressed again
 *  right after the row showed as picked picked it a second time instead of unpicking it. */
export function useKeys(onKey: (e: KeyboardEvent) => void) {
  const latest = useRef(onKey);
  latest.current = onKey;
  useEffect(() => {
    const listener = (e: KeyboardEvent) => latest.current(e);
    addEventListener("keydown", listener);
    return () => removeEventListener("keydown", listener);
  }, []);
}
