// Settings for issue 24: the approval policy (who may apply which fix, ordered rules, the
// first match wins; auto rules in shadow or enforce with their measured agreement) and
// what the tenant learned from people's decisions. The policy is saved whole with the
// version it was read at: a 400 puts each message beside its rule's input, a 409 reloads.
// Issue 35: the tenant's automation switches are shown here; a rule an earlier rule covers
// is marked as never matching; switching a rule to enforce first shows what it did in
// shadow over 30 days; classes are checkboxes of the known classes.
import { useEffect, useRef, useState } from "preact/hooks";
import { read, readOptional, write } from "../api/client";
import { demoPolicy } from "../api/demo-assist";
import type { ApprovalPolicy, Automation, FieldError, Insights, List, PolicyMatch, PolicyRule, RuleInsight } from "../api/types";
import { change, FieldMessage, invalid, OtherErrors } from "../forms";
import { navigate } from "../router";
import { announce, Chip, ConfirmDialog, PanelError } from "../ui";
import { pct } from "./insights";
import { shadowedBy, type Shape } from "./policy-shadow";
import { APPLY_WORDS } from "./queue-more";

type Apply = PolicyRule["apply"];
const APPLIES: Apply[] = ["operator", "approver", "two_approvers", "auto"];
type ClassName = NonNullable<PolicyMatch["classes"]>[number];
// Every class the API document lists (shared/syncerror.Classes, which holds the diagnosis's
// classes: a Go test keeps them one list); the record makes a class added there fail the
// type-check until it is named here.
const CLASS_WORDS: Record<ClassName, string> = {
  value: "value", missing: "missing", reference: "reference", duplicate: "duplicate", permission: "permission",
  connection: "connection", intermittent: "intermittent", rate_limit: "rate limit", too_large: "too large", parse: "parse",
  business_rule: "business rule", unknown: "unknown",
};
const CLASSES = Object.keys(CLASS_WORDS) as ClassName[];
const LISTS = ["classes", "fields", "systems"] as const;
const BOUNDS = ["minConfidence", "minApprovals", "maxAmount"] as const;
const LABELS: Record<string, string> = { id: "Id", classes: "Classes", fields: "Field globs", systems: "Systems", minConfidence: "Min. confidence (0–1)",
  minApprovals: "Min. learned approvals", maxAmount: "Max. amount" };

/** Draft is a rule as its inputs hold it: lists comma-separated, bounds as typed. */
interface Draft { id: string; apply: Apply; mode: "shadow" | "enforce"; lists: Record<string, string>; bounds: Record<string, string> }

function toDraft(r: PolicyRule): Draft {
  const m = r.match ?? {};
  return { id: r.id, apply: r.apply, mode: r.mode ?? "shadow",
    lists: Object.fromEntries(LISTS.map((k) => [k, (m[k] ?? []).join(", ")])),
    bounds: Object.fromEntries(BOUNDS.map((k) => [k, m[k] === undefined ? "" : String(m[k])])) };
}

/** toRule reads a draft back; a bound that is not a number is the caller's field error. */
function toRule(d: Draft, at: string, errs: FieldError[]): PolicyRule {
  const match: Record<string, unknown> = {};
  for (const k of LISTS) {
    const items = d.lists[k].split(",").map((x) => x.trim()).filter(Boolean);
    if (items.length) match[k] = items;
  }
  for (const k of BOUNDS) {
    const v = d.bounds[k].trim();
    if (!v) continue;
    if (!Number.isFinite(Number(v))) errs.push({ field: `${at}.match.${k}`, message: "must be a number" });
    match[k] = Number(v);
  }
  return { id: d.id.trim(), match: match as PolicyMatch, apply: d.apply, ...(d.apply === "auto" ? { mode: d.mode } : {}) };
}

/** listField folds "rules[0].match.classes[2]" onto its input "rules[0].match.classes". */
const listField = (e: FieldError): FieldError => {
  const m = /^(.*\.match\.(?:classes|fields|systems))\[(\d+)\]$/.exec(e.field);
  return m ? { field: m[1], message: `item ${Number(m[2]) + 1} ${e.message}` } : e;
};

