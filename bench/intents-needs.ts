/**
 * What a run of the intents bench with a real model needs (docs/benchmarks/intents.md), from the bench's own
 * records scaled to Prompt-to-Policy's protocol (../shared/spec/prompt-to-policy.md §1, §7): 10 iterations, 3 HP
 * configs × 1 seed per iteration, 4 judged checkpoints per training with 3 judged episodes each, pass at 0.9.
 * Calls made once a case (authoring, criteria) stay as recorded; the reviser's and the judges' calls scale with
 * the steps and episodes of that protocol, each at the tokens per call this run recorded. An upper bound: a
 * case that passes stops early.
 */
import type { z } from "zod";
import type { IntentsResults } from "../levels/reward-search/cli/bench-intents-table.ts";

type Results = z.infer<typeof IntentsResults>;

export const P2P_PROTOCOL = { iterations: 10, configs: 3, seeds: 1, checkpoints: 4, judgedEpisodes: 3, passAt: 0.9, trainSteps: 10_000_000 } as const;

const int = (n: number) => Math.round(n).toLocaleString("en-US");

/** Sums over the cases of one stage's calls and tokens. */
const stage = (r: Results, s: "case" | "reviser" | "checkpoint") =>
  r.cases.reduce((a, c) => ({ calls: a.calls + c.models.stages[s]!.calls, tokens: a.tokens + c.models.stages[s]!.tokens }), { calls: 0, tokens: 0 });

/** The reviser's calls per revision in this run: its tool turns and its answer (the first reward and the HP variants taken out). */
const revisionTurns = (r: Results): number => {
  const revisions = r.cases.reduce((a, c) => a + Math.max(0, c.iterations - 1), 0);
  const fixed = r.cases.reduce((a, c) => a + (c.iterations > 0 ? 1 : 0) + c.iterations * (r.settings.configs - 1), 0);
  return revisions ? Math.max(1, (stage(r, "reviser").calls - fixed) / revisions) : 1;
};

/** The page's section on a real-model run: its sizes per case and for all cases, and the commands. */
export const realModelNeeds = (r: Results): string[] => {
  const n = r.cases.length;
  const p = P2P_PROTOCOL;
  const trainings = p.iterations * p.configs * p.seeds;
  // The reviser: the first reward, then one revision per later iteration (its turns with its lineage tools as
  // recorded, at least the answer), and (configs − 1) HP variants per iteration.
  const turns = revisionTurns(r);
  const reviserCalls = 1 + (p.iterations - 1) * turns + p.iterations * (p.configs - 1);
  const judgedEpisodes = trainings * p.checkpoints * p.judgedEpisodes;
  const once = stage(r, "case");
  const rev = stage(r, "reviser");
  const judged = stage(r, "checkpoint");
  const episodesRun = r.cases.reduce((a, c) => a + c.judgedCheckpoints, 0) * r.settings.judgedEpisodes;
  const perEpisode = episodesRun ? judged.calls / episodesRun : 0;
  const perCall = (s: { calls: number; tokens: number }) => (s.calls ? s.tokens / s.calls : 0);
  const calls = once.calls / n + reviserCalls + perEpisode * judgedEpisodes;
  const tokens = once.tokens / n + reviserCalls * perCall(rev) + perEpisode * judgedEpisodes * perCall(judged);
  return [
    `What a run with a real model needs, per case, at P2P's protocol (${p.iterations} iterations, ${p.configs} HP configs × ${p.seeds} seed, ${p.checkpoints} judged checkpoints × ${p.judgedEpisodes} episodes, pass at ${p.passAt}; an upper bound, a passing case stops early):`,
    `- trainings: ${trainings}; env steps: ${trainings} × the train steps (P2P's dashboard: ${int(p.trainSteps)} each, ${int(trainings * p.trainSteps)} a case, ${int(n * trainings * p.trainSteps)} for the ${n} cases)`,
    `- model calls: ${int(calls)} (${int(once.calls / n)} once a case as recorded, ${int(reviserCalls)} reviser calls (${turns.toFixed(2)} a revision as recorded), ${judgedEpisodes} judged episodes × ${perEpisode.toFixed(2)} judge calls each as recorded); ${int(n * calls)} for the ${n} cases`,
    `- tokens: about ${int(tokens)} a case, ${int(n * tokens)} for the ${n} cases, at this run's tokens per call (reviser ${int(perCall(rev))}, judging ${int(perCall(judged))}); a judged episode of the env's full time limit sends more frames than this run's ${r.settings.judgedSteps}-step ones, up to --vision-max-images images a call (765 tokens each at OpenAI's 512 × 512 rate)`,
    "",
    "With a real model (one endpoint for every role, or one per role), from the repository root:",
    "  npm run bench:intents -- --model M --base-url URL --judge-model M --judge-base-url URL --vision-model V --vision-base-url URL2 --vision-max-images 50 \\",
    `    --budget ${trainings} --configs ${p.configs} --train-seeds ${p.seeds} --judged-episodes ${p.judgedEpisodes} --train-steps STEPS --judged-steps 1000 --out bench/out/intents-model --write-page`,
    "(or `hexa bench intents` with the same flags; rerun the same command to continue). Each case's trainings run on this machine's trainer processes",
    "(--processes); with --backend redis://HOST:6379 they go to the hexa workers serving the trainings queue",
    "(docs/guides/many-machines.md: `hexa worker --redis redis://HOST:6379 --queues trainings` on each machine), judged here as they come back.",
  ];
};
