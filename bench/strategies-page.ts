/**
 * The strategy bench's page as a pure function of its data (docs/benchmarks/data/reward-search-strategies.json):
 * per group of tasks, every run's final score (BenchScore: F of the final, sparse and human rewards averaged over
 * the run's fresh seeds, the seeds themselves where kept, the commit that made the run and its trainings a cache
 * answered), from which the tables, the intervals over runs and the verdicts are computed again on every render.
 */
import { z } from "zod";
import { BenchScore, benchBudgets, benchDiffs, benchRows } from "../levels/reward-search/cli/bench-score.ts";
import { renderBenchMarkdown } from "../src/report/compare/strategy-bench.ts";

const StrategyGroup = z.strictObject({
  tasks: z.array(z.string()).min(1),
  strategies: z.array(z.string()).min(1),
  /** The `hexa bench reward-search` command of the group. */
  command: z.string(),
  budget: z.number().int().min(1),
  runs: z.number().int().min(1),
  trainSteps: z.number().int().min(1),
  finalTrainings: z.number().int().min(1),
  proposer: z.string(),
  scores: z.array(BenchScore),
});
type StrategyGroup = z.infer<typeof StrategyGroup>;

export const StrategiesData = z.strictObject({
  schemaVersion: z.literal(1),
  /** The command that ran the groups. */
  command: z.string(),
  /** Where the runs' numbers come from: a bench run, or what they were re-derived from. */
  source: z.string(),
  /** The machine and dates of the runs, when recorded. */
  machine: z.string().nullable(),
  dates: z.string().nullable(),
  groups: z.array(StrategyGroup).min(1),
});
export type StrategiesData = z.infer<typeof StrategiesData>;

const groupTitle = (g: StrategyGroup) => `## ${g.tasks.join(", ")}: ${g.trainSteps.toLocaleString("en-US")} env steps per training`;

/** The group's tables without their title and picture (the picture lives in the group's bench folder). */
const groupBody = (g: StrategyGroup): string => {
  const header = { ...g, budgets: benchBudgets(g.scores, g.tasks) };
  return renderBenchMarkdown(header, benchRows(g.scores, g.strategies, g.tasks), benchDiffs(g.scores, g.strategies, g.tasks))
    .split("\n")
    .filter((l) => !l.startsWith("# ") && !l.startsWith("!["))
    .join("\n")
    .trim();
};

/** Every commit the runs name, or what is known of them. */
const commitsOf = (d: StrategiesData): string => {
  const scores = d.groups.flatMap((g) => g.scores);
  const commits = [...new Set(scores.flatMap((s) => (s.commit ? [s.commit] : [])))];
  const unknown = scores.filter((s) => !s.commit).length;
  return [...commits, ...(unknown ? [`not recorded for ${unknown} of ${scores.length} run scores`] : [])].join("; ");
};

export const renderStrategiesPage = (d: StrategiesData, title: string, dataPath: string): string =>
  [
    `# ${title}`,
    "",
    `- Command: \`${d.command}\``,
    `- Commits of the runs: ${commitsOf(d)}`,
    `- Machine: ${d.machine ?? "not recorded"}`,
    `- Date: ${d.dates ?? "not recorded"}`,
    `- Data: [${dataPath}](${dataPath}): ${d.source}`,
    "",
    "Rendered from the data file above by bench/strategies-page.ts (a test renders it again and compares):",
    "",
    // A text block, as every bench page prints its output: the tables stay as rendered, never re-formatted.
    "```text",
    d.groups.map((g) => `${groupTitle(g)}\n\n${groupBody(g)}`).join("\n\n"),
    "```",
    "",
  ].join("\n");
