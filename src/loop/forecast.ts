import { CHARS_PER_TOKEN, formatUsd } from "../llm/budget.ts";
import { costUsd, priceOf } from "../llm/accounting.ts";
import { isEmbedded, type Price, type Role } from "../llm/config.ts";
import { episodeId, updateKey } from "../store/run-dir.ts";
import type { UsageLine } from "../store/run-records.ts";
import { updatesAt } from "./bank-update.ts";
import type { LevelFamily } from "../family/family.ts";
import type { SearchCalls } from "../family/capabilities.ts";
import { usesBank, type RunConfig } from "./run-config.ts";
import { needsOfflineRuns, schedule } from "./schedule.ts";
import { mean } from "../util/stats.ts";
import { requestCharCap } from "../../agents/actor-config.ts";

/**
 * What the rest of a run will cost before it starts (docs/spec/method.md §11): calls still to make × tokens per call × the
 * price table. Tokens per episode (and per bank update) come from the recorded usage of earlier runs of the same
 * model when there is any, else from the config's turn budget and the prompt's size. Cache hits are not
 * foreseen (they would only make it cheaper).
 */
export interface Forecast {
  episodes: number;
  updates: number;
  /** Candidates a family's whole search (instead of rounds) has still to propose. */
  candidates: number;
  calls: number;
  tokens: number;
  usd: number;
  /** Models without a price: their share is left out of `usd`. */
  unpriced: string[];
  /** Embedded models (`provider: llama-cpp`): their tokens count, their price is 0, not unknown. */
  embedded: string[];
  /** One line per role on where its per-call figures come from. */
  basis: string[];
}

export const NO_FORECAST: Forecast = { episodes: 0, updates: 0, candidates: 0, calls: 0, tokens: 0, usd: 0, unpriced: [], embedded: [], basis: [] };

const FREE: Price = { input: 0, cachedInput: 0, output: 0 };

/** A role's price and how a forecast names it: the table's, 0 for an embedded model, or none (unpriced). */
const pricing = (cfg: RunConfig, role: Role): { price: Price | undefined; embedded: boolean } => {
  const config = cfg.llm[role];
  if (isEmbedded(config)) return { price: FREE, embedded: true };
  return { price: priceOf(cfg.llm.prices, config.model), embedded: false };
};

/** One unit's price as the forecast prints it. */
const unitPrice = (usd: number, p: { price: Price | undefined; embedded: boolean }): string =>
  p.embedded ? "0 (embedded)" : p.price ? formatUsd(usd) : "unpriced";

/** Books a role's model into the forecast's lists of unpriced and embedded models. */
const noteModel = (out: Forecast, model: string, p: { price: Price | undefined; embedded: boolean }): void => {
  if (p.embedded) out.embedded.push(model);
  else if (!p.price) out.unpriced.push(model);
};

export interface Work {
  calls: number;
  input: number;
  output: number;
}

/** Assumed when nothing was recorded: a turn adds a thought, a call and an observation to the next prompt. */
const TOKENS_PER_TURN = 400;
const OUTPUT_PER_TURN = 300;
/** A bank update: the evolver reads the round's trajectories and the bank, and writes edits. */
const EVOLVER_OUTPUT = 2000;
const TOOLS_AND_PROTOCOL = 1500;

/** A model's name without a dated snapshot suffix (gpt-4o-2024-08-06 → gpt-4o): recorded usage of either informs the other. */
export const baseName = (model: string) => model.replace(/-\d{4}-\d{2}-\d{2}$/, "");

/** Mean work per unit (an episode, or a bank update) of one role and model in earlier runs' usage; a search's calls are no unit of these. */
export const recordedWork = (runs: ReadonlyArray<readonly UsageLine[]>, role: Role, model: string): (Work & { units: number }) | undefined => {
  const units = new Map<string, Work>();
  runs.forEach((lines, r) => {
    for (const l of lines) {
      if (l.role !== role || baseName(l.model) !== baseName(model) || l.fromCache || l.phase === "search") continue;
      const key = `${r}/${l.phase}/${l.level}/${l.round}/${l.seed ?? "-"}`;
      const w = units.get(key) ?? { calls: 0, input: 0, output: 0 };
      units.set(key, { calls: w.calls + 1, input: w.input + l.input, output: w.output + l.output });
    }
  });
  if (!units.size) return undefined;
  const all = [...units.values()];
  const meanOf = (f: (w: Work) => number) => mean(all.map(f));
  return { units: all.length, calls: meanOf((w) => w.calls), input: meanOf((w) => w.input), output: meanOf((w) => w.output) };
};

/**
 * Mean tokens per call of a model's search calls (phase search) in earlier runs. A search's candidate makes a
 * number of calls fixed by its strategy (the family says how many), so the forecast scales the mean call by it:
 * an earlier search of another strategy still informs the size of a call.
 */
