import { join } from "node:path";
import type { FamilyHost } from "../../../src/family/host.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import { proposerModel, searchRecorder, settingsOf } from "./search-args.ts";
import { executeSearch } from "./search-execute.ts";
import type { SearchCommandArgs } from "./search.ts";

/** `hexa search`'s work (levels/reward-search/cli/search.ts holds its flags). */
export const runSearchCommand = async (argv: SearchCommandArgs, host: FamilyHost): Promise<void> => {
  const named = settingsOf(argv);
  const out = argv.out ? argv.out : join("runs", "search", `${named.method}-${named.task}-s${named.seed}`);
  const settings = settingsOf(argv, out);
  const record = searchRecorder(out, settings, host);
  const proposer = settings.llm ? llmProposer(await proposerModel(argv, out, host)) : heuristicProposer();
  const pool = localTrainerPool(settings.rewardSearch);
  try {
    await executeSearch(settings, {
      out,
      proposer,
      pool,
      opened: record,
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
    });
  } finally {
    await pool.close();
  }
  // The lineage as one HTML file, as hexa run leaves its report (docs/guides/inspect.md).
  const report = await host.writeReport(out);
  process.stdout.write(`report: ${report} (open it in a web browser; hexa inspect ${out} --serve shows it on a local port)\n`);
};
