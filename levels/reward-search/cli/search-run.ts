import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FamilyHost } from "../../../src/family/host.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import type { QueueAccess } from "../../../src/family/registry.ts";
import { ConfigError } from "../../../src/errors.ts";
import { proposerModel, recordAcceptedCriteria, type SearchArgs, searchRecorder, settingsOf } from "./search-args.ts";
import { type Elicit, type Terminal, terminalElicit } from "./search-elicit.ts";
import { searchCachePool } from "./search-cached.ts";
import { readSearchRecord } from "../../../src/search/search-record.ts";
import { addCorrections, correctionTexts, resumedSettings } from "./search-resume.ts";
import type { SearchSettings } from "./search-settings.ts";
import { executeSearch } from "./search-execute.ts";
import { executeP2p } from "./search-p2p.ts";
import { carriedLessonsOf } from "../search/p2p-carried-flag.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { llmReviser } from "../proposers/p2p-llm-reviser.ts";
import type { SearchCommandArgs } from "./search.ts";
import type { IntentSettings } from "./search-intent.ts";
import type { SearchMethod } from "../../../src/search/config.ts";
import type { IntentModels } from "../search/p2p-intent-judge.ts";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import { holdSearchDir } from "../../../src/search/search-hold.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";

/**
 * The judges' models of an intent search, from the same flags and role configs as hexa judge's, logged to the
 * search's llm-log.jsonl; a flag not given takes the model and endpoint the search's settings record (a resumed
 * search asks the judges it started with).
 */
const intentModelsOf = async (argv: SearchCommandArgs, intent: IntentSettings, out: string): Promise<IntentModels> => {
  const { JudgeModels } = await import("./judge-models.ts");
  const models = await JudgeModels.of({
    config: argv.config,
    judgeModel: argv["judge-model"] ?? intent.judge.model,
    judgeBaseUrl: argv["judge-base-url"] ?? intent.judge.baseURL,
    visionModel: argv["vision-model"] ?? intent.vision?.model,
    visionBaseUrl: argv["vision-base-url"] ?? intent.vision?.baseURL,
    visionMaxImages: argv["vision-max-images"] ?? intent.vision?.maxImages,
  });
  const v = intent.vision;
  return {
    judge: await models.model("judge", out),
    ...(v ? { vision: { model: await models.model("vision", out), limits: { maxImages: v.maxImages, video: v.video }, trail: v.trail } } : {}),
  };
};

/** The default search directory: METHOD-TASK-sSEED, and for an intent a hash of its words. */
const defaultOut = (s: SearchSettings): string =>
  join("runs", "search", `${s.method}-${s.task}-s${s.seed}${s.intent ? `-intent-${sha256Hex(s.intent.text).slice(0, 8)}` : ""}`);

/** The flags a --config file stands for, with the command line's other flags (--out, --processes …); refused when it gives both. */
const configured = async (argv: SearchCommandArgs, path: string): Promise<SearchCommandArgs> => {
  const { argsOfConfig, CONFIG_SHAPED } = await import("./search-config-file.ts");
  const both = CONFIG_SHAPED.filter((f) => argv[f] !== undefined);
  if (both.length) throw new ConfigError(`--config: the search is the file's; drop ${both.map((f) => (f === "task" ? "the task" : `--${f}`)).join(", ")}`);
  return { ...argv, ...argsOfConfig(path) } as SearchCommandArgs;
};

/** The settings of a search from its flags; a --config file's refusals name its fields. */
const settingsFrom = async (argv: SearchCommandArgs, method: SearchMethod, out?: string): Promise<SearchSettings> => {
  if (argv.config === undefined) return settingsOf({ ...argv, method }, out);
  const { inConfigTermsOf } = await import("./search-config-file.ts");
  return inConfigTermsOf(argv.config, () => settingsOf({ ...argv, method }, out));
};

/** A search the command line (or its --config file) describes: its task and method are required. */
const started = async (given: SearchCommandArgs): Promise<{ argv: SearchCommandArgs; out: string; settings: SearchSettings }> => {
  const argv = given.config === undefined ? given : await configured(given, given.config);
  const { method } = argv;
  if (method === undefined)
    throw new ConfigError(`hexa search: give a task and --method (e.g. hexa search cartpole --method p2p), or --resume DIR to go on with a search`);
  const named = await settingsFrom(argv, method);
  const out = argv.out ? argv.out : defaultOut(named);
  return { argv, out, settings: await settingsFrom(argv, method, out) };
};

/** The proposer's model flags: a resumed search asks the model its record names, at the endpoint it records, unless --llm-config or --model says otherwise. */
const modelArgs = (argv: SearchCommandArgs, s: SearchSettings): SearchArgs => {
  const named = { ...argv, task: s.task, method: s.method };
  if (argv.resume === undefined || !s.llm || argv["llm-config"] !== undefined || argv.model !== undefined) return named;
  return { ...named, model: s.llm.model, ...(s.llm.baseURL && argv["base-url"] === undefined ? { "base-url": s.llm.baseURL } : {}) };
};

/**
 * The terminal's criteria elicitation, when it applies: an intent judged by a vision model with no criteria given
 * or fixed yet in `out`, not --yes, stdin and stdout a terminal (otherwise the vision judge's criteria are taken).
 */
