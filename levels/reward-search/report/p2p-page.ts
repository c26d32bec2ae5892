/**
 * `hexa inspect` of a p2p search (docs/guides/inspect.md, "A p2p search"): one self-contained page with the
 * lineage tree (branches, the best iteration marked) and, per iteration, the reviser's diagnosis and lesson, the
 * reward code's diff against its parent, the HP changes and configurations, the checkpoint table (mean ± std over
 * seeds and success rate per configuration and checkpoint), and each judged checkpoint's judgment with the
 * judgment page's parts (judgment-page.ts); then the lessons with their tiers and tier history. Every string
 * comes from a stranger's files and is escaped. No IO here (p2p-page-read.ts reads the folder).
 */
import { escapeHtml } from "../../../src/report/escape-html.ts";
import { lessonRow } from "../../../src/report/inspect/lessons-section.ts";
import { lineDiff } from "../../../src/report/line-diff.ts";
import { bestIteration, checkpointTable } from "../../../src/search/p2p-context.ts";
import type { IterationRecord, PlanRecord, TrainingRecord } from "../../../src/search/p2p-log.ts";
import { PLAYER, pickSection, STYLE } from "./judgment-page.ts";
import type { IterationPage, P2pPageInput } from "./p2p-page-read.ts";

const n2 = (x: number) => x.toFixed(2);
const num = (x: number) => String(Number(x.toPrecision(4)));
const FPS = 10;

/** The best finished iteration as the strategy picks it: by its score, among those the latest judge version scored. */
const bestOf = (its: readonly IterationPage[]): number | undefined => bestIteration(its.flatMap((it) => it.record ?? []))?.iteration;

const nodeLabel = (it: IterationPage, best: number | undefined): string => {
  const { plan, record } = it;
  const branch = plan.parent !== null && plan.parent !== plan.iteration - 1 ? ` <span class="branch">branch from ${plan.parent}</span>` : "";
  const score = record
    ? `score ${n2(record.score)} (config ${record.best}, ${escapeHtml(record.configs[record.best]!.directive)})`
    : `<span class="muted">training: ${it.trainings.length} of ${plan.configs.length} × seeds written</span>`;
  const marks = [
    ...(plan.iteration === best ? ['<b class="best">★ best</b>'] : []),
    ...(record?.newBest && plan.iteration !== best ? ["a new best then"] : []),
    ...(plan.revision.structural ? ["structural"] : []),
    ...(plan.revision.noChange ? ["no reward change"] : []),
  ];
  return `<a href="#it-${plan.iteration}">iteration ${plan.iteration}</a>: ${score}${branch}${marks.length ? ` — ${marks.join(", ")}` : ""}`;
};

/** The lineage as nested lists: each iteration under the one it was based on. */
const lineageTree = (its: readonly IterationPage[], best: number | undefined): string => {
  const children = (parent: number | null): string => {
    const kids = its.filter((it) => it.plan.parent === parent);
    return kids.length ? `<ul>${kids.map((it) => `<li>${nodeLabel(it, best)}${children(it.plan.iteration)}</li>`).join("")}</ul>` : "";
  };
  return `<div class="tree">${children(null)}</div>`;
};

const revisionSection = (p: PlanRecord): string => {
  const r = p.revision;
  const flags = [
    r.structural ? "structural rewrite" : "",
    r.noChange ? "no reward change" : "",
    r.plateau ? "after a plateau (a structural change required)" : "",
  ].filter(Boolean);
  return `<p class="muted">the reviser's reading of the lineage when it planned this iteration:</p><p><b>diagnosis</b>: ${escapeHtml(r.diagnosis) || '<span class="muted">none</span>'}</p>${r.lesson ? `<p><b>lesson</b>: ${escapeHtml(r.lesson)}</p>` : ""}${
    r.rewardChanges.length ? `<p><b>reward changes</b>:</p><ul>${r.rewardChanges.map((c) => `<li>${escapeHtml(c)}</li>`).join("")}</ul>` : ""
  }${flags.length ? `<p class="muted">${escapeHtml(flags.join("; "))}</p>` : ""}${r.note ? `<p class="muted">note: ${escapeHtml(r.note)}</p>` : ""}`;
};

