/**
 * `hexa bench intents` (docs/benchmarks/intents.md): Prompt-to-Policy's 15 MuJoCo intents and hexa's F-backed ones
 * (bench-intents-cases.ts), each searched by the p2p strategy as `hexa search --env TASK --intent TEXT` at small
 * sizes into DIR/cases/<id>/ (a rerun of the same command continues: finished cases are read back, unfinished
 * ones resume); then per case the judged success, best score, iterations, env steps, wall time, model calls,
 * tokens and cost, and on F-backed cases F of the best policy and whether judged success agrees with F's solved
 * verdict: DIR/results.md, .csv, .json.
 */
import type { Argv } from "yargs";
import { intFlag } from "../../../src/cli-kit/flags.ts";
import { ConfigError } from "../../../src/errors.ts";
import { benchCases } from "./bench-intents-cases.ts";
import type { IntentsPlan } from "./bench-intents-run.ts";

/** Sizes that play all 18 cases in about half an hour on a quiet 2-core machine (docs/benchmarks/intents.md). */
export const INTENTS_DEFAULTS = { budget: 2, configs: 1, trainSeeds: 1, trainSteps: 4096, judgedEpisodes: 1, judgedSteps: 50, passAt: 0.9 } as const;
export const INTENTS_OUT = "bench/out/intents";

/** The intents suite's own flags (the shared --budget, --train-steps and --out are bench.ts's). */
export const intentsBenchFlags = <T>(y: Argv<T>) =>
  y
    .option("cases", { type: "string", describe: "intents: the case ids to run, comma-separated (default: all 18; the ids are in results.csv)" })
    .option("configs", {
      type: "string",
      coerce: intFlag("configs", 1, 8),
      describe: `intents: hyper-parameter configs per iteration (default ${INTENTS_DEFAULTS.configs})`,
    })
    .option("train-seeds", {
      type: "string",
      coerce: intFlag("train-seeds", 1, 8),
      describe: `intents: training seeds per config (default ${INTENTS_DEFAULTS.trainSeeds})`,
    })
    .option("seed", { type: "string", coerce: intFlag("seed", 0, 1_000_000), describe: "intents: task instance seed of every case (default 0)" })
    .option("pass-at", { type: "number", describe: `intents: judged score (0–1) at which a case succeeds (default ${INTENTS_DEFAULTS.passAt}, P2P's)` })
    .option("judged-episodes", {
      type: "string",
      coerce: intFlag("judged-episodes", 1, 10),
      describe: `intents: episodes judged per checkpoint (default ${INTENTS_DEFAULTS.judgedEpisodes})`,
    })
    .option("judged-steps", {
      type: "string",
      coerce: intFlag("judged-steps", 1, 100_000),
      describe: `intents: steps of a judged episode at most (default ${INTENTS_DEFAULTS.judgedSteps})`,
    })
    .option("processes", { type: "string", coerce: intFlag("processes", 1, 64), describe: "intents: trainer processes at once (default: one per core)" })
    .option("backend", {
      type: "string",
      describe: "intents: redis://HOST:PORT: every case's trainings go to the hexa workers serving its trainings queue (as hexa search --backend)",
    })
    .option("model", { type: "string", describe: "intents: the reviser's model (--proposer llm of hexa search); none: the heuristic reviser" })
    .option("base-url", { type: "string", describe: "intents: the reviser's OpenAI-compatible endpoint" })
    .option("judge-model", { type: "string", describe: "intents: llm.judge (authors each intent's code judge, settles disagreements); required" })
    .option("judge-base-url", { type: "string", describe: "intents: llm.judge's endpoint" })
    .option("vision-model", { type: "string", describe: "intents: llm.vision (judges rendered frames); none: the code judge alone" })
    .option("vision-base-url", { type: "string", describe: "intents: llm.vision's endpoint" })
    .option("vision-max-images", {
      type: "string",
      coerce: intFlag("vision-max-images", 1, 1000),
      describe: "intents: images llm.vision's server takes in one request",
    });

/** The flags only the intents suite reads: `hexa bench reward-search` refuses them rather than ignore them. */
const INTENTS_ONLY = [
  "cases",
  "configs",
  "train-seeds",
  "seed",
  "pass-at",
  "judged-episodes",
  "judged-steps",
  "processes",
  "backend",
  "model",
  "base-url",
  "judge-model",
  "judge-base-url",
  "vision-model",
  "vision-base-url",
  "vision-max-images",
] as const;

