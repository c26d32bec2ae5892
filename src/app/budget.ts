import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { Budget, formatUsd, hasCap, NO_SPEND, type SpendGate, type Spend } from "../llm/budget.ts";
import type { Role } from "../llm/config.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { baseName, forecastText, type Forecast } from "../loop/forecast.ts";
import { readJsonl } from "../store/jsonl.ts";
import type { RunDir } from "../store/run-dir.ts";
import { UsageLine } from "../store/run-records.ts";
import { hexaCommand } from "../util/hexa-command.ts";

/** The config's cap with the flags laid over it, each checked like the config key it overrides. */
export const budgetFrom = (config: Budget, argv: Record<string, unknown>): Budget => {
  const flag = (name: string, key: "usd" | "tokens") => {
    const v = argv[name];
    if (v === undefined) return {};
    const parsed = Budget.safeParse({ [key]: v });
    if (!parsed.success || typeof v !== "number" || !Number.isFinite(v))
      throw new ConfigError(`--${name} must be a positive ${key === "tokens" ? "integer" : "number"} (got ${JSON.stringify(v)})`);
    return { [key]: v };
  };
  return { ...config, ...flag("budget-usd", "usd"), ...flag("budget-tokens", "tokens") };
};

/** What a run has spent so far: every call usage.jsonl records, those of episodes a stop cut short included. */
export const spentIn = (lines: readonly UsageLine[]): Spend =>
  lines.reduce((s, l) => (l.fromCache ? s : { usd: s.usd + l.costUsd, tokens: s.tokens + l.input + l.output, calls: s.calls + 1 }), NO_SPEND);

export const spendText = (s: Spend): string => `${formatUsd(s.usd)} and ${s.tokens.toLocaleString("en")} tokens on ${s.calls} call(s)`;

/** Teaches the gate each role's recorded output sizes by the same model (see SpendGate.learn). */
export const seedGate = (gate: SpendGate, cfg: RunConfig, runs: ReadonlyArray<readonly UsageLine[]>, roles: readonly Role[]): void => {
  for (const role of roles) {
    const model = baseName(cfg.llm[role].model);
    gate.learn(
      `llm.${role}`,
      runs.flatMap((lines) => lines.filter((l) => l.role === role && !l.fromCache && baseName(l.model) === model).map((l) => l.output)),
    );
  }
};

/** Recorded usage of the run directories under `folders` (newest 50 each), for forecasts by the same model. */
export const earlierUsage = (folders: readonly string[], except?: string): UsageLine[][] =>
  folders.flatMap((folder) => {
    if (!existsSync(folder)) return [];
    const runs = readdirSync(folder, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(folder, d.name, "usage.jsonl")) && resolve(folder, d.name) !== except)
      .map((d) => d.name)
      .sort()
      .slice(-50);
    return runs.map((r) => {
      try {
        return readJsonl(join(folder, r, "usage.jsonl"), UsageLine, { repair: false });
      } catch {
        return []; // a damaged foreign run is no reason to refuse this one; its usage just does not inform the forecast
      }
    });
  });

/**
 * Prints the forecast and refuses a start it says would cross the cap (what is left of it, on a resume) unless
 * --yes. Nothing has been written when it refuses.
 */
export const checkForecast = (f: Forecast, cap: Budget, spent: Spend, o: { yes: boolean; what: string; print: (line: string) => void }): void => {
  if (f.calls === 0 && !hasCap(cap)) return;
  o.print(forecastText(f));
  if (!hasCap(cap)) return;
  const overUsd = cap.usd !== undefined && spent.usd + f.usd > cap.usd;
  const overTokens = cap.tokens !== undefined && spent.tokens + f.tokens > cap.tokens;
  const limits = [
    cap.usd !== undefined ? `budget.usd ${formatUsd(cap.usd)}` : "",
    cap.tokens !== undefined ? `budget.tokens ${cap.tokens.toLocaleString("en")}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const already = spent.calls ? ` (already spent: ${spendText(spent)})` : "";
  if (!overUsd && !overTokens) {
    o.print(`budget: ${limits}${already}; the forecast fits`);
    return;
  }
  const why = `the forecast for ${o.what} (~${formatUsd(f.usd)}, ~${f.tokens.toLocaleString("en")} tokens) exceeds ${limits}${already}`;
  if (o.yes) {
    o.print(`budget: ${why}; starting anyway (--yes): the run stops cleanly before the call that would cross the cap`);
    return;
  }
  throw new ConfigError(`${why}; raise the cap, shrink the run (rounds, levels, actor.maxTurns), or pass --yes to start anyway and stop at the cap`);
};

/** The flags of a raised cap for a stopped command's resume: each capped limit doubled (past what was spent). */
export const raiseFlags = (cap: Budget, spent: Pick<Spend, "usd" | "tokens">): string =>
  [
    cap.usd !== undefined ? `--budget-usd ${Math.max(cap.usd * 2, spent.usd * 2).toPrecision(2)}` : "",
    cap.tokens !== undefined ? `--budget-tokens ${Math.max(cap.tokens, spent.tokens) * 2}` : "",
  ]
    .filter(Boolean)
    .join(" ");

/** The line a stopped run ends with: what it spent and how to go on. */
export const stoppedHint = (dir: RunDir, cap: Budget, spent: Spend): string => {
  return `finished episodes and trained candidates are kept; spent ${spendText(spent)}. Raise the cap and continue: ${hexaCommand(`run --resume ${dir.path} ${raiseFlags(cap, spent)}`)}`;
};