const elicitOf = (argv: SearchCommandArgs, s: SearchSettings, out: string, terminal: Terminal): Elicit | undefined => {
  if (!s.intent?.vision || s.intent.criteria || argv.yes || existsSync(join(out, "vision-criteria"))) return undefined;
  return terminalElicit(terminal);
};

/** When the search in `out` first started, once its search-config.json is written; read once, then kept (it never changes). */
const startedAtOf = (out: string): (() => Date | undefined) => {
  let started: Date | undefined;
  return () => {
    if (started === undefined) {
      const r = readSearchRecord(out);
      if (r) started = new Date(r.startedAt);
    }
    return started;
  };
};

/** The elicitation of an intent search's criteria, and where the accepted ones are recorded. */
const p2pElicitation = (argv: SearchCommandArgs, s: SearchSettings, out: string, terminal: Terminal) => {
  const elicit = elicitOf(argv, s, out, terminal);
  return elicit ? { elicit, accepted: (c: string[]) => recordAcceptedCriteria(out, s, c) } : {};
};

/** The queue `--backend redis://…` names, its job key and TLS checked by the host as `hexa run --backend`'s are; undefined: local. */
const queueOf = async (argv: SearchCommandArgs, host: FamilyHost): Promise<QueueAccess | undefined> => {
  const access = argv.backend === undefined ? undefined : await host.queueBackend(argv.backend, "--backend", (l) => process.stderr.write(`${l}\n`));
  if (access && argv.processes !== undefined)
    throw new ConfigError(
      "--processes: with --backend the workers train, each with its own processes (worker.yaml reward-search.trainer.processes); drop --processes",
    );
  return access;
};

/** The search's trainer pool: this machine's trainer processes, or the trainings queue that `hexa worker`s serve. */
const trainerPoolOf = async (access: QueueAccess | undefined, s: SearchSettings): Promise<TrainerPool> =>
  access ? (await import("../worker/queue-trainers.ts")).queueTrainerPool(access, s.rewardSearch) : localTrainerPool(s.rewardSearch);

/** `hexa search`'s work (levels/reward-search/cli/search.ts holds its flags). */
export const runSearchCommand = async (
  given: SearchCommandArgs,
  host: FamilyHost,
  terminal: Terminal = { stdin: process.stdin, stdout: process.stdout },
): Promise<void> => {
  const texts = correctionTexts(given);
  const { argv, out, settings } =
    given.resume === undefined ? await started(given) : { argv: given, out: given.resume, settings: resumedSettings(given, given.resume) };
  // Checked before anything is written, as hexa run checks its backend.
  const queue = await queueOf(argv, host);
  const carried = await carriedLessonsOf(given["lessons-from"], settings.method);
  addCorrections(
    out,
    settings,
    texts,
    () => new Date(),
    (t) => process.stderr.write(t),
  );
  const hold = holdSearchDir(out);
  if ("busy" in hold) {
    if (!texts.length) throw new ConfigError(`${out}: another hexa search (${hold.busy}) is running this search; wait for it, or stop it`);
    process.stdout.write(`${out}: the search is running in ${hold.busy}; it takes the correction${texts.length === 1 ? "" : "s"} at its next plan\n`);
    return;
  }
  for (const path of hold.removed) process.stderr.write(`removed ${path}: a write a killed process left unfinished\n`);
  try {
    await searchInHold(argv, host, out, settings, { queue, terminal, carried });
  } finally {
    hold.release();
  }
};

/** A p2p search's own page (hexa inspect's), written as its report.html; its path. */
const writeP2pPage = async (out: string): Promise<string> => {
  const { p2pPage } = await import("../report/p2p-inspect.ts");
  const path = join(out, "report.html");
  writeAtomic(path, (await p2pPage(out)).html);
  return path;
};

/** The search itself, once this process holds its directory. */
const searchInHold = async (
  argv: SearchCommandArgs,
  host: FamilyHost,
  out: string,
  settings: SearchSettings,
  { queue, terminal, carried }: { queue: QueueAccess | undefined; terminal: Terminal; carried: Awaited<ReturnType<typeof carriedLessonsOf>> },
): Promise<void> => {
  const record = searchRecorder(out, settings, host);
  const model = settings.llm ? await proposerModel(modelArgs(argv, settings), out, host) : undefined;
  const intent = settings.intent ? await intentModelsOf(argv, settings.intent, out) : undefined;
  const pool = await trainerPoolOf(queue, settings);
  const io = { out, pool, opened: record, stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
  try {
    if (settings.method === "p2p")
      await executeP2p(settings, {
        ...io,
        pool: searchCachePool(pool, startedAtOf(out)),
        ...(intent ? { intent } : {}),
        reviser: model ? llmReviser(model) : heuristicReviser(),
        ...carried,
        ...p2pElicitation(argv, settings, out, terminal),
      });
    else await executeSearch(settings, { ...io, proposer: model ? llmProposer(model) : heuristicProposer() });
  } finally {
    await pool.close();
  }
  // The lineage as one HTML file, as hexa run leaves its report (docs/guides/inspect.md).
  const report = settings.method === "p2p" ? await writeP2pPage(out) : await host.writeReport(out);
  process.stdout.write(`report: ${report} (open it in a web browser; hexa inspect ${out} --serve shows it on a local port)\n`);
};