/** Refuses an intents flag given to another suite, naming it. */
export const refuseIntentsFlags = (a: Partial<Record<(typeof INTENTS_ONLY)[number], unknown>>, suite: string): void => {
  const stray = INTENTS_ONLY.find((f) => a[f] !== undefined);
  if (stray) throw new ConfigError(`--${stray}: only hexa bench intents reads it, not ${suite}; leave it out or run the intents suite`);
};

interface IntentsArgs {
  cases?: string | undefined;
  budget?: unknown;
  "train-steps"?: number | undefined;
  configs?: number | undefined;
  "train-seeds"?: number | undefined;
  seed?: number | undefined;
  "pass-at"?: number | undefined;
  "judged-episodes"?: number | undefined;
  "judged-steps"?: number | undefined;
  processes?: number | undefined;
  backend?: string | undefined;
  model?: string | undefined;
  "base-url"?: string | undefined;
  "judge-model"?: string | undefined;
  "judge-base-url"?: string | undefined;
  "vision-model"?: string | undefined;
  "vision-base-url"?: string | undefined;
  "vision-max-images"?: number | undefined;
}

const given = (a: IntentsArgs, names: ReadonlyArray<keyof IntentsArgs>): string[] => names.flatMap((n) => (a[n] === undefined ? [] : [`--${n}`, String(a[n])]));

/** The bench the flags ask for, every flag checked before anything runs. */
export const intentsPlan = (a: IntentsArgs): IntentsPlan => {
  if (!a["judge-model"])
    throw new ConfigError(
      "--judge-model: an intent has no F, so every checkpoint is judged by llm.judge's code judge; give --judge-model M --judge-base-url URL (npm run bench:intents starts a scripted one)",
    );
  const budget = a.budget === undefined ? INTENTS_DEFAULTS.budget : intFlag("budget", 1, 1000)(a.budget);
  const configs = a.configs ?? INTENTS_DEFAULTS.configs;
  const trainSeeds = a["train-seeds"] ?? INTENTS_DEFAULTS.trainSeeds;
  if (budget % (configs * trainSeeds) !== 0)
    throw new ConfigError(
      `--budget: ${budget} is not a multiple of --configs × --train-seeds (${configs} × ${trainSeeds}): an iteration trains every config on every seed`,
    );
  if (a.backend !== undefined && a.processes !== undefined)
    throw new ConfigError("--processes: with --backend the workers train, each with its own processes; drop --processes");
  const passAt = a["pass-at"] ?? INTENTS_DEFAULTS.passAt;
  if (!(passAt >= 0 && passAt <= 1)) throw new ConfigError(`--pass-at: ${passAt} is not a score between 0 and 1`);
  const cases = benchCases(
    a.cases
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
  const settings = {
    command: "",
    seed: a.seed ?? 0,
    budget,
    configs,
    trainSeeds,
    trainSteps: a["train-steps"] ?? INTENTS_DEFAULTS.trainSteps,
    passAt,
    judgedEpisodes: a["judged-episodes"] ?? INTENTS_DEFAULTS.judgedEpisodes,
    judgedSteps: a["judged-steps"] ?? INTENTS_DEFAULTS.judgedSteps,
    models: { reviser: a.model ?? "heuristic reviser (no LLM)", judge: a["judge-model"], vision: a["vision-model"] ?? null },
  };
  const caseFlag = a.cases === undefined ? "" : ` --cases ${cases.map((c) => c.id).join(",")}`;
  settings.command = `hexa bench intents${caseFlag} --budget ${budget} --configs ${configs} --train-seeds ${trainSeeds} --train-steps ${settings.trainSteps} --seed ${settings.seed} --pass-at ${passAt} --judged-episodes ${settings.judgedEpisodes} --judged-steps ${settings.judgedSteps}`;
  const modelArgs = [
    ...(a.model ? ["--proposer", "llm"] : []),
    ...given(a, ["model", "base-url", "judge-model", "judge-base-url", "vision-model", "vision-base-url", "vision-max-images"]),
  ];
  return { cases, settings, modelArgs, processes: a.processes, backend: a.backend };
};
