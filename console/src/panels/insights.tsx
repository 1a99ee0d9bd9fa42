// Insights: how the window's sync errors came out, day by day, by class and by system, and
// how each auto rule of the approval policy agrees with people. The auto-resolution rate
// is shown with its definition and the two counts it divides. The charts are a few SVG rectangles drawn here (no
// chart library); each is an image with a one-line summary for assistive technology and
// has its figures as a table beside it, so nothing is said by colour or shape alone.
import { useEffect, useState } from "preact/hooks";
import { read } from "../api/client";
import { demoInsights } from "../api/demo-assist";
import type { InsightCounts, Insights, RuleInsight } from "../api/types";
import { navigate } from "../router";
import { Ago, PanelError } from "../ui";

interface Series { key: string; label: string }
interface Row { label: string; values: number[]; note?: string }

const OUTCOMES: Series[] = [
  { key: "retry", label: "resolved by retry" }, { key: "auto", label: "auto-applied" }, { key: "people", label: "resolved by people" },
  { key: "rejected", label: "rejected" }, { key: "reverted", label: "reverted" }, { key: "open", label: "open" },
];
const AGREEMENT: Series[] = [
  { key: "same", label: "same fix" }, { key: "edited", label: "edited" }, { key: "rejected", label: "rejected" }, { key: "open", label: "undecided" },
];

/** outcomes splits received into parts that add up (the service counts each row in one:
 *  auto-applied is what rules applied and people kept; a reverted one counts as reverted). */
function outcomes(c: InsightCounts): number[] {
  return [c.resolvedByRetry, c.autoApplied, c.resolvedByPeople, c.rejected, c.reverted, c.open];
}

/** rateNote is a row's auto-resolution rate with the counts it divides. */
const rateNote = (c: InsightCounts) => (c.autoResolutionRate === null ? undefined : `${pct(c.autoResolutionRate)} auto-resolved (${c.autoResolved} of ${c.resolved})`);

