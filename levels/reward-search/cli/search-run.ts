import { join } from "node:path";
import type { FamilyHost } from "../../../src/family/host.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import { ConfigError } from "../../../src/errors.ts";
import { proposerModel, type SearchArgs, searchRecorder, settingsOf } from "./search-args.ts";
import { addCorrections, correctionTexts, resumedSettings } from "./search-resume.ts";
import type { SearchSettings } from "./search-settings.ts";
import { executeSearch } from "./search-execute.ts";
import { executeP2p } from "./search-p2p.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { llmReviser } from "../proposers/p2p-llm-reviser.ts";
import type { SearchCommandArgs } from "./search.ts";

/** A search the command line describes: its task and method are required. */
const started = (argv: SearchCommandArgs): { out: string; settings: SearchSettings } => {
  const { task, method } = argv;
  if (task === undefined || method === undefined)
    throw new ConfigError(`hexa search: give a task and --method (e.g. hexa search cartpole --method p2p), or --resume DIR to go on with a search`);
  const named = settingsOf({ ...argv, task, method });
  const out = argv.out ? argv.out : join("runs", "search", `${named.method}-${named.task}-s${named.seed}`);
  return { out, settings: settingsOf({ ...argv, task, method }, out) };
};

/** The proposer's model flags: a resumed search asks the model its record names, at the endpoint it records, unless --llm-config or --model says otherwise. */
const modelArgs = (argv: SearchCommandArgs, s: SearchSettings): SearchArgs => {
  const named = { ...argv, task: s.task, method: s.method };
  if (argv.resume === undefined || !s.llm || argv["llm-config"] !== undefined || argv.model !== undefined) return named;
  return { ...named, model: s.llm.model, ...(s.llm.baseURL && argv["base-url"] === undefined ? { "base-url": s.llm.baseURL } : {}) };
};

/** `hexa search`'s work (levels/reward-search/cli/search.ts holds its flags). */
export const runSearchCommand = async (argv: SearchCommandArgs, host: FamilyHost): Promise<void> => {
  const texts = correctionTexts(argv);
  const { out, settings } = argv.resume === undefined ? started(argv) : { out: argv.resume, settings: resumedSettings(argv, argv.resume) };
  addCorrections(
    out,
    settings,
    texts,
    () => new Date(),
    (t) => process.stderr.write(t),
  );
  const record = searchRecorder(out, settings, host);
  const model = settings.llm ? await proposerModel(modelArgs(argv, settings), out, host) : undefined;
  const pool = localTrainerPool(settings.rewardSearch);
  const io = { out, pool, opened: record, stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
  try {
    if (settings.method === "p2p") await executeP2p(settings, { ...io, reviser: model ? llmReviser(model) : heuristicReviser() });
    else await executeSearch(settings, { ...io, proposer: model ? llmProposer(model) : heuristicProposer() });
  } finally {
    await pool.close();
  }
  // The lineage as one HTML file, as hexa run leaves its report (docs/guides/inspect.md); p2p's lineage has no view yet.
  if (settings.method === "p2p") return;
  const report = await host.writeReport(out);
  process.stdout.write(`report: ${report} (open it in a web browser; hexa inspect ${out} --serve shows it on a local port)\n`);
};
