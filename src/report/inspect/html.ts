import type { Report } from "./model.ts";
import { lessonsSection } from "./lessons-section.ts";
import { bundleText, verificationText } from "./attestation-view.ts";
import { SERIES_COLOURS, SERIES_DASHES } from "../palette.ts";
import { escapeText } from "../escape-html.ts";

/**
 * The report page: one HTML file with everything inlined (vega and vega-lite bundles, the page script, the
 * style and the data), so that it opens from disk with no network. The CLI reads the bundles and the script
 * (src/report does no IO) and passes their text in.
 */

export interface PageAssets {
  /** vega/build/vega.min.js and vega-lite/build/vega-lite.min.js: UMD bundles that define `vega` and `vegaLite`. */
  vega: string;
  vegaLite: string;
  /** src/report/inspect/client-bank.js, client-search.js, then client.js: draw the report from the data and, when live, follow the run. */
  client: string;
}

/** JSON inside a <script> element: `<` escaped, so no string in the data can close the element. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** The final scores as a static section (written once a run or search ends, so nothing to follow live). */
const finalSection = (report: Report): string =>
  report.finals.length
    ? `<section id="final"><h2>Final scores</h2>${report.finals
        .map((v) =>
          v.levels
            .map(
              (l) =>
                `<h3>${escapeText(`${l.level} (${v.name})`)}</h3><p class="muted">${escapeText(`${l.measure}; ${l.spent} trained${l.source ? `, from ${l.source}` : ""}`)}</p><table><tbody>${l.figures
                  .map((f) => `<tr><td>${escapeText(f)}</td></tr>`)
                  .join("")}<tr><td class="muted">${escapeText(`per seed: ${l.perSeed.join(", ")}`)}</td></tr></tbody></table>`,
            )
            .join(""),
        )
        .join("")}</section>`
    : "";

/** Each run's last verification and its bundle's manifest hash (docs/guides/publishing.md): static, as the files are written after the run. */
const verificationSection = (report: Report): string =>
  report.attestations.length
    ? `<section id="verification"><h2>Verification</h2><table><tbody>${report.attestations
        .map((a) => {
          const v = a.verification;
          const cls = v === undefined ? "muted" : v.status === "identical" ? "ok" : "bad";
          const rows = [
            `<td class="${cls}">${escapeText(v ? verificationText(v) : "not verified (hexa verify RUN_DIR)")}</td>`,
            ...(a.bundle ? [`<td>${escapeText(bundleText(a.bundle))}</td>`] : []),
          ];
          return rows.map((r) => `<tr><th>${escapeText(a.run)}</th>${r}</tr>`).join("");
        })
        .join("")}</tbody></table></section>`
    : "";

const STYLE = `
:root { --fg: #1d2330; --muted: #5f6b7a; --line: #d9dee5; --ok: #1a7f52; --bad: #b3261e; --warn: #8a5a00; --bg2: #f5f7fa; --accent: #205dd6; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; }
header { padding: 14px 24px 8px; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: #fff; z-index: 5; }
header h1 { font-size: 18px; margin: 0 0 4px; }
header nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
header .live { float: right; font-size: 12px; color: var(--muted); }
main { padding: 8px 24px 40px; max-width: 1280px; overflow-wrap: anywhere; }
section { margin: 18px 0 28px; }
h2 { font-size: 16px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg2); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.notice { background: #fff6e0; border: 1px solid #f0d48a; color: var(--warn); padding: 6px 10px; margin: 6px 0; border-radius: 4px; }
.ok { color: var(--ok); } .bad { color: var(--bad); } .muted { color: var(--muted); }
.chart { min-height: 120px; margin: 4px 0 12px; max-width: 100%; overflow-x: auto; }
.chart-note { margin: -6px 0 12px; color: var(--warn); font-size: 12px; }
.chart-note:empty { display: none; }
/* Wide tables scroll inside their section, never the page. */
.table-scroll, #episode-list, #usage-body, #search-summary, #verification, #final { max-width: 100%; overflow-x: auto; }
table.legend td, table.summary td { vertical-align: middle; }
table.legend .swatch, table.summary .swatch { vertical-align: middle; }
td.series-name { min-width: 14em; }
td.run-id { white-space: nowrap; }
.row { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
.row > div { min-width: 0; max-width: 100%; }
.controls { margin: 6px 0; display: flex; flex-wrap: wrap; gap: 10px; align-items: center; }
select, button, input { font: inherit; }
select { max-width: 100%; }
.controls > * { min-width: 0; max-width: 100%; }
#episode-list tr.episode { cursor: pointer; }
#episode-list tr.episode:hover { background: var(--bg2); }
#episode-list tr.open { background: #eaf1ff; }
.detail { border: 1px solid var(--line); border-radius: 6px; padding: 10px; background: #fcfdff; }
.turn { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.turn.failed { border-left-color: var(--bad); }
.turn pre, .entry pre, .diff pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.pictures img { border: 1px solid var(--line); margin-right: 8px; image-rendering: auto; }
.entry { border: 1px solid var(--line); border-radius: 4px; padding: 4px 8px; margin: 4px 0; }
.diff .added { background: #e3f6e9; } .diff .removed { background: #fde7e5; } .diff .changed { background: #fff8e1; }
ins { background: #b9ebc8; text-decoration: none; } del { background: #f7c1bb; }
#entry-detail { min-height: 40px; }
ul.tree, ul.tree ul { list-style: none; margin: 0; padding-left: 20px; border-left: 1px dashed var(--line); }
ul.tree { padding-left: 0; border-left: none; }
ul.tree li { margin: 3px 0; }
ul.tree summary { cursor: pointer; }
ul.tree li.best-path > details > summary { font-weight: 600; }
ul.tree li.failed > details > summary .idx { color: var(--bad); }
ul.tree .candidate { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 4px 0 8px; background: #fcfdff; }
ul.tree .candidate h4 { font-size: 12px; margin: 8px 0 2px; color: var(--muted); }
ul.tree .candidate pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.badge { font-size: 11px; padding: 0 6px; border-radius: 8px; border: 1px solid var(--line); background: var(--bg2); }
.badge.best { background: #e3f6e9; border-color: var(--ok); color: var(--ok); font-weight: 600; }
footer { color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding: 8px 24px; }
`;