const recordedSearchCall = (runs: ReadonlyArray<readonly UsageLine[]>, model: string): { calls: number; input: number; output: number } | undefined => {
  let calls = 0;
  let input = 0;
  let output = 0;
  for (const lines of runs) {
    for (const l of lines) {
      if (l.role !== "actor" || l.phase !== "search" || baseName(l.model) !== baseName(model) || l.fromCache) continue;
      calls++;
      input += l.input;
      output += l.output;
    }
  }
  return calls ? { calls, input: input / calls, output: output / calls } : undefined;
};

/** An episode that uses its whole turn budget, each prompt the system prompt plus every earlier turn (capped). */
const episodeWorkFromConfig = (cfg: RunConfig, promptChars: number): Work => {
  const t = cfg.actor.maxTurns;
  const prompt = Math.ceil(promptChars / CHARS_PER_TOKEN) + TOOLS_AND_PROTOCOL;
  const cap = Math.ceil(requestCharCap(cfg.actor) / CHARS_PER_TOKEN);
  let input = 0;
  for (let k = 0; k < t; k++) input += Math.min(cap, prompt + k * TOKENS_PER_TURN);
  return { calls: t, input, output: t * OUTPUT_PER_TURN };
};

const updateWorkFromConfig = (cfg: RunConfig, episode: Work): Work => {
  const trajectories = cfg.episodesPerRound * episode.calls * TOKENS_PER_TURN;
  const cap = Math.ceil(requestCharCap(cfg.actor) / CHARS_PER_TOKEN);
  return { calls: 1, input: Math.min(cap, trajectories + 4000), output: EVOLVER_OUTPUT };
};

export interface ForecastInput {
  cfg: RunConfig;
  family: LevelFamily;
  /** Episode ids already recorded in the run (a resume pays only for the rest). */
  recorded: ReadonlySet<string>;
  /** Committed bank updates, as updateKey(level, round). */
  committed: ReadonlySet<string>;
  /** Usage lines of earlier runs, one list per run. */
  earlier: ReadonlyArray<readonly UsageLine[]>;
  /** The run directory of a resume: where a family's whole search (it replaces the rounds) finds what it has done. */
  dir?: string;
}

/** A whole search's calls: candidates to go × the calls of one, each the mean recorded search call of the model or the family's estimate. */
const forecastSearch = (cfg: RunConfig, search: SearchCalls, earlier: ReadonlyArray<readonly UsageLine[]>): Forecast => {
  const out: Forecast = { ...NO_FORECAST, candidates: search.candidates, unpriced: [], embedded: [], basis: [] };
  if (cfg.agent === "heuristic" || search.candidates === 0) return out;
  const model = cfg.llm.actor.model;
  const per = search.perCandidate;
  const seen = recordedSearchCall(earlier, model);
  const w: Work = seen ? { calls: per.calls, input: seen.input * per.calls, output: seen.output * per.calls } : per;
  const p = pricing(cfg, "actor");
  const usd = p.price ? costUsd(p.price, { input: Math.round(w.input), output: Math.round(w.output), cached: 0 }) : 0;
  noteModel(out, model, p);
  out.calls = search.candidates * w.calls;
  out.tokens = Math.round(search.candidates * (w.input + w.output));
  out.usd = search.candidates * usd;
  const how = seen
    ? `${per.calls} call(s) per candidate × the mean of ${seen.calls} recorded search call(s) in earlier runs`
    : `from the config: ${search.basis}; no earlier searches of this model`;
  out.basis.push(
    `llm.actor ${model}: ${search.candidates} candidate(s) × ~${Math.round(w.input + w.output).toLocaleString("en")} tokens, ${unitPrice(usd, p)} per candidate (${how})` +
      (search.uncounted ? `; not forecast: ${search.uncounted}` : ""),
  );
  return out;
};

export const forecastRun = ({ cfg, family, recorded, committed, earlier, dir }: ForecastInput): Forecast => {
  const search = family.search?.searchFor(cfg);
  if (search) return forecastSearch(cfg, search.calls(dir), earlier);
  const plan = schedule(cfg, family);
  const actorPlays = cfg.agent !== "heuristic";
  const evolverCalls = usesBank(cfg) && cfg.evolver === "llm";
  let episodes = 0;
  let updates = 0;
  for (const level of cfg.levels) {
    const p = plan.get(level)!;
    if (actorPlays && needsOfflineRuns(cfg)) episodes += p.offline.filter((s) => !recorded.has(episodeId("offline", level, 0, s))).length;
    if (actorPlays) p.rounds.forEach((seeds, i) => (episodes += seeds.filter((s) => !recorded.has(episodeId("stream", level, i + 1, s))).length));
    if (evolverCalls) {
      for (let round = 0; round <= cfg.rounds; round++) {
        const viaFiles = round === 0 && (cfg.offline.banks !== undefined || cfg.init === "online");
        if (updatesAt(cfg, round) && !viaFiles && !committed.has(updateKey(level, round))) updates++;
      }
    }
  }
  const prompt = promptChars(cfg, family);
  const fromConfig = episodeWorkFromConfig(cfg, prompt);
  const out: Forecast = { ...NO_FORECAST, episodes, updates, unpriced: [], embedded: [], basis: [] };
  addRole(out, cfg, earlier, prompt, "actor", episodes, fromConfig, "episode");
  addRole(out, cfg, earlier, prompt, "evolver", updates, updateWorkFromConfig(cfg, fromConfig), "update");
  return out;
};