/** day names a UTC date ("2026-11-23") as the reader's short date. */
const day = (d: string) => new Date(d + "T00:00:00Z").toLocaleDateString(undefined, { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" });

export const pct = (r: number | null | undefined) => (r === null || r === undefined ? "—" : Math.round(r * 100) + " %");

export function duration(s: number | null | undefined): string {
  if (s === null || s === undefined) return "—";
  if (s < 90) return Math.round(s) + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  if (s < 172800) return (s / 3600).toFixed(1) + " h";
  return (s / 86400).toFixed(1) + " d";
}

export function InsightsPanel() {
  const [win, setWin] = useState(new URLSearchParams(location.search).get("window") === "30d" ? "30d" : "7d");
  const [data, setData] = useState<Insights | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const load = async () => {
    try {
      setData((await read<Insights>("/api/sync-error-assist/insights?window=" + win, demoInsights)).data);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  useEffect(() => {
    void load();
  }, [win]);
  const pick = (w: string) => {
    setWin(w);
    navigate("/insights" + (w === "30d" ? "?window=30d" : ""), true);
  };
  const classes = data ? Object.entries(data.byClass).sort((a, b) => b[1].received - a[1].received) : [];
  const systems = data ? Object.entries(data.bySystem ?? {}).sort((a, b) => b[1].received - a[1].received) : [];
  return (
    <section aria-labelledby="insights-h" class="insights">
      <div class="toolbar">
        <h1 id="insights-h">Insights</h1>
        <label>Window{" "}
          <select value={win} onChange={(e) => pick((e.target as HTMLSelectElement).value)}>
            <option value="7d">last 7 days</option><option value="30d">last 30 days</option>
          </select>
        </label>
        {data && <span class="note">since <Ago at={data.since} /></span>}
      </div>
      {failed !== null && <PanelError what="The insights" error={failed} onRetry={() => void load()} />}
      {!data && failed === null && <p aria-busy="true">Loading insights…</p>}
      {data && (
        <>
          {data.truncated && <p class="warn">The window holds more sync errors than one answer reads; the figures cover the first 5000 of each status.</p>}
          <Headline t={data.total} definition={data.rateDefinition} />
          <Chart id="daily" title="Daily trend: sync errors received each day, by how they came out" series={OUTCOMES} head="Day (UTC)"
            rows={data.daily.map((d) => ({ label: day(d.date), values: outcomes(d), note: rateNote(d) }))} />
          <Chart id="by-class" title="How sync errors came out, by class" series={OUTCOMES}
            rows={classes.map(([k, c]) => ({ label: k, values: outcomes(c), note: rateNote(c) }))} />
          <Chart id="by-system" title="How sync errors came out, by system" series={OUTCOMES} head="System"
            rows={systems.map(([k, c]) => ({ label: k, values: outcomes(c), note: rateNote(c) }))} />
          <Chart id="time" title="Median time to resolve, by class" series={[{ key: "time", label: "median time to resolve" }]} format={duration} rows={classes.filter(([, c]) => c.medianSecondsToResolve !== null)
              .map(([k, c]) => ({ label: k, values: [c.medianSecondsToResolve ?? 0] }))} />
          <Rules rules={data.rules} />
        </>
      )}
    </section>
  );
}

function Headline({ t, definition }: { t: InsightCounts; definition: string }) {
  const items: [string, string][] = [
    ["Received", String(t.received)], ["Folded occurrences", String(t.foldedOccurrences)], ["Auto-retried", String(t.autoRetried)],
    ["Resolved by retry", String(t.resolvedByRetry)], ["Auto-applied", String(t.autoApplied)], ["Resolved by people", String(t.resolvedByPeople)],
    ["Rejected", String(t.rejected)], ["Reverted", String(t.reverted)], ["Open", String(t.open)],
    ["Resolved", String(t.resolved)], ["Auto-resolved", String(t.autoResolved)],
    ["Auto-resolution rate", pct(t.autoResolutionRate)], ["Median time to resolve", duration(t.medianSecondsToResolve)],
  ];
  return (
    <>
      <dl class="figures">{items.map(([k, v]) => <div><dt>{k}</dt><dd class="num">{v}</dd></div>)}</dl>
      <p class="note" id="rate-definition">
        <strong>Auto-resolution rate</strong> = auto-resolved ÷ resolved = ({t.resolvedByRetry} by retry + {t.autoApplied} auto-applied)
        ÷ ({t.resolvedByRetry} + {t.autoApplied} + {t.resolvedByPeople} by people) = {t.autoResolved} ÷ {t.resolved} = {pct(t.autoResolutionRate)}: {definition}.
      </p>
    </>
  );
}

function Rules({ rules }: { rules: RuleInsight[] }) {
  if (rules.length === 0) return <p class="empty">No auto rule matched a fix in this window. Rules with apply “auto” are set in Settings → Approval policy.</p>;
  const shadow = rules.filter((r) => r.mode === "shadow");
  const enforce = rules.filter((r) => r.mode === "enforce");
  return (
    <>
      {shadow.length > 0 && <Chart id="agreement" title="Shadow rules: would have applied, against what people decided" series={AGREEMENT}
        rows={shadow.map((r) => ({ label: r.ruleId, values: [r.same, r.edited, r.rejected, r.undecided],
          note: "agreement " + pct(r.agreement) }))} />}
      {enforce.length > 0 && <Chart id="enforced" title="Enforced rules: applied and reverted"
        series={[{ key: "auto", label: "applied, kept" }, { key: "reverted", label: "reverted" }]}
        rows={enforce.map((r) => ({ label: r.ruleId, values: [Math.max(r.applied - r.reverted, 0), r.reverted] }))} />}
    </>
  );
}

/** Chart draws one horizontal (stacked) bar per row, on one scale, with a legend and its
 *  figures as a table. */
function Chart(props: { id: string; title: string; series: Series[]; rows: Row[]; format?: (n: number) => string; head?: string }) {
  const { id, title, series, rows } = props;
  const fmt = props.format ?? String;
  const max = Math.max(1, ...rows.map((r) => r.values.reduce((a, b) => a + b, 0)));
  const summary = rows.length === 0 ? "no data" : rows.map((r) => `${r.label}: ` +
    series.map((s, i) => `${fmt(r.values[i])} ${s.label}`).join(", ")).join("; ");
  return (
    <figure class="chart" aria-labelledby={id + "-h"}>
      <figcaption id={id + "-h"}><h2>{title}</h2></figcaption>
      {rows.length === 0 ? <p class="empty">Nothing in this window.</p> : (
        <>
          {series.length > 1 && <ul class="legend" aria-hidden="true">{series.map((s) => <li><span class={"swatch s-" + s.key} /> {s.label}</li>)}</ul>}
          <div class="bars" role="img" aria-label={`${title}. ${summary}.`}>
            {rows.map((r) => {
              let x = 0;
              return (
                <div class="bar-row">
                  <span class="bar-label">{r.label}</span>
                  <svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                    {r.values.map((v, i) => {
                      const w = (v / max) * 100;
                      const rect = v > 0 ? <rect class={"s-" + series[i].key} x={x} y={0} width={w} height={10}><title>{`${fmt(v)} ${series[i].label}`}</title></rect> : null;
                      x += w;
                      return rect;
                    })}
                  </svg>
                  <span class="bar-value num">{series.length === 1 ? fmt(r.values[0]) : r.values.reduce((a, b) => a + b, 0)}{r.note ? <span class="note"> · {r.note}</span> : null}</span>
                </div>
              );
            })}
          </div>
          <details>
            <summary>{title}: the figures as a table</summary>
            <div class="table-scroll">
              <table class="grid plain">
                <thead><tr><th scope="col">{props.head ?? (id === "by-class" || id === "time" ? "Class" : "Rule")}</th>
                  {series.map((s) => <th scope="col" class="num">{s.label}</th>)}{rows.some((r) => r.note) && <th scope="col">Note</th>}</tr></thead>
                <tbody>{rows.map((r) => (
                  <tr><th scope="row">{r.label}</th>{r.values.map((v) => <td class="num">{fmt(v)}</td>)}{rows.some((x) => x.note) && <td>{r.note}</td>}</tr>
                ))}</tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}