/** says puts a rule in words: which fixes it takes and who applies them. */
function says(d: Draft): string {
  const parts: string[] = [];
  const list = (k: string) => d.lists[k].split(",").map((x) => x.trim()).filter(Boolean);
  if (list("classes").length) parts.push("class " + list("classes").join(" or "));
  if (list("fields").length) parts.push("fields " + list("fields").map((g) => (g.startsWith("!") ? "not " + g.slice(1) : g)).join(", "));
  if (list("systems").length) parts.push("from " + list("systems").join(" or "));
  if (d.bounds.minConfidence) parts.push("confidence ≥ " + d.bounds.minConfidence);
  if (d.bounds.minApprovals) parts.push("learned from ≥ " + d.bounds.minApprovals + " approvals");
  if (d.bounds.maxAmount) parts.push("amounts ≤ " + d.bounds.maxAmount);
  const who = d.apply === "auto" ? (d.mode === "enforce" ? "applied automatically" : "recorded in shadow (people still decide)")
    : "approved by " + APPLY_WORDS[d.apply];
  return `${parts.length ? "Fixes with " + parts.join("; ") : "Every fix"} → ${who}.`;
}

/** shape reads a draft's matching as policy-shadow compares it. */
function shape(d: Draft): Shape {
  const list = (k: string) => d.lists[k].split(",").map((x) => x.trim()).filter(Boolean);
  const bound = (k: string) => (d.bounds[k].trim() === "" ? null : Number(d.bounds[k]));
  return { classes: list("classes"), fields: list("fields"), systems: list("systems"), minConfidence: bound("minConfidence"),
    minApprovals: bound("minApprovals"), maxAmount: bound("maxAmount") };
}

const AUTO_APPLY = "sync_error_assist.auto_apply";
const AUTO_RETRY = "sync_error_assist.auto_retry";

/** Switches says how the tenant's automation switches stand (changed under Flags). */
function Switches({ settings }: { settings: Record<string, string | undefined> }) {
  const apply = settings[AUTO_APPLY] === "true";
  const retry = settings[AUTO_RETRY] !== "false";
  return (
    <ul class="switches" aria-label="Automation switches">
      <li><Chip kind={apply ? "written" : "skipped"}>auto-apply {apply ? "on" : "off"}</Chip>{" "}
        {apply ? "Enforce rules apply their fixes." : "Enforce rules apply nothing: they only record, as in shadow (“not applied: auto-apply is off”)."}</li>
      <li><Chip kind={retry ? "written" : "skipped"}>auto-retry {retry ? "on" : "off"}</Chip>{" "}
        {retry ? "Connection, intermittent and rate-limit errors are retried on the schedule." : "Nothing is retried on the schedule; people retry."}</li>
      <li class="note">Both are switched under Flags, above.</li>
    </ul>
  );
}

