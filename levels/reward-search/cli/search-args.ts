import { existsSync } from "node:fs";
import { join } from "node:path";
import { configFromFlags } from "../../../src/cli-kit/schema-flags.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { FamilyHost } from "../../../src/family/host.ts";
import { parseSeed } from "../../../src/family/seed.ts";
import type { RoleModel } from "../../../src/llm/ask.ts";
import { isEmbedded, LlmConfig } from "../../../src/llm/config.ts";
import { SearchConfig, type SearchMethod } from "../../../src/search/config.ts";
import { readSearchRecord, SEARCH_RECORD_FILE, writeSearchRecord } from "../../../src/search/search-record.ts";
import { budgetsOf, RewardSearchConfig } from "../config.ts";
import { cacheDirOf } from "../trainer/run-pools.ts";
import { readYamlMapping } from "../../../src/util/yaml-file.ts";
import { getTask } from "../tasks/index.ts";
import { FLAGS, TRAINER_FLAGS, TRAINER_SLICE } from "./search-flags.ts";
import { SearchSettings } from "./search-settings.ts";
import { intentSettingsOf, type IntentArgs, type IntentSettings } from "./search-intent.ts";

const HELP = "hexa search --help";

/** `hexa search`'s arguments as yargs parsed them. */
export interface SearchArgs extends IntentArgs {
  task?: string | undefined;
  env?: string | undefined;
  method: SearchMethod;
  seed?: string | undefined;
  proposer: "heuristic" | "llm";
  "train-steps"?: number | undefined;
  "final-trainings"?: number | undefined;
  "final-steps"?: number | undefined;
  "trainer-cache"?: string | undefined;
  processes?: number | undefined;
  model?: string | undefined;
  "base-url"?: string | undefined;
  "api-key"?: string | undefined;
  "llm-config"?: string | undefined;
  /** p2p: earlier p2p searches' folders whose lessons the search starts from (src/search/p2p-carried.ts). */
  "lessons-from"?: string[] | undefined;
  [flag: string]: unknown;
}

