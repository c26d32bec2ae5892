import { checkPriced, hasCap, SpendGate, type Budget, type Spend } from "../llm/budget.ts";
import type { SpendLedger } from "../llm/spend-ledger.ts";
import { forecastRun } from "../loop/forecast.ts";
import { usesBank } from "../loop/run-config.ts";
import { isEmbedded } from "../llm/config.ts";
import { budgetFrom, checkForecast, earlierUsage, seedGate, spentIn } from "./budget.ts";
import type { RunPlan } from "./run-plan.ts";

/** The flags that set a run's spend cap: `--budget-usd`, `--budget-tokens` over the config's, and `--yes`. */
export interface SpendFlags {
  "budget-usd"?: number | undefined;
  "budget-tokens"?: number | undefined;
  yes?: boolean | undefined;
}

/**
 * The run's spend cap (docs/spec/method.md §11): the forecast is printed before anything is written, a start it says would
 * cross the cap is refused without --yes, and the gate shared by the run's models stops it before the call
 * that would. A resume counts what the run already spent.
 */
export const spendGate = (
  plan: RunPlan,
  o: { runsDir: string; flags: SpendFlags; note: (line: string) => void; ledgerOf?: ((cap: Budget, spent: Spend) => SpendLedger) | undefined },
): SpendGate | undefined => {
  const { cfg, family, search, existing } = plan;
  const cap = budgetFrom(cfg.budget, { ...o.flags });
  // A search calls only the actor's model (its proposer); the rounds, the actor's and the evolver's.
  const roles = [
    ...(cfg.agent !== "heuristic" ? (["actor"] as const) : []),
    ...(!search && usesBank(cfg) && cfg.evolver === "llm" ? (["evolver"] as const) : []),
  ];
  if (!roles.length) return undefined;
  checkPriced(
    cap,
    cfg.llm.prices,
    // An embedded model costs nothing (src/llm/accounting.ts priceOf).
    roles.filter((r) => !isEmbedded(cfg.llm[r])).map((r) => ({ where: `llm.${r}`, model: cfg.llm[r].model })),
  );
  const usage = existing?.usage() ?? [];
  const spent = spentIn(usage);
  const earlier = [...(usage.length ? [usage] : []), ...earlierUsage([o.runsDir], existing?.path)];
  const forecast = forecastRun({
    cfg,
    family,
    recorded: new Set(existing?.episodes({ repair: false }).map((e) => e.id) ?? []),
    committed: existing?.bankLog({ repair: false }).done ?? new Set<string>(),
    earlier,
    ...(existing ? { dir: existing.path } : {}),
  });
  checkForecast(forecast, cap, spent, { yes: o.flags.yes === true, what: existing ? "the rest of this run" : "this run", print: o.note });
  if (!hasCap(cap)) return undefined;
  const gate = new SpendGate(cap, cfg.llm.prices, spent, o.ledgerOf?.(cap, spent));
  seedGate(gate, cfg, earlier, roles);
  return gate;
};