const hpChangesTable = (p: PlanRecord): string => {
  const rows = Object.entries(p.revision.hpChanges);
  if (p.parent === null) return '<p class="muted">HPs: the task\'s own (first iteration)</p>';
  return rows.length
    ? `<h4>HP changes from iteration ${p.parent}</h4><table><thead><tr><th>setting</th><th class="num">from</th><th class="num">to</th></tr></thead><tbody>${rows
        .map(([k, [a, b]]) => `<tr><td>${escapeHtml(k)}</td><td class="num">${num(a)}</td><td class="num">${num(b)}</td></tr>`)
        .join("")}</tbody></table>`
    : `<p class="muted">no HP change from iteration ${p.parent} (its HPs kept)</p>`;
};

/** Each configuration: its directive, the settings where it differs from the revised one, and its mean ± std over seeds. */
const configsTable = (p: PlanRecord, r: IterationRecord | undefined): string => {
  const revised = p.configs[0]!.hp;
  const rows = p.configs.map((c, i) => {
    const differs = Object.entries(c.hp).filter(([k, v]) => i === 0 || revised[k] !== v);
    const shown = differs.map(([k, v]) => `${k} ${num(v)}`).join(", ");
    const rc = r?.configs[i];
    const scores = rc ? `${n2(rc.mean)} ± ${n2(rc.std)}` : "";
    const seeds = rc ? rc.seeds.map((s, j) => `seed ${s}: ${n2(rc.scores[j]!)}`).join(", ") : "";
    return `<tr${r?.best === i ? ' class="bestrow"' : ""}><td class="num">${i}${r?.best === i ? " ★" : ""}</td><td>${escapeHtml(c.directive)}</td><td>${escapeHtml(shown)}</td><td class="num">${scores}</td><td>${escapeHtml(seeds)}</td></tr>`;
  });
  return `<h4>Configurations</h4><table><thead><tr><th class="num">config</th><th>directive</th><th>HPs (the revised config's all; the variants' where they differ)</th><th class="num">mean ± std over seeds</th><th>per seed</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
};

/** Configurations × checkpoints: mean ± std over seeds and the success rate, from the strategy's own table. */
const checkpointSection = (it: IterationPage, passAt: number): string => {
  if (!it.record) return "";
  const bySeed = it.record.configs.map((c) => c.seeds.map((s) => it.trainings.find((t) => t.config === c.config && t.seed === s)));
  if (bySeed.some((seeds) => seeds.some((t) => t === undefined)))
    return '<p class="muted">checkpoint table: a training file is missing or was refused (see the notices)</p>';
  const rows = checkpointTable(bySeed as TrainingRecord[][], passAt);
  const fractions = [...new Set(rows.map((r) => r.fraction))].sort((a, b) => a - b);
  const body = it.record.configs
    .map((c) => {
      const cells = fractions.map((f) => {
        const row = rows.find((r) => r.config === c.config && r.fraction === f);
        return row
          ? `<td class="num">${n2(row.mean)} ± ${n2(row.std)}<br><span class="muted">${Math.round(100 * row.successRate)} % pass</span></td>`
          : "<td></td>";
      });
      return `<tr><td class="num">${c.config}</td>${cells.join("")}</tr>`;
    })
    .join("");
  return `<h4>Checkpoint table</h4><p class="muted">judged score per checkpoint, mean ± std over seeds; pass: score ≥ ${passAt}</p><table><thead><tr><th class="num">config</th>${fractions
    .map((f) => `<th class="num">${Math.round(100 * f)} %</th>`)
    .join("")}</tr></thead><tbody>${body}</tbody></table>`;
};

const trainingRow = (t: TrainingRecord): string => {
  const what =
    t.outcome.kind === "error"
      ? `<span class="bad">${escapeHtml(`failed: ${t.outcome.error}: ${t.outcome.message}`)}</span>`
      : t.judged.map((j) => escapeHtml(`step ${j.step} (${Math.round(100 * j.fraction)} %): ${n2(j.score)} — ${j.detail}`)).join("<br>");
  return `<tr><td class="num">${t.config}</td><td class="num">${t.seed}</td><td class="num">${n2(t.score)}</td><td>${what}</td></tr>`;
};

const trainingsDetail = (ts: readonly TrainingRecord[]): string =>
  ts.length
    ? `<details><summary>trainings (${ts.length}) and their judged checkpoints</summary><table><thead><tr><th class="num">config</th><th class="num">seed</th><th class="num">score</th><th>checkpoints</th></tr></thead><tbody>${ts
        .map(trainingRow)
        .join("")}</tbody></table></details>`
    : "";

/** The reward code against its parent's, line by line; the first iteration's in full. */
const codeSection = (its: readonly IterationPage[], p: PlanRecord): string => {
  const parent = p.parent === null ? undefined : its[p.parent]?.plan.code;
  if (parent === undefined) return `<details><summary>reward code</summary><div class="diff"><pre>${escapeHtml(p.code)}</pre></div></details>`;
  if (parent === p.code) return `<p class="muted">reward code: unchanged from iteration ${p.parent}</p>`;
  const diff = lineDiff(parent, p.code);
  const body = diff
    ? diff.map((l) => `<span class="${l.op}">${l.op === "added" ? "+ " : l.op === "removed" ? "- " : "  "}${escapeHtml(l.text)}</span>`).join("")
    : escapeHtml(p.code);
  const count = (op: string) => diff?.filter((l) => l.op === op).length ?? 0;
  return `<details open><summary>reward code against iteration ${p.parent}${diff ? ` (${count("removed")} lines removed, ${count("added")} added)` : " (too long to diff: shown whole)"}</summary><div class="diff"><pre>${body}</pre></div></details>`;
};

const judgmentsSection = (it: IterationPage): string =>
  it.judgments.length
    ? `<h4>Judged checkpoints</h4>${it.judgments
        .map(
          (j) =>
            `<details><summary>${escapeHtml(`config ${j.config}, seed ${j.seed}, step ${j.step}: judged by the ${j.page.file.judge.label}`)}</summary>${j.page.file.picks
              .map((p) => pickSection(j.page.file, p, j.page.pictures.get(p.pick)))
              .join("")}</details>`,
        )
        .join("")}`
    : "";

const iterationSection = (its: readonly IterationPage[], it: IterationPage, best: number | undefined, passAt: number): string => {
  const p = it.plan;
  const r = it.record;
  const head = `iteration ${p.iteration}${p.parent === null ? "" : ` (based on ${p.parent})`}${r ? `: score ${n2(r.score)}` : ": training"}${p.iteration === best ? " ★ best" : ""}`;
  return `<section class="iteration" id="it-${p.iteration}"><h3>${escapeHtml(head)}</h3>${revisionSection(p)}${codeSection(its, p)}${hpChangesTable(p)}${configsTable(p, r)}${checkpointSection(it, passAt)}${trainingsDetail(it.trainings)}${judgmentsSection(it)}</section>`;
};

const lessonsSection = (input: P2pPageInput): string =>
  input.lessons.length
    ? `<table class="lessons"><thead><tr><th>task</th><th>id</th><th>tier</th><th>lesson</th><th>tier changes</th></tr></thead><tbody>${input.lessons.map(lessonRow).join("")}</tbody></table>`
    : '<p class="muted">no lesson yet</p>';

const P2P_STYLE = `.tree ul { list-style: none; padding-left: 18px; border-left: 1px dotted #b8c0cc; } .tree > ul { border-left: none; padding-left: 0; }
.best { color: #1a7f52; } .branch { color: #8a4b00; } tr.bestrow td { background: #eef8f2; } section.iteration { border-top: 1px solid #d9dee5; margin-top: 18px; }
.diff pre { white-space: pre-wrap; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: #fafbfc; padding: 6px; }
.diff .added { background: #e3f6e9; display: block; } .diff .removed { background: #fde7e5; display: block; } .diff .same { display: block; }
table.lessons td:nth-child(-n + 3) { white-space: nowrap; }
header .live { float: right; font-size: 12px; color: #5f6b7a; }`;

/** Live: on each event from `hexa inspect --serve` the page fetches itself again and swaps its content, keeping open details. */
const LIVE = `
const status = document.getElementById("live-status");
let timers = [];
const players = () => { const setInterval = (f, ms) => { const t = window.setInterval(f, ms); timers.push(t); return t; }; ${PLAYER(FPS)} };
players();
const events = new EventSource("/events");
status.textContent = "live: following the search";
events.onmessage = async () => {
  const open = new Set([...document.querySelectorAll("details[open] > summary")].map((s) => s.textContent));
  const text = await (await fetch("/", { cache: "no-store" })).text();
  const next = new DOMParser().parseFromString(text, "text/html").getElementById("page");
  if (!next) return;
  timers.forEach((t) => clearInterval(t));
  timers = [];
  document.getElementById("page").replaceWith(next);
  for (const s of document.querySelectorAll("details > summary")) if (open.has(s.textContent)) s.parentElement.open = true;
  players();
  status.textContent = "live: updated " + new Date().toLocaleTimeString();
};
events.onerror = () => { status.textContent = "live: server not answering (the page stays as it is)"; };`;

/** Where the best was chosen among the iterations one version of the code judge scored, which. */
const versionNote = (r: IterationRecord): string => (r.judgeVersion === undefined ? "" : `; among the iterations scored by code judge v${r.judgeVersion}`);

const summaryLine = (input: P2pPageInput, best: number | undefined): string => {
  const h = input.header;
  const done = input.iterations.filter((it) => it.record).length;
  const b =
    best === undefined
      ? "no iteration finished yet"
      : `best: iteration ${best}, score ${n2(input.iterations[best]!.record!.score)} (its best configuration's mean over seeds${versionNote(input.iterations[best]!.record!)})`;
  return `${done} of ${input.iterations.length} planned iterations judged; ${b}. Reviser: ${h.proposer}; budget ${h.budget} trainings of ${h.trainSteps} steps; settings ${JSON.stringify(h.options)}.`;
};

/** The whole page; `live` adds the script that follows `hexa inspect --serve`. */
export const renderP2pPage = (input: P2pPageInput, opts: { live: boolean }): string => {
  const best = bestOf(input.iterations);
  const title = `p2p search on ${input.header.task}: ${input.dir}`;
  const csp = `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src ${opts.live ? "'self'" : "'none'"}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>${escapeHtml(title)} — hexa inspect</title><style>${STYLE}\n${P2P_STYLE}</style></head><body>
<header><span class="live" id="live-status"></span><h1>${escapeHtml(title)}</h1></header>
<div id="page">
<p>${escapeHtml(summaryLine(input, best))}</p>
${input.notices.map((n) => `<p class="muted">notice: ${escapeHtml(n)}</p>`).join("")}
<h2>Lineage</h2>${input.iterations.length ? lineageTree(input.iterations, best) : '<p class="muted">no iteration planned yet</p>'}
<h2>Iterations</h2>${input.iterations.map((it) => iterationSection(input.iterations, it, best, input.passAt)).join("\n")}
<h2>Lessons</h2><p class="muted">HARD: never violated; STRONG: followed unless evidence says otherwise; SOFT: challengeable; RETIRED: inactive, shown with the reason.</p>${lessonsSection(input)}
</div>
<script>${opts.live ? LIVE : PLAYER(FPS)}</script>
</body></html>
`;
};
