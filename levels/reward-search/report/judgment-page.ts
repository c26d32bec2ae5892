/**
 * `hexa inspect` of a `hexa judge` folder (docs/guides/judging.md, "hexa inspect"): one self-contained page with,
 * for each pick, its frames as a moving picture and its motion trail, the vision judge's criteria and verdicts
 * where the judgment has them, the code judge's tree with every leaf PASS / FAIL / SKIP, and the synthesis rule.
 * Every string comes from a stranger's file: each is escaped, and the data the script reads is JSON with `<`
 * escaped. No IO here (judgment-page-read.ts reads the folder).
 */
import { escapeHtml } from "../../../src/report/escape-html.ts";
import type { JudgmentFile, PickedEpisode } from "../cli/judge-file.ts";
import type { Judgment } from "../judging/judgment.ts";

/** A vision judge's criterion with its verdict, where the judgment has them. */
export interface CriterionVerdict {
  criterion: string;
  verdict: string;
  assessment?: string;
}

/** What the page shows of one pick beyond judgment.json: its pictures (data: URLs) and criteria. */
export interface PickPictures {
  frames: string[];
  trail: string[];
  criteria?: CriterionVerdict[];
  /** Why pictures are missing or cut (too many, too large, not PNG). */
  notes: string[];
}

export interface JudgmentPageInput {
  /** The folder, as the user named it. */
  dir: string;
  file: JudgmentFile;
  pictures: Map<PickedEpisode["pick"], PickPictures>;
  fps: number;
}

const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

const n3 = (x: number) => x.toFixed(3);

/** A measured value: numbers to 4 significant digits, the rest as text. */
const valueText = (v: number | string | boolean | null): string => (v === null ? "" : typeof v === "number" ? String(Number(v.toPrecision(4))) : String(v));

/** One node of the code judge's tree as a table row, indented by depth; a leaf with its status. */
const nodeRow = (n: Judgment["nodes"][number]): string => {
  const name = `<td style="padding-left:${8 + 18 * (n.depth - 1)}px">${escapeHtml(`${n.id} ${n.name}`)}</td>`;
  const share = `<td class="num">${n3(n.contribution)} / ${n3(n.share)}</td>`;
  const rule = n.rule ? escapeHtml(n.rule) : "";
  if (!n.leaf) return `<tr class="group">${name}<td>${escapeHtml(n.order ?? "")}${n.skipped ? " SKIP" : ""}</td>${share}<td></td><td>${rule}</td></tr>`;
  const { status, mustKeep, result } = n.leaf;
  const cls = status === "PASS" ? "ok" : status === "FAIL" ? "bad" : "muted";
  const shown = status === "SKIP" ? "" : escapeHtml(valueText(result.value));
  const detail = [
    rule,
    status === "SKIP" ? "" : escapeHtml(result.note),
    result.tags.length && status !== "SKIP" ? escapeHtml(`{${result.tags.join(", ")}}`) : "",
  ]
    .filter(Boolean)
    .join("<br>");
  return `<tr>${name}<td class="${cls}"><b>${status}</b>${mustKeep ? " (must keep)" : ""}</td>${share}<td>${shown}</td><td>${detail}</td></tr>`;
};

/** The code judge's tree: its score, the rules that applied to the whole, every node and the ignored results. */
const treeSection = (j: Judgment): string => {
  const head = `<p>score <b>${n3(j.score)}</b> (top level ${escapeHtml(j.order)}${j.score !== j.sum ? `; ${n3(j.sum)} before the must-keep rule` : ""})${
    j.fault ? ` <span class="bad">${escapeHtml(`fault ${j.fault.tag}: ${j.fault.message}`)}</span>` : ""
  }</p>`;
  const rules = j.rules.length ? `<ul>${j.rules.map((r) => `<li>${escapeHtml(r)}</li>`).join("")}</ul>` : "";
  const rows = j.nodes.map(nodeRow).join("");
  const extras = j.extras.map((e) => `<li>${escapeHtml(`ignored result ${e.id ?? "(no id)"}: ${e.note}`)}</li>`).join("");
  return `${head}${rules}<table class="tree"><thead><tr><th>criterion</th><th>status</th><th class="num">points / share</th><th>value</th><th>rule and note</th></tr></thead><tbody>${rows}</tbody></table>${
    extras ? `<ul>${extras}</ul>` : ""
  }`;
};

/** The vision judge's criteria with their verdicts; nothing when the judgment has none. */
const criteriaSection = (criteria: readonly CriterionVerdict[] | undefined): string =>
  criteria?.length
    ? `<h4>Vision criteria</h4><table><thead><tr><th>criterion</th><th>verdict</th><th>assessment</th></tr></thead><tbody>${criteria
        .map((c) => `<tr><td>${escapeHtml(c.criterion)}</td><td><b>${escapeHtml(c.verdict)}</b></td><td>${escapeHtml(c.assessment ?? "")}</td></tr>`)
        .join("")}</tbody></table>`
    : "";

