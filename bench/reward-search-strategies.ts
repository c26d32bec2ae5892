/**
 * Reward search strategies side by side (docs/spec/reward-search.md §8.5): for every task, F of each strategy's
 * final reward — the best candidate by final-policy F on its selection seeds — retrained by the final scoring
 * protocol (§7: fresh training and evaluation seeds, none dropped) at the same number of trained candidates and
 * the same steps per training, with the heuristic proposer (no LLM), mean ± std over runs (run r searches instance
 * seed r), and beside it Eureka's normalised score where §7 defines it. F_sparse and F_human are the task's sparse
 * and hand-written rewards trained the same way on the same fresh seeds.
 * With the heuristic proposer these are real measurements of the search strategies themselves.
 *
 *   node --import tsx bench/reward-search-strategies.ts [--tasks cartpole,pendulum] [--budget 8] [--runs 2]
 *        [--train-steps 16384] [--final-trainings 3] [--processes 2] [--samples 4] [--initial 4] [--children 8]
 *
 * (`hexa bench reward-search` puts rounds, the round loop with the evolving bank, beside these two at the same
 * number of trained candidates, through `hexa run` with `method`, and writes compare-style results.)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTask, listTasks } from "../levels/reward-search/tasks/index.ts";
import { memoryLog } from "../src/search/candidates.ts";
import { SEARCH_METHODS as STRATEGIES, SearchConfig } from "../src/search/config.ts";
import { runSearch } from "../src/search/search.ts";
import { heuristicProposer } from "../levels/reward-search/proposers/heuristic-proposer.ts";
import { trainerEvaluator } from "../levels/reward-search/search/evaluator.ts";
import { DEFAULT_FINAL_TRAININGS, scoreSearch } from "../levels/reward-search/search/final-protocol.ts";
import { figureText } from "../src/report/inspect/final-view.ts";
import { createTrainerPool, type TrainerPool } from "../levels/reward-search/trainer/pool.ts";
import { mean, std } from "../src/util/stats.ts";
import { recordPage } from "./page.ts";

recordPage("reward-search-strategies");

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const num = (name: string, d: number) => Number(arg(name) ?? d);
const taskIds = arg("tasks")?.split(",") ?? listTasks().filter((t) => getTask(t).humanReward !== null);
const BUDGET = num("budget", 8);
const RUNS = num("runs", 2);
const STEPS = num("train-steps", 16_384);
const FINAL = num("final-trainings", DEFAULT_FINAL_TRAININGS);
const search = SearchConfig.parse({
  budget: BUDGET,
  eureka: { samples: num("samples", 4) },
  rfAgent: { initial: num("initial", 4), children: num("children", 8) },
});

const root = mkdtempSync(join(tmpdir(), "hexa-bench-strategies-"));
const pool: TrainerPool = createTrainerPool({ jobsDir: join(root, "jobs"), size: num("processes", 2) });

/** mean ± std of the finite values; "n/a" when there are none (a normalised score §7 leaves undefined). */
const stats = (all: readonly (number | null)[]) => {
  const xs = all.filter((x): x is number => x !== null && Number.isFinite(x));
  if (xs.length === 0) return "n/a";
  return `${mean(xs).toFixed(2)} ± ${std(xs).toFixed(2)}`;
};

const t0 = performance.now();
const rows: string[] = [];
process.stderr.write(
  `tasks ${taskIds.join(", ")}; budget ${BUDGET} candidates × ${STEPS} env steps; ${RUNS} runs; final score on ${FINAL} fresh training seeds; heuristic proposer (no LLM)\n`,
);
for (const id of taskIds) {
  const task = getTask(id);
  const tTask = performance.now();
  const per: Record<string, { score: (number | null)[]; f: (number | null)[]; sparse: (number | null)[]; human: (number | null)[]; trained: number[] }> =
    Object.fromEntries(STRATEGIES.map((s) => [s, { score: [], f: [], sparse: [], human: [], trained: [] }]));
  for (let run = 0; run < RUNS; run++) {
    const instance = task.generate(run);
    for (const s of STRATEGIES) {
      const log = memoryLog();
      const r = await runSearch(
        s,
        { task, instance, seed: run, proposer: heuristicProposer(), ports: { evaluator: trainerEvaluator(pool, STEPS), log } },
        search,
      );
      const f = await scoreSearch({ trainer: pool, task, instance, result: r, count: FINAL, steps: STEPS, method: s });
      const meanOf = (k: "fitness" | "sparse" | "human") => {
        const xs = f.perSeed.map((m) => m[k]).filter((x): x is number => typeof x === "number");
        return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
      };
      const p = per[s]!;
      p.score.push(f.figures.normalised?.mean ?? null);
      p.f.push(meanOf("fitness"));
      p.sparse.push(meanOf("sparse"));
      p.human.push(meanOf("human"));
      p.trained.push(log.records.length);
      process.stderr.write(`${id} run ${run}: ${s} ${Object.values(f.figures).map(figureText).join(", ")}, ${log.records.length} candidates\n`);
    }
  }
  const wall = ((performance.now() - tTask) / 1000).toFixed(0);
  const first = per[STRATEGIES[0]]!;
  rows.push(
    `| ${id} | ${stats(first.sparse)} | ${stats(first.human)} | ${STRATEGIES.map((s) => `${stats(per[s]!.f)} (normalised ${stats(per[s]!.score)})`).join(" | ")} | ${STRATEGIES.map((s) => per[s]!.trained.join("/")).join(", ")} | ${wall} s |`,
  );
}
await pool.close();
process.stdout.write(
  [
    `F of the best candidate retrained on ${FINAL} fresh training seeds (none used by the search), mean ± std over ${RUNS} runs (run r: instance seed r), with Eureka's normalised score (mean F − mean F_sparse)/|mean F_human − mean F_sparse| in brackets (n/a where docs/spec/reward-search.md §7 leaves it undefined); ${BUDGET} candidates of ${STEPS} env steps each; heuristic proposer (no LLM).`,
    "",
    `| task | F sparse | F human | ${STRATEGIES.join(" | ")} | candidates trained | wall |`,
    `|---|---:|---:|${STRATEGIES.map(() => "---:").join("|")}|---|---:|`,
    ...rows,
    "",
    `total wall time ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    "",
  ].join("\n"),
);