/** `--llm-config FILE`: a YAML whose `llm` (as in a run config) gives the proposer's model in `llm.actor`. */
const llmFileOf = (argv: SearchArgs, out: string): LlmConfig => {
  const path = argv["llm-config"]!;
  const given = ["model", "base-url", "api-key"].filter((f) => argv[f] !== undefined);
  if (given.length) throw new ConfigError(`--llm-config: the proposer's model is the file's llm.actor; drop --${given.join(", --")}`);
  const llm = readYamlMapping(path, {
    label: `--llm-config ${path}`,
    missing: `--llm-config: no such file (got ${JSON.stringify(path)}); name a YAML with llm.actor`,
  }).llm;
  if (llm === null || typeof llm !== "object" || Array.isArray(llm) || !("actor" in llm))
    throw new ConfigError(
      `--llm-config ${path}: llm.actor is missing; give the proposer's model there, e.g. llm: {actor: {provider: llama-cpp, model: model.gguf}}`,
    );
  const parsed = LlmConfig.safeParse({ ...llm, auditLog: join(out, "llm-log.jsonl") });
  if (!parsed.success) throw new ConfigError(`--llm-config ${path}: ${parsed.error.issues.map((i) => `llm.${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
};

/** The proposer's model config: --llm-config's, else the flags, else the environment; the log of its exchanges in the search directory. */
const llmConfigOf = (argv: SearchArgs, out: string): LlmConfig => {
  if (argv["llm-config"] !== undefined) return llmFileOf(argv, out);
  if (!argv.model && !argv["base-url"] && !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
    throw new ConfigError(
      "--proposer llm needs a model: pass --model and --base-url (or set OPENAI_BASE_URL / OPENAI_API_KEY), or --llm-config with llm.actor (an endpoint or an embedded GGUF model), or use --proposer heuristic, which needs none",
    );
  }
  return LlmConfig.parse({
    actor: {
      ...(argv.model ? { model: argv.model } : {}),
      ...(argv["base-url"] ? { baseURL: argv["base-url"] } : {}),
      ...(argv["api-key"] ? { apiKey: argv["api-key"] } : argv["base-url"] && !process.env.OPENAI_API_KEY ? { apiKey: "none" } : {}),
    },
    auditLog: join(out, "llm-log.jsonl"),
  });
};

/** An endpoint as search-config.json records it: a user name or password in the URL is a credential, never written. */
const withoutCredentials = (baseURL: string): string => {
  const url = new URL(baseURL);
  url.username = "";
  url.password = "";
  return url.toString();
};

/** The task searched: the positional task, or with --intent the environment --env names (one of the two). */
const taskIdOf = (argv: SearchArgs): string => {
  if (argv.task !== undefined && argv.env !== undefined)
    throw new ConfigError(`--env: give the task once (got ${argv.task} and --env ${argv.env}); with --intent use --env`);
  const id = argv.task ?? argv.env;
  if (id === undefined)
    throw new ConfigError(`hexa search: name a task (hexa search cartpole …) or, with --intent, an environment (--env hopper); see ${HELP}`);
  if (argv.env !== undefined && argv.intent === undefined && argv["intent-file"] === undefined)
    throw new ConfigError(`--env: names the environment of a task from words; give --intent TEXT too, or name a task with F as hexa search ${argv.env}`);
  return id;
};

/** The intent as search-config.json records it: endpoints without credentials. */
const recordedIntent = (i: IntentSettings): IntentSettings => ({
  ...i,
  judge: { ...i.judge, ...(i.judge.baseURL ? { baseURL: withoutCredentials(i.judge.baseURL) } : {}) },
  ...(i.vision ? { vision: { ...i.vision, ...(i.vision.baseURL ? { baseURL: withoutCredentials(i.vision.baseURL) } : {}) } } : {}),
});

/**
 * Every setting of the search, resolved from the flags and their defaults (search-config.json records them); the
 * trainer cache, unless --trainer-cache names it, beside the search directory `out` (in `runs/` without one).
 */
export const settingsOf = (argv: SearchArgs, out?: string): SearchSettings => {
  const task = getTask(taskIdOf(argv));
  const intent = intentSettingsOf(argv, argv.method, task);
  const seed = parseSeed(argv.seed ?? "0", "--seed");
  const { config: search, given } = configFromFlags(SearchConfig, FLAGS, argv, HELP);
  const { config: trainerFlags } = configFromFlags(TRAINER_SLICE, TRAINER_FLAGS, argv, HELP);
  const rs = RewardSearchConfig.parse({
    trainer: { ...trainerFlags, ...(argv.processes ? { processes: argv.processes } : {}) },
    ...(argv["trainer-cache"] ? { cacheDir: argv["trainer-cache"] } : {}),
  });
  const llm = argv.proposer === "llm" ? llmConfigOf(argv, "").actor : undefined;
  return SearchSettings.parse({
    method: argv.method,
    task: task.id,
    seed,
    search,
    // search.json records the knobs given on the command line (the budget has its own field).
    options: Object.fromEntries(Object.entries(given).filter(([k]) => k !== "budget")),
    trainSteps: argv["train-steps"] ?? budgetsOf(rs, task.training.steps).train,
    finalTrainings: argv["final-trainings"] ?? rs.finalTrainings,
    finalSteps: argv["final-steps"] ?? budgetsOf(rs, task.training.steps).finish,
    rewardSearch: { ...rs, cacheDir: cacheDirOf(rs, out) },
    proposer: argv.proposer,
    ...(llm ? { llm: { model: llm.model, ...("baseURL" in llm && llm.baseURL ? { baseURL: withoutCredentials(llm.baseURL) } : {}) } } : {}),
    ...(intent ? { intent: recordedIntent(intent) } : {}),
  });
};

/**
 * The LLM proposer's model, on its endpoint or embedded (the process's models, from `host`), every exchange
 * logged to the search directory's llm-log.jsonl.
 */
export const proposerModel = async (argv: SearchArgs, out: string, host: Pick<FamilyHost, "embeddedModels">): Promise<RoleModel> => {
  const { createRoleModel } = await import("../../../src/llm/role-model.ts");
  const llm = llmConfigOf(argv, out);
  const llama = isEmbedded(llm.actor) ? await host.embeddedModels() : undefined;
  return createRoleModel("actor", llm, { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`), ...(llama ? { llama } : {}) });
};

/**
 * Writes search-config.json once search.json is checked (called after the directory is opened): a new search's,
 * or a resumed one's with its first start kept. A search begun before hexa wrote the record gets none, since
 * its first start is unknown; `hexa verify` says it cannot replay it.
 */
export const searchRecorder = (out: string, settings: SearchSettings, host: FamilyHost): (() => Promise<void>) => {
  const begun = existsSync(join(out, "search.json"));
  return async () => {
    const before = readSearchRecord(out);
    if (begun && !before) {
      process.stderr.write(`note: ${out} was begun by a hexa that wrote no ${SEARCH_RECORD_FILE}; hexa verify cannot replay it\n`);
      return;
    }
    writeSearchRecord(out, {
      schemaVersion: 1,
      family: "reward-search",
      startedAt: before?.startedAt ?? new Date().toISOString(),
      code: await host.codeVersion(),
      ...(before ? { resumed: true } : {}),
      settings,
    });
  };
};

/**
 * Records the criteria the user accepted at a terminal in search-config.json, as --criteria's are recorded, so a
 * resume and `hexa verify` judge with them and never ask again.
 */
export const recordAcceptedCriteria = (out: string, settings: SearchSettings, criteria: readonly string[]): void => {
  const before = readSearchRecord(out);
  if (!before || !settings.intent) return;
  writeSearchRecord(out, { ...before, settings: { ...settings, intent: { ...settings.intent, criteria: [...criteria], elicited: true } } });
};