/** A moving picture: the first frame as an image, the rest played by the page's script from the data beside it. */
const film = (id: string, title: string, frames: readonly string[]): string =>
  frames.length
    ? `<figure class="film" data-film="${id}"><img alt="${escapeHtml(title)}" width="240" height="240" src="${escapeHtml(frames[0]!)}"><figcaption>${escapeHtml(title)} (${frames.length} frames) <button type="button">pause</button></figcaption><script type="application/json">${scriptJson(frames)}</script></figure>`
    : "";

export const pickSection = (f: JudgmentFile, p: PickedEpisode, pictures: PickPictures | undefined): string => {
  const episode = f.episodes.find((e) => e.seed === p.seed);
  const head = `<h3>${escapeHtml(`${p.pick}: seed ${p.seed}, score ${n3(p.score)}`)}${episode ? escapeHtml(`, F ${n3(episode.fitness)}, ${episode.steps} steps`) : ""}</h3>`;
  const verdict = "passed" in p.synthesis ? (p.synthesis.passed ? ["ok", "passed"] : ["bad", "not passed"]) : ["muted", "not settled"];
  const synthesis = `<p><span class="${verdict[0]}">${verdict[1]}</span> — synthesis (${escapeHtml(p.synthesis.kind)}): ${escapeHtml(p.synthesis.rule)}</p>`;
  const films = pictures
    ? `<div class="row">${film(`${p.pick}-frames`, "frames", pictures.frames)}${film(`${p.pick}-trail`, "motion trail", pictures.trail)}</div>`
    : "";
  const notes = [...(pictures?.notes ?? []), ...(p.frames === undefined ? ["no frames were rendered for this pick (hexa judge --frames renders them)"] : [])];
  const noteHtml = notes.map((n) => `<p class="muted">${escapeHtml(n)}</p>`).join("");
  const tree = p.judgment ? `<h4>Code judge</h4>${treeSection(p.judgment)}` : "";
  return `<section class="pick">${head}${synthesis}${films}${noteHtml}${criteriaSection(pictures?.criteria)}${tree}</section>`;
};

const episodesTable = (f: JudgmentFile): string =>
  `<table><thead><tr><th class="num">seed</th><th class="num">score</th><th class="num">F</th><th class="num">steps</th><th>fault</th></tr></thead><tbody>${f.episodes
    .map(
      (e) =>
        `<tr><td class="num">${e.seed}</td><td class="num">${n3(e.score)}</td><td class="num">${n3(e.fitness)}</td><td class="num">${e.steps}</td><td>${escapeHtml(e.fault ?? "")}</td></tr>`,
    )
    .join("")}</tbody></table>`;

/** Plays every film at `fps`; a button pauses and resumes it. */
export const PLAYER = (fps: number) => `
for (const fig of document.querySelectorAll("figure.film")) {
  const frames = JSON.parse(fig.querySelector("script").textContent);
  const img = fig.querySelector("img");
  const button = fig.querySelector("button");
  let i = 0;
  let timer = null;
  const play = () => { timer = setInterval(() => { i = (i + 1) % frames.length; img.src = frames[i]; }, ${Math.round(1000 / fps)}); button.textContent = "pause"; };
  const pause = () => { clearInterval(timer); timer = null; button.textContent = "play"; };
  button.addEventListener("click", () => (timer === null ? play() : pause()));
  play();
}`;

export const STYLE = `body { font: 14px/1.45 system-ui, sans-serif; color: #1d2330; margin: 0 24px 40px; max-width: 1280px; overflow-wrap: anywhere; }
h1 { font-size: 18px; } h2 { font-size: 16px; border-bottom: 1px solid #d9dee5; } h3 { font-size: 14px; margin-top: 22px; } h4 { font-size: 13px; margin: 12px 0 4px; }
table { border-collapse: collapse; font-size: 13px; } th, td { border-bottom: 1px solid #d9dee5; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f7fa; } .num { text-align: right; font-variant-numeric: tabular-nums; } tr.group td { background: #fafbfc; }
.ok { color: #1a7f52; } .bad { color: #b3261e; } .muted { color: #5f6b7a; } .row { display: flex; gap: 18px; flex-wrap: wrap; }
figure { margin: 0; } figure img { border: 1px solid #d9dee5; }`;

/** The whole page. */
export const renderJudgmentPage = (input: JudgmentPageInput): string => {
  const f = input.file;
  const title = `judgment of ${f.task}: ${input.dir}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)} — hexa inspect</title><style>${STYLE}</style></head><body>
<h1>${escapeHtml(title)}</h1>
<p>judged by the ${escapeHtml(f.judge.label)}${f.judge.kind === "code" ? escapeHtml(` (hash ${f.judge.hash})`) : ""}</p>
<p>intent: ${f.intent === null ? '<span class="muted">none (the fitness judge scores the task\'s F)</span>' : escapeHtml(JSON.stringify(f.intent))}</p>
<p class="muted">policy: ${escapeHtml(f.policy)}</p>
${f.notes.map((n) => `<p class="muted">note: ${escapeHtml(n)}</p>`).join("")}
<h2>Episodes</h2>${episodesTable(f)}
<h2>Picks (p10, median, p90 by the judge's score)</h2>
${f.picks.map((p) => pickSection(f, p, input.pictures.get(p.pick))).join("\n")}
<script>${PLAYER(input.fps)}</script>
</body></html>
`;
};
