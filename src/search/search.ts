import { InvariantError } from "../errors.ts";
import type { SearchResult } from "./candidates.ts";
import { searchBudget, type SearchConfig, type SearchMethod } from "./config.ts";
import { runEureka, type StrategyRun } from "./eureka.ts";
import type { SearchInstance } from "./evaluator.ts";
import { runRfAgent } from "./rf-agent.ts";

/**
 * One search of one task instance with one method, on the ports a family supplies (an evaluator, a proposer,
 * a candidate log). Running it again on the same log resumes it: finished candidates are replayed from the
 * log, the rest are evaluated. The budget is the config's (`searchBudget`), exactly.
 */
export const runSearch = <T, I extends SearchInstance>(
  method: SearchMethod,
  run: Omit<StrategyRun<T, I>, "budget">,
  config: SearchConfig,
): Promise<SearchResult> => {
  const budget = searchBudget(method, config);
  switch (method) {
    case "eureka":
      return runEureka({ ...run, budget }, config.eureka);
    case "rf-agent":
      return runRfAgent({ ...run, budget }, config.rfAgent);
    case "p2p":
      // p2p trains rewards with hyper-parameters and judges checkpoints: its ports differ (p2p.ts, runP2p).
      throw new InvariantError("runSearch: p2p runs on its own ports through runP2p (src/search/p2p.ts)");
  }
};