export function ApprovalPolicyEditor({ demo, settings }: { demo: boolean; settings?: Record<string, string | undefined> }) {
  const [policy, setPolicy] = useState<ApprovalPolicy | null>(null);
  const [drafts, setDrafts] = useState<Draft[]>([]);
  const [figures, setFigures] = useState<Record<string, RuleInsight>>({});
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [failed, setFailed] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The rule being switched to enforce, waiting for the confirmation: a new ask each time,
  // so a dialog's close event (a task of its own, which can come after the rule was asked
  // about again) closes only the ask it belonged to.
  const [enforcing, setEnforcing] = useState<{ index: number; n: number } | null>(null);
  const asks = useRef(0);
  const load = async () => {
    try {
      const p = (await read<ApprovalPolicy>("/api/settings/approval-policy", demoPolicy)).data;
      setPolicy(p);
      setDrafts(p.rules.map(toDraft));
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
    // The shadow figures are a help, not the editor: without them the rules still edit.
    const ins = await readOptional<Insights>("/api/sync-error-assist/insights?window=30d").catch(() => null);
    setFigures(Object.fromEntries((ins?.rules ?? []).map((r) => [r.ruleId, r])));
  };
  useEffect(() => {
    void load();
  }, []);
  if (failed !== null && !policy) return <PanelError what="The approval policy" error={failed} onRetry={() => void load()} />;
  if (!policy) return <p aria-busy="true">Loading the approval policy…</p>;
  const dirty = JSON.stringify(drafts) !== JSON.stringify(policy.rules.map(toDraft));
  const set = (i: number, d: Partial<Draft>) => setDrafts(drafts.map((x, j) => (j === i ? { ...x, ...d } : x)));
  const move = (i: number, by: number) => {
    const next = [...drafts];
    [next[i], next[i + by]] = [next[i + by], next[i]];
    setDrafts(next);
  };
  const save = async (e: Event) => {
    e.preventDefault();
    const local: FieldError[] = [];
    const rules = drafts.map((d, i) => toRule(d, `rules[${i}]`, local));
    if (local.length) return setErrors(local);
    setBusy(true);
    const r = await change(() => write<ApprovalPolicy>("PUT", "/api/settings/approval-policy", { version: policy.version, rules }),
      (fe) => setErrors(fe.map(listField)), load);
    setBusy(false);
    if (r) {
      setPolicy(r);
      setDrafts(r.rules.map(toDraft));
      announce(`Saved the approval policy (version ${r.version})`);
    }
  };
  const covered = shadowedBy(drafts.map(shape));
  const shown = drafts.flatMap((_, i) => [`rules[${i}].id`, `rules[${i}].apply`, `rules[${i}].mode`,
    ...[...LISTS, ...BOUNDS].map((k) => `rules[${i}].match.${k}`)]);
  return (
    <section aria-labelledby="policy-h">
      <h2 id="policy-h">Approval policy</h2>
      <p class="note">Who may apply which fix. Rules are tried in order and the first that matches decides; a fix no rule matches is for
        approvers. An “auto” rule in shadow only records what it would apply, and its agreement with what people then decided is shown
        beside it; switch it to enforce once that agreement is earned. {policy.version === 0 ? "This tenant has the default policy." : `Version ${policy.version}.`}</p>
      {settings && <Switches settings={settings} />}
      <form onSubmit={save}>
        {drafts.map((d, i) => <RuleFields key={i} d={d} i={i} last={i === drafts.length - 1} errors={errors} demo={demo}
          fig={figures[d.id]} set={(x) => set(i, x)} move={(by) => move(i, by)}
          shadow={covered[i] >= 0 ? { n: covered[i] + 1, id: drafts[covered[i]].id } : null}
          enforce={() => setEnforcing({ index: i, n: ++asks.current })}
          remove={() => setDrafts(drafts.filter((_, j) => j !== i))} />)}
        <OtherErrors errors={errors} shown={shown} />
        <div class="actions">
          <button type="button" disabled={demo} onClick={() => setDrafts([...drafts, { ...toDraft({ id: "rule-" + (drafts.length + 1), apply: "approver" }) }])}>Add rule</button>
          <button type="submit" class="primary" disabled={demo || busy || !dirty}>{busy ? "Saving…" : "Save policy"}</button>
          {dirty && <button type="button" onClick={() => { setDrafts(policy.rules.map(toDraft)); setErrors([]); }}>Discard changes</button>}
        </div>
      </form>
      {enforcing !== null && drafts[enforcing.index] && (
        <EnforceDialog key={enforcing.n} rule={drafts[enforcing.index].id} fig={figures[drafts[enforcing.index].id]}
          autoApply={settings?.[AUTO_APPLY] === "true"}
          onClose={() => setEnforcing((now) => (now === enforcing ? null : now))}
          onConfirm={() => { set(enforcing.index, { mode: "enforce" }); setEnforcing(null); }} />
      )}
    </section>
  );
}

/** EnforceDialog asks before a rule applies fixes by itself, with what it did in shadow over
 *  the last 30 days and the decisions people disagreed with, to open. */
function EnforceDialog(props: { rule: string; fig?: RuleInsight; autoApply: boolean; onConfirm: () => void; onClose: () => void }) {
  const { rule, fig } = props;
  const [odd, setOdd] = useState<Automation[] | null>(null);
  useEffect(() => {
    const q = new URLSearchParams({ mode: "shadow", rule, outcome: "disagreed", limit: "20" });
    void readOptional<List<Automation>>("/api/sync-error-assist/automation?" + q).then((l) => setOdd(l?.items ?? []), () => setOdd([]));
  }, [rule]);
  const shadow = fig?.mode === "shadow" ? fig : undefined;
  return (
    <ConfirmDialog title={`Enforce rule ${rule}?`} confirm="Switch to enforce" onClose={props.onClose} onConfirm={props.onConfirm}
      ready={odd !== null}>
      <p>Enforced, the rule applies the fixes it matches with no person deciding{props.autoApply ? "" : " — once auto-apply is switched on (it is off: until then it records only)"}. It takes effect when the policy is saved.</p>
      {shadow ? (
        <dl class="figures" aria-label="In shadow, the last 30 days">
          <div><dt>Would have applied</dt><dd class="num">{shadow.wouldHaveApplied}</dd></div>
          <div><dt>Same fix as people</dt><dd class="num">{shadow.same}</dd></div>
          <div><dt>People edited it</dt><dd class="num">{shadow.edited}</dd></div>
          <div><dt>People rejected it</dt><dd class="num">{shadow.rejected}</dd></div>
          <div><dt>Undecided</dt><dd class="num">{shadow.undecided}</dd></div>
          <div><dt>Agreement</dt><dd class="num">{pct(shadow.agreement)}</dd></div>
        </dl>
      ) : <p class="warn">This rule has no shadow record in the last 30 days: nothing shows how it would have done.</p>}
      {odd === null ? <p class="note" aria-busy="true">Reading the disagreements…</p> : odd.length === 0 ? <p class="note">No disagreement to look at.</p> : (
        <>
          <p>Where people disagreed (open each before enforcing):</p>
          <ul class="members" aria-label="Disagreements">
            {odd.map((a) => (
              <li><a class="mono" href={"/queue/" + a.claimId} target="_blank" rel="noopener"
                onClick={(e) => { if (!e.ctrlKey && !e.metaKey) { e.preventDefault(); props.onClose(); navigate("/queue/" + a.claimId); } }}>{a.errorId || a.claimId}</a>
                {a.recordId && <> — {a.recordType} / {a.recordId}</>} <Chip kind={a.outcome}>{a.outcome}</Chip></li>
            ))}
          </ul>
        </>
      )}
    </ConfirmDialog>
  );
}

function RuleFields(props: { d: Draft; i: number; last: boolean; errors: FieldError[]; demo: boolean; fig?: RuleInsight;
  shadow: { n: number; id: string } | null; enforce: () => void;
  set: (d: Partial<Draft>) => void; move: (by: number) => void; remove: () => void }) {
  const { d, i, errors, demo, fig, set } = props;
  const at = `rules[${i}]`;
  const id = (k: string) => `rule-${i}-${k}`;
  const input = (k: string, field: string, value: string, onInput: (v: string) => void, hint?: string) => (
    <div class="field">
      <label for={id(k)}>{LABELS[k] ?? k}</label>
      <input id={id(k)} type="text" value={value} disabled={demo} size={k === "fields" || k === "id" ? 26 : 16} spellcheck={false}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)} {...invalid(errors, field, hint ? id(k) + "-hint" : undefined)} />
      {hint && <span id={id(k) + "-hint"} class="note">{hint}</span>}
      <FieldMessage errors={errors} field={field} />
    </div>
  );
  return (
    <fieldset class="policy-rule">
      <legend>Rule {i + 1}: {d.id || "(no id)"}</legend>
      <div class="fields">
        {input("id", `${at}.id`, d.id, (v) => set({ id: v }))}
        <div class="field">
          <label for={id("apply")}>Who applies</label>
          <select id={id("apply")} value={d.apply} disabled={demo} onChange={(e) => set({ apply: (e.target as HTMLSelectElement).value as Apply })}
            {...invalid(errors, `${at}.apply`)}>
            {APPLIES.map((a) => <option value={a}>{a === "auto" ? "automatic (auto)" : APPLY_WORDS[a]}</option>)}
          </select>
          <FieldMessage errors={errors} field={`${at}.apply`} />
        </div>
        {d.apply === "auto" && (
          <div class="field">
            <label for={id("mode")}>Mode</label>
            <select id={id("mode")} value={d.mode} disabled={demo} onChange={(e) => {
              const el = e.target as HTMLSelectElement;
              // Enforcing asks first (with the shadow record); the select shows the draft until then.
              if (el.value === "enforce") {
                el.value = d.mode;
                props.enforce();
              } else set({ mode: el.value as Draft["mode"] });
            }}
              {...invalid(errors, `${at}.mode`)}>
              <option value="shadow">shadow: record only</option><option value="enforce">enforce: apply</option>
            </select>
            <FieldMessage errors={errors} field={`${at}.mode`} />
          </div>
        )}
        <Classes at={at} i={i} d={d} demo={demo} errors={errors} set={set} />
        {LISTS.filter((k) => k !== "classes").map((k) => input(k, `${at}.match.${k}`, d.lists[k], (v) => set({ lists: { ...d.lists, [k]: v } }),
          k === "fields" ? "globs; !glob excludes; @sensitive" : "host_erp or the error's system"))}
        {BOUNDS.map((k) => input(k, `${at}.match.${k}`, d.bounds[k], (v) => set({ bounds: { ...d.bounds, [k]: v } })))}
      </div>
      <p class="says note">{says(d)}</p>
      {props.shadow && (
        <p class="warn" id={id("shadowed")}>Never matches: rule {props.shadow.n} ({props.shadow.id || "no id"}) comes first and matches every fix
          this rule would. Move this rule above it, or narrow rule {props.shadow.n}.</p>
      )}
      {d.apply === "auto" && <Agreement fig={fig} />}
      <div class="actions">
        <button type="button" disabled={demo || i === 0} onClick={() => props.move(-1)}>Move up<span class="sr-live"> rule {i + 1}</span></button>
        <button type="button" disabled={demo || props.last} onClick={() => props.move(1)}>Move down<span class="sr-live"> rule {i + 1}</span></button>
        <button type="button" disabled={demo} onClick={props.remove}>Remove<span class="sr-live"> rule {i + 1}</span></button>
      </div>
    </fieldset>
  );
}

