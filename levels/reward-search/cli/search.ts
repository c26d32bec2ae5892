import type { Argv } from "yargs";
import type { FamilyHost } from "../../../src/family/host.ts";
import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";
import { type ArgsOf, defineCommand, withOptionsByName } from "../../../src/cli-kit/define-command.ts";
import { flagOptions } from "../../../src/cli-kit/schema-flags.ts";
import { SEARCH_METHODS } from "../../../src/search/config.ts";
import { DEFAULT_FINAL_TRAININGS } from "../search/final-protocol.ts";
import { FLAGS, TRAINER_FLAGS } from "./search-flags.ts";
import { judgeModelFlags } from "./judge-model-flags.ts";

/** The flags of a task from words: the intent, its pass threshold, the judged episodes and the judges' models. */
const intentFlags = <T>(y: Argv<T>) =>
  judgeModelFlags(y, {
    judge: "authors the intent's code judge and settles the judges' disagreements",
    vision: "judges each checkpoint's rendered frames against the intent",
  })
    .option("env", {
      type: "string",
      describe: "with --intent: the MuJoCo environment the behaviour is learned in (hopper, walker2d, half_cheetah, ant, humanoid …)",
    })
    .option("intent", {
      type: "string",
      describe: "p2p: the behaviour to learn, in words; a task from words has no F and is judged by llm.judge (and llm.vision)",
    })
    .option("intent-file", { type: "string", describe: "p2p: the intent read from a text file" })
    .option("pass-at", { type: "number", describe: "with --intent: the judged score (0–1) at which the search passes (default 0.9)" })
    .option("judged-episodes", {
      type: "number",
      coerce: positiveIntFlag("judged-episodes"),
      describe: "with --intent: episodes judged per checkpoint, on the same seeds for every checkpoint (default 1)",
    })
    .option("judged-steps", {
      type: "number",
      coerce: positiveIntFlag("judged-steps"),
      describe: "with --intent: steps of a judged episode at most (default: the environment's own time limit)",
    })
    .option("trail", { type: "boolean", describe: "with --vision-model: send the motion trail as a second sequence" })
    .option("criteria", {
      type: "string",
      describe:
        "with --vision-model: a file of the 5–10 criteria you accept for the intent, one per line; the vision judge uses them instead of its own. Without it, at a terminal the vision judge's proposal is shown for you to accept, drop, edit or add lines (5–10 kept); not at a terminal, or with --yes, its criteria are taken as proposed",
    })
    .option("yes", { type: "boolean", describe: "with --intent: take the vision judge's criteria as proposed, without asking at a terminal" });