/** The whole page. `live` pages follow the run through server-sent events from `hexa inspect --serve`. */
export const renderReportHtml = (report: Report, assets: PageAssets, opts: { live: boolean }): string =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:${opts.live ? " 'self'" : ""}; connect-src ${opts.live ? "'self'" : "'none'"}">
<title>${escapeText(report.title)} — hexa inspect</title>
<style>${STYLE}</style>
</head><body>
<header><span class="live" id="live-status"></span><h1 id="title">${escapeText(report.title)}</h1>
<nav><a href="#summary">Summary</a>${report.attestations.length ? '<a href="#verification">Verification</a>' : ""}${report.finals.length ? '<a href="#final">Final scores</a>' : ""}<a href="#curves">Learning curves</a><a href="#bank">Bank</a><a href="#episodes">Episodes</a><a href="#usage">Usage</a><a href="#searches">Searches</a></nav></header>
<main>
<div id="notices"></div>
<section id="summary"><h2>Summary</h2><div id="summary-body"></div></section>
${verificationSection(report)}
${finalSection(report)}
<section id="curves"><h2>Learning curves</h2><div id="curve-legend"></div>
<h3>Cumulative success vs seed index</h3><div class="chart" id="chart-cumulative"></div><p class="chart-note" id="chart-cumulative-note"></p>
<div class="row"><div><h3>Turns per episode</h3><div class="chart" id="chart-turns"></div><p class="chart-note" id="chart-turns-note"></p></div>
<div><h3>Success per round</h3><div class="chart" id="chart-rounds"></div><p class="chart-note" id="chart-rounds-note"></p></div></div></section>
<section id="bank"><h2>The bank over time</h2>
<div class="controls" id="bank-controls"></div>
<h3>Timeline: every entry ever created</h3><p class="muted">A bar from the round an entry was born to the round it was merged or pruned; ticks mark revisions, grey rules join merged entries to the entry they became, red rules mark evolver failures. Hover for the reason, click for the full history.</p>
<div class="chart" id="chart-timeline"></div><div id="entry-detail"></div>
<h3>Weight r<sub>k</sub> per round</h3><div class="chart" id="chart-weights"></div>
<h3>Diff between two rounds</h3><div class="controls" id="diff-controls"></div><div class="diff" id="diff-body"></div>
<h3>Lineage of merges and revisions</h3><div id="lineage"></div>
<h3>Evolver failures</h3><div id="failures"></div></section>${lessonsSection(report)}
<section id="episodes"><h2>Episodes</h2><div class="controls" id="episode-filters"></div><div id="episode-list"></div></section>
<section id="usage"><h2>Usage</h2><div class="chart" id="chart-usage"></div><div id="usage-body"></div></section>
<section id="searches" hidden><h2>Searches</h2><div class="controls" id="search-controls"></div><div id="search-summary"></div>
<h3>F of each candidate's final policy, with an edge from its parent</h3><p class="muted">Failed trainings are in the lineage only. Click a point to open the candidate below.</p>
<div class="chart" id="chart-search"></div>
<h3>Lineage</h3><p class="muted">Every candidate under its parent; open one for its thought, code and feedback. The path to the best candidate is in bold.</p>
<div id="search-tree"></div></section>
</main>
<footer id="footer"></footer>
<script>${assets.vega}</script>
<script>${assets.vegaLite}</script>
<script type="application/json" id="hexa-data">${scriptJson(report)}</script>
<script>window.HEXA_LIVE = ${opts.live ? "true" : "false"}; window.HEXA_SERIES = ${scriptJson({ colours: SERIES_COLOURS, dashes: SERIES_DASHES })};</script>
<script>${assets.client}</script>
</body></html>
`;
