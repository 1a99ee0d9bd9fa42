// Which approval-policy rules can never match: the first matching rule decides, so a rule
// that an earlier rule covers (the earlier one matches every fix the later one would) is
// dead. Computed on the rules as edited, before they are saved, with the service's
// matching (shared/syncerror/policy.go): an empty list or an absent bound matches
// anything; classes and systems are exact; field globs are compared as written, so a
// rule is only said to be covered when that is certain.

/** Shape is what a rule matches; a bound is null when absent and NaN when unreadable. */
export interface Shape {
  classes: string[];
  fields: string[];
  systems: string[];
  minConfidence: number | null;
  minApprovals: number | null;
  maxAmount: number | null;
}

const listCovers = (a: string[], b: string[]) => a.length === 0 || (b.length > 0 && b.every((x) => a.includes(x)));
const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
/** atLeast: a's lower bound lets through every value b's does. */
const lower = (a: number | null, b: number | null) => a === null || (b !== null && b >= a);
const upper = (a: number | null, b: number | null) => a === null || (b !== null && b <= a);

/** covers says whether rule a matches every fix rule b matches. */
export function covers(a: Shape, b: Shape): boolean {
  const bounds = [a.minConfidence, a.minApprovals, a.maxAmount, b.minConfidence, b.minApprovals, b.maxAmount];
  if (bounds.some((x) => x !== null && !Number.isFinite(x))) return false; // unreadable: say nothing
  return listCovers(a.classes, b.classes) && listCovers(a.systems, b.systems) &&
    (a.fields.length === 0 || sameSet(a.fields, b.fields)) &&
    lower(a.minConfidence, b.minConfidence) && lower(a.minApprovals, b.minApprovals) && upper(a.maxAmount, b.maxAmount);
}

/** shadowedBy gives, for each rule, the index of the first earlier rule that covers it
 *  (the rule never matches), or -1. */
export function shadowedBy(rules: Shape[]): number[] {
  return rules.map((r, i) => rules.slice(0, i).findIndex((earlier) => covers(earlier, r)));
}