/** Agreement is what an auto rule did in the last 30 days (the insights' figures). */
function Agreement({ fig }: { fig?: RuleInsight }) {
  if (!fig) return <p class="note">No record in the last 30 days: the rule has not matched a fix yet (or is not saved).</p>;
  if (fig.mode === "enforce") return <p class="note">Enforced, last 30 days: applied {fig.applied}, reverted {fig.reverted}.</p>;
  return (
    <p class="note">Shadow, last 30 days: would have applied {fig.wouldHaveApplied}; people then approved the same fix {fig.same} times, edited
      it {fig.edited}, rejected it {fig.rejected}, {fig.undecided} undecided — agreement <strong>{pct(fig.agreement)}</strong>.</p>
  );
}

/** Classes is a rule's class list as checkboxes of the known classes (none checked matches
 *  every class); a stored class the list does not know stays, checked, until unticked. */
function Classes(props: { at: string; i: number; d: Draft; demo: boolean; errors: FieldError[]; set: (d: Partial<Draft>) => void }) {
  const { at, i, d, demo, errors, set } = props;
  const picked = d.lists.classes.split(",").map((x) => x.trim()).filter(Boolean);
  const all = [...CLASSES, ...picked.filter((c) => !(CLASSES as string[]).includes(c))];
  const toggle = (c: string, on: boolean) => {
    const next = on ? [...picked, c] : picked.filter((x) => x !== c);
    set({ lists: { ...d.lists, classes: all.filter((x) => next.includes(x)).join(", ") } });
  };
  return (
    <fieldset class="field classes" {...invalid(errors, `${at}.match.classes`)}>
      <legend>Classes <span class="note">(none ticked: every class)</span></legend>
      {all.map((c) => (
        <label class="check"><input type="checkbox" checked={picked.includes(c)} disabled={demo} name={`rule-${i}-class`} value={c}
          onChange={(e) => toggle(c, (e.target as HTMLInputElement).checked)} /> {CLASS_WORDS[c as ClassName] ?? c}</label>
      ))}
      <FieldMessage errors={errors} field={`${at}.match.classes`} />
    </fieldset>
  );
}
