import { createTwoFilesPatch } from "diff";
import { bestIteration, checkpointTable } from "../../../src/search/p2p-context.ts";
import type { TrainingRecord } from "../../../src/search/p2p-log.ts";
import type { LineageReads } from "../../../src/search/p2p-ports.ts";
import { hpText, n } from "./p2p-text.ts";
import { byTier, isActive, type Lesson } from "../../../src/store/lesson.ts";

/**
 * What the p2p reviser's read tools answer (p2p-reviser-tools.ts), each a text over the search's own lineage: the
 * lineage with scores, an iteration's code and plan, the diff of two iterations' code, an iteration's checkpoints
 * per configuration and seed with their judgments, one training's dynamics, an iteration's configurations, the
 * lessons with their tiers and history. The arguments are checked before these run (the iterations exist).
 */

/** The lineage: per iteration its parent, score, best configuration, whether it set a new best, and what changed. */
export const lineageText = (l: LineageReads): string => {
  // The search's own best: among the iterations scored by the latest judge version (p2p-context.ts).
  const best = bestIteration(l.iterations)?.iteration ?? 0;
  return [
    `${l.iterations.length} iterations judged; best: iteration ${best}; pass at ${n(l.passAt)}`,
    ...l.iterations.map((r) => {
      const p = l.plans[r.iteration]!;
      const marks = [
        r.newBest ? "new best" : "",
        p.revision.structural ? "structural" : "",
        p.revision.plateau ? "after a plateau" : "",
        p.revision.noChange ? "no reward change" : "",
      ];
      const changes =
        p.parent === null
          ? "first design"
          : [...p.revision.rewardChanges, ...Object.entries(p.revision.hpChanges).map(([k, [a, b]]) => `${k} ${a} → ${b}`)].join("; ");
      return `- iteration ${r.iteration}${p.parent === null ? "" : ` (based on ${p.parent})`}: score ${n(r.score)}, best config ${r.best}${marks
        .filter(Boolean)
        .map((m) => `, ${m}`)
        .join("")}; ${changes || "no change"}`;
    }),
  ].join("\n");
};

/** An iteration's reward code with the revision that wrote it. */
export const codeText = (l: LineageReads, i: number): string => {
  const p = l.plans[i]!;
  const lesson = p.revision.lesson ? `\nlesson: ${p.revision.lesson}` : "";
  return `iteration ${i}${p.parent === null ? "" : ` (based on ${p.parent})`}\ndiagnosis: ${p.revision.diagnosis}${lesson}\n\`\`\`js\n${p.code}\n\`\`\``;
};

/** The unified diff of two iterations' reward code. */
export const diffText = (l: LineageReads, from: number, to: number): string => {
  const [a, b] = [l.plans[from]!.code, l.plans[to]!.code].map((c) => (c.endsWith("\n") ? c : `${c}\n`));
  const patch = createTwoFilesPatch(`iteration ${from}`, `iteration ${to}`, a!, b!, undefined, undefined, { context: 3 });
  const body = patch
    .split("\n")
    .filter((line) => !line.startsWith("====="))
    .map((line) => (line.startsWith("--- ") || line.startsWith("+++ ") ? line.trimEnd() : line))
    .join("\n")
    .trim();
  return body.includes("@@") ? body : `iterations ${from} and ${to} have the same reward code`;
};

const trainingsOf = (l: LineageReads, i: number): TrainingRecord[][] => {
  const r = l.iterations[i]!;
  return r.configs.map((c) => c.seeds.flatMap((s) => l.training(i, c.config, s) ?? []));
};

/** An iteration's checkpoint table over seeds, then each training's judged checkpoints with the judge's detail. */
export const checkpointsText = (l: LineageReads, i: number): string => {
  const trainings = trainingsOf(l, i);
  const table = checkpointTable(trainings, l.passAt).map(
    (r) => `| ${r.config} | ${Math.round(r.fraction * 100)} % | ${n(r.mean)} | ${n(r.std)} | ${n(r.successRate)} |`,
  );
  const judged = trainings
    .flat()
    .flatMap((t) => [
      `config ${t.config} seed ${t.seed}: score ${n(t.score)}${t.outcome.kind === "error" ? ` (failed: ${t.outcome.message})` : ""}`,
      ...t.judged.map((j) => `  step ${j.step} (${Math.round(j.fraction * 100)} %): ${n(j.score)} — ${j.detail}`),
    ]);
  return [`iteration ${i}`, "| config | checkpoint | mean | std | success rate |", "|---|---|---|---|---|", ...table, "", ...judged].join("\n");
};

/** One training: its steps, optimiser diagnostics, reward terms, fitness at its checkpoints, the reflection and the judgments. */
export const trainingText = (t: TrainingRecord): string => {
  const head = `iteration ${t.iteration} config ${t.config} seed ${t.seed}: ${hpText(t.hp)}; score ${n(t.score)}`;
  const o = t.outcome;
  if (o.kind === "error") return `${head}\nfailed (${o.error}): ${o.message}\n${o.feedback}`;
  const d = o.diagnostics;
  return [
    head,
    `steps ${o.steps}`,
    `PPO diagnostics: ${d ? `approx KL ${n(d.approxKl)}, clip fraction ${n(d.clipFrac)}, entropy ${n(d.entropy)}, explained variance ${n(d.explainedVariance)}` : "not reported"}`,
    `reward terms (mean |value|, last window): ${
      Object.entries(o.terms)
        .map(([k, v]) => `${k} ${n(v)}`)
        .join(", ") || "none"
    }`,
    `fitness at checkpoints: ${o.checkpoints.map((c) => `${c.step} ${n(c.fitness)}`).join(", ")}`,
    ...t.judged.map((j) => `judged at step ${j.step}: ${n(j.score)} — ${j.detail}`),
    `feedback:\n${o.feedback}`,
  ].join("\n");
};

/** An iteration's configurations: directive, hyper-parameters, scores per seed, mean and std. */
export const configsText = (l: LineageReads, i: number): string => {
  const r = l.iterations[i]!;
  return [
    `iteration ${i}: best config ${r.best} (by its mean over seeds)`,
    ...r.configs.map(
      (c) =>
        `- config ${c.config} (${c.directive}): ${hpText(c.hp)}; seeds ${c.seeds.join(", ")}; scores ${c.scores.map(n).join(", ")}; mean ${n(c.mean)}, std ${n(c.std)}`,
    ),
  ].join("\n");
};

const lessonText = (x: Lesson): string =>
  [
    `- ${x.id} [${x.tier}]${x.source ? ` (${x.source})` : ""}: ${x.text}`,
    ...x.history.map((h) => `    round ${h.round}: ${h.from} → ${h.to} by ${h.by}: ${h.reason}`),
  ].join("\n");

/** Every lesson, the active by tier then the retired, each with its id, source and tier history. */
export const lessonsText = (l: LineageReads): string =>
  l.lessons.length === 0
    ? "no lessons in the bank"
    : [...byTier(l.lessons.filter(isActive)), ...l.lessons.filter((x) => !isActive(x))].map(lessonText).join("\n");
