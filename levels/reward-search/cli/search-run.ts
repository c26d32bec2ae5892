import { join } from "node:path";
import type { FamilyHost } from "../../../src/family/host.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import { proposerModel, searchRecorder, settingsOf } from "./search-args.ts";
import { executeSearch } from "./search-execute.ts";
import { executeP2p } from "./search-p2p.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { llmReviser } from "../proposers/p2p-llm-reviser.ts";
import type { SearchCommandArgs } from "./search.ts";

/** `hexa search`'s work (levels/reward-search/cli/search.ts holds its flags). */
export const runSearchCommand = async (argv: SearchCommandArgs, host: FamilyHost): Promise<void> => {
  const named = settingsOf(argv);
  const out = argv.out ? argv.out : join("runs", "search", `${named.method}-${named.task}-s${named.seed}`);
  const settings = settingsOf(argv, out);
  const record = searchRecorder(out, settings, host);
  const model = settings.llm ? await proposerModel(argv, out, host) : undefined;
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