/** A held-out evaluation: `episodes` actor episodes with the frozen bank, no bank update. */
export const forecastEval = ({
  cfg,
  family,
  episodes,
  earlier,
}: {
  cfg: RunConfig;
  family: LevelFamily;
  episodes: number;
  earlier: ReadonlyArray<readonly UsageLine[]>;
}): Forecast => {
  const out: Forecast = { ...NO_FORECAST, episodes: cfg.agent === "heuristic" ? 0 : episodes, unpriced: [], embedded: [], basis: [] };
  const prompt = promptChars(cfg, family);
  addRole(out, cfg, earlier, prompt, "actor", out.episodes, episodeWorkFromConfig(cfg, prompt), "episode");
  return out;
};

/** Forecasts added together (a compare grid's runs); `basis` is the caller's. */
export const sumForecasts = (fs: readonly Forecast[], basis: string[]): Forecast =>
  fs.reduce(
    (a, f) => ({
      episodes: a.episodes + f.episodes,
      updates: a.updates + f.updates,
      candidates: a.candidates + f.candidates,
      calls: a.calls + f.calls,
      tokens: a.tokens + f.tokens,
      usd: a.usd + f.usd,
      unpriced: [...a.unpriced, ...f.unpriced],
      embedded: [...a.embedded, ...f.embedded],
      basis,
    }),
    { ...NO_FORECAST, unpriced: [], embedded: [], basis },
  );

const promptChars = (cfg: RunConfig, family: LevelFamily) => Math.max(...cfg.levels.map((l) => family.describe(l).length));

const addRole = (
  out: Forecast,
  cfg: RunConfig,
  earlier: ReadonlyArray<readonly UsageLine[]>,
  prompt: number,
  role: Role,
  units: number,
  fallback: Work,
  unit: string,
): void => {
  if (units === 0) return;
  const model = cfg.llm[role].model;
  const seen = recordedWork(earlier, role, model);
  const w = seen ?? fallback;
  const p = pricing(cfg, role);
  const usd = p.price ? costUsd(p.price, { input: Math.round(w.input), output: Math.round(w.output), cached: 0 }) : 0;
  noteModel(out, model, p);
  out.calls += units * w.calls;
  out.tokens += Math.round(units * (w.input + w.output));
  out.usd += units * usd;
  const per = `~${Math.round(w.input + w.output).toLocaleString("en")} tokens, ${unitPrice(usd, p)} per ${unit}`;
  out.basis.push(
    `llm.${role} ${model}: ${units} ${unit}(s) × ${per} (${seen ? `mean of ${seen.units} recorded ${unit}(s) in earlier runs` : role === "actor" ? `from the config: ${cfg.actor.maxTurns} turns, prompt ~${Math.ceil(prompt / CHARS_PER_TOKEN) + TOOLS_AND_PROTOCOL} tokens + ${TOKENS_PER_TURN} per earlier turn, ${OUTPUT_PER_TURN} out per turn; no earlier runs of this model` : "from the config: a round's trajectories and the bank in, a bank edit out; no earlier runs of this model"})`,
  );
};

export const forecastText = (f: Forecast): string =>
  f.calls === 0
    ? "forecast: no model calls left to make"
    : `forecast: ${[...(f.episodes || f.updates || !f.candidates ? [`${f.episodes} episode(s) and ${f.updates} bank update(s)`] : []), ...(f.candidates ? [`${f.candidates} search candidate(s)`] : [])].join(" and ")} to go, ~${Math.round(f.calls).toLocaleString("en")} calls, ~${f.tokens.toLocaleString("en")} tokens, ~${formatUsd(f.usd)}${f.unpriced.length ? ` + unpriced ${[...new Set(f.unpriced)].join(", ")}` : ""}${f.embedded.length ? ` + 0 for embedded ${[...new Set(f.embedded)].join(", ")} (its tokens count towards budget.tokens)` : ""}\n${f.basis.map((b) => `  ${b}`).join("\n")}`;
