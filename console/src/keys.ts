// Keys that work the same in every text box of the console (issue 35 §9).

/** submitOnCtrlEnter lets Ctrl+Enter (Cmd+Enter on a Mac) submit the form of a text box
 *  (a reason, a note), where Enter adds a line; single-line inputs submit on Enter. */
export function submitOnCtrlEnter(e: KeyboardEvent) {
  if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey)) return;
  e.preventDefault();
  (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
}