const searchCommandFlags = (y: Argv) =>
  intentFlags(
    withOptionsByName(
      y
        .positional("task", {
          type: "string",
          describe: "a reward-search task (hexa levels list --family reward-search); with --intent, --env names the environment instead; none with --resume",
        })
        .option("method", {
          alias: "strategy",
          choices: SEARCH_METHODS,
          describe:
            "eureka (K samples × I iterations), rf-agent (tree search) or p2p (reward and PPO settings revised together, configs × seeds per iteration); none with --resume",
        }),
      flagOptions([...FLAGS, ...TRAINER_FLAGS]),
    ).option("seed", { type: "string", describe: "task instance seed (also the search's own random seed; default 0)" }),
  )
    .option("proposer", { choices: ["heuristic", "llm"] as const, default: "heuristic" as const, describe: "heuristic needs no model" })
    .option("train-steps", {
      type: "number",
      coerce: positiveIntFlag("train-steps"),
      describe: "env steps of every candidate's training (default: a quarter of the task's budget)",
    })
    .option("final-trainings", {
      type: "number",
      coerce: positiveIntFlag("final-trainings"),
      describe: `fresh training seeds of the final score: the best reward, the sparse and the human one trained on each (default ${DEFAULT_FINAL_TRAININGS})`,
    })
    .option("final-steps", {
      type: "number",
      coerce: positiveIntFlag("final-steps"),
      describe: "env steps of each final-score training (default: the task's scored budget, as in hexa run; another budget is labelled in the score)",
    })
    .option("out", {
      type: "string",
      describe: "run directory (search.json, candidates.jsonl); the same directory again resumes (default runs/search/METHOD-TASK-sSEED)",
    })
    .option("config", {
      type: "string",
      describe:
        "a search of an intent from a YAML (env, search.intent, the search slice, llm.judge / llm.vision); its files are read beside it; give no task, --env, --intent or search flags with it",
    })
    .option("resume", {
      type: "string",
      describe: "a search directory to go on with, on the settings its search-config.json records (give no task, --method or search flags)",
    })
    .option("correct", {
      type: "string",
      array: true,
      describe:
        'with --resume, p2p: a correction in words (e.g. "land softer") that the next iteration\'s reviser must address and the judges weigh; repeatable',
    })
    .option("lessons-from", {
      type: "string",
      array: true,
      describe:
        "p2p: an earlier p2p search's folder (or a bank file hexa transfer wrote) whose lessons, tiers and history, this search starts from; repeatable",
    })
    .option("correct-file", { type: "string", describe: "with --resume, p2p: a correction read from a text file (at most 4 KiB)" })
    .option("trainer-cache", { type: "string", describe: "trainer result cache (default .trainer-cache beside the search directory, in its parent folder)" })
    .option("processes", { type: "number", coerce: positiveIntFlag("processes"), describe: "trainer processes at once (default: one per core)" })
    .option("backend", {
      type: "string",
      describe:
        "where the search's trainings run: local (this machine's trainer processes, the default) or redis://HOST:PORT (rediss:// for TLS; hexa worker processes serving the trainings queue train them)",
    })
    .option("model", { type: "string", describe: "llm: model name" })
    .option("base-url", { type: "string", describe: "llm: OpenAI-compatible endpoint (else OPENAI_BASE_URL)" })
    .option("api-key", { type: "string", describe: "llm: API key (else OPENAI_API_KEY)" })
    .option("llm-config", {
      type: "string",
      describe:
        "llm: a YAML whose llm.actor is the proposer's model, as in a run config: an endpoint, or provider: llama-cpp with a GGUF file run in this process",
    })
    .example("$0 search cartpole --method rf-agent --budget 16 --train-steps 20000", "RF-Agent's tree search with the heuristic proposer")
    .example("$0 search cartpole --strategy p2p --budget 12 --configs 3 --train-seeds 2", "the p2p loop offline: heuristic reviser, fitness judge")
    .example("$0 search cartpole --strategy p2p --budget 12 --backend redis://10.0.0.5:6379", "the same search, its trainings done by hexa worker processes")
    .example('$0 search --resume runs/search/p2p-hopper-s0 --correct "land softer"', "a correction to a stopped or finished p2p search, which then goes on")
    .example("$0 search --config examples/search-intent.yaml", "the same search of an intent, written as a config file")
    .example(
      '$0 search --env hopper --intent "do a backflip and land on your foot" --strategy p2p --judge-model M --judge-base-url URL --vision-model V',
      "a task from words: every checkpoint judged by the code judge, the vision judge and their synthesis",
    );

/** The flags `hexa search` reads (levels/reward-search/cli/search-run.ts). */
export type SearchCommandArgs = ArgsOf<typeof searchCommandFlags>;

/** `hexa search TASK --method eureka|rf-agent|p2p`: one method on one task instance, with an exact candidate budget; its record and report ask `host` (src/family/host.ts). */
export const searchCommand = (host: FamilyHost) =>
  defineCommand({
    command: "search [task]",
    describe: "search reward functions for one reward-search task with Eureka's greedy evolution, RF-Agent's tree search or the p2p loop",
    builder: searchCommandFlags,
    // The search's modules are loaded only here: `hexa search --help` starts fast.
    handler: async (argv) => (await import("./search-run.ts")).runSearchCommand(argv, host),
  });
