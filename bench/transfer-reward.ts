/**
 * bench/transfer.ts's reward-search sections: a source run of the round loop (heuristic designer and evolver),
 * then `hexa transfer --family reward-search … --synthesiser heuristic` to each held-out task, both arms on the
 * same instances; per arm the tasks solved, mean and median F (the committed reward's policy on held-out
 * evaluation seeds). The trainer cache goes to a fresh folder, so every training runs.
 */
import { writeFileSync } from "node:fs";
import { readYamlMapping } from "../src/util/yaml-file.ts";
import { join } from "node:path";
import { stringify } from "yaml";
import { getTask } from "../levels/reward-search/tasks/index.ts";
import { RunDir } from "../src/store/run-dir.ts";
import { formatTable } from "./harness.ts";
import { hexaCli, runDirOf, runMetrics } from "./hexa-cli.ts";
import { ROOT } from "./page.ts";

export interface RewardTransferPlan {
  /** The source run's config, e.g. configs/reward-transfer-sources.yaml. */
  config: string;
  sources: readonly string[];
  targets: readonly string[];
  evalSeeds: number;
}

/** The first instance both arms play (`hexa transfer`'s default --seed-offset). */
const SEED_OFFSET = 60;

interface ArmFigures {
  arm: string;
  solved: number;
  n: number;
  scores: number[];
}

/** The config with its trainer cache moved into `dir` (a fresh cache: no training is reused). */
const freshConfig = (config: string, dir: string): string => {
  const cfg = readYamlMapping(join(ROOT, config)) as { rewardSearch?: Record<string, unknown> };
  cfg.rewardSearch = { ...cfg.rewardSearch, cacheDir: join(dir, "trainer-cache") };
  const file = join(dir, "config.yaml");
  writeFileSync(file, stringify(cfg));
  return file;
};

const armFigures = (arm: string, runDir: string): ArmFigures => {
  const eps = RunDir.open(runDir)
    .episodes({ repair: false })
    .filter((e) => e.phase === "stream");
  const scores = eps.flatMap((e) => (e.trajectory.score === undefined ? [] : [e.trajectory.score]));
  return { arm, solved: eps.filter((e) => e.trajectory.success).length, n: eps.length, scores };
};

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f1 = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "–" : Number(v.toFixed(1)).toString());
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);

/** Transfer to one held-out task; both arms' run directories come from transfer's `<arm> run: <dir>` lines. */
const transferTo = (plan: RewardTransferPlan, config: string, source: string, target: string, dir: string) => {
  const r = hexaCli([
    "transfer",
    "--family",
    "reward-search",
    ...plan.sources.flatMap((s) => ["--from", `${s}=${source}`]),
    "--to",
    target,
    "--synthesiser",
    "heuristic",
    "--config",
    config,
    "--eval-seeds",
    String(plan.evalSeeds),
    "--seed-offset",
    String(SEED_OFFSET),
    "--out",
    join(dir, target, "bank.json"),
  ]);
  const arms = [...r.stdout.matchAll(/^(\w+) run: (.+)$/gm)].map((m) => armFigures(m[1]!, m[2]!.trim()));
  if (arms.length !== 2) throw new Error(`hexa transfer --to ${target} printed ${arms.length} arm run(s), not 2:\n${r.stdout.slice(-1000)}`);
  return { target, arms, bankLine: /^transferred bank for .*$/m.exec(r.stdout)?.[0] ?? `no bank line for ${target}`, wallS: r.wallS };
};

/** Runs the plan in `dir` and prints its source line and its table. */
export const rewardTransferSection = (plan: RewardTransferPlan, dir: string): void => {
  const config = freshConfig(plan.config, dir);
  const src = hexaCli(["run", config, "--runs-dir", join(dir, "sources")]);
  const source = runDirOf(src.stdout);
  const levels = runMetrics(source);
  const banks = plan.sources.map((s) => {
    const m = levels[s]!;
    return `${s} ${m.successes}/${m.episodes} solved, bank ${m.finalBank?.skills ?? 0} skills + ${m.finalBank?.mistakes ?? 0} mistakes`;
  });
  console.log(`sources (${plan.config}, ${src.wallS.toFixed(0)} s): ${banks.join("; ")}`);
  console.log(`held-out tasks, heuristic designer, both arms on instances ${SEED_OFFSET}–${SEED_OFFSET + plan.evalSeeds - 1}\n`);
  const rows = plan.targets.map((t) => transferTo(plan, config, source, t, dir));
  console.log(
    formatTable(
      ["held-out task (solved at)", "arm", "solved", "mean F", "median F", "wall (both arms)"],
      rows.flatMap((r) =>
        r.arms.map((a, i) => [
          i === 0 ? `${r.target} (F ≥ ${getTask(r.target).fitness.solved})` : "",
          a.arm === "bank" ? "heuristic + transferred bank" : "heuristic, no bank",
          `${a.solved}/${a.n}`,
          f1(mean(a.scores)),
          a.scores.length ? f1(median(a.scores)) : "–",
          i === 0 ? `${r.wallS.toFixed(0)} s` : "",
        ]),
      ),
      { align: "llrrrr" },
    ),
  );
  for (const r of rows) console.log(r.bankLine);
};
