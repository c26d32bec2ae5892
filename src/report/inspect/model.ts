import type { Trajectory } from "../../store/trajectory.ts";
import type { BankEvent } from "../../store/bank.ts";
import type { BankSnapshot, EpisodeRecord, UsageLine } from "../../store/run-records.ts";
import { bankView, type BankView } from "./bank-view.ts";
import { usageView, type FailedCall, type UsageView } from "./usage-view.ts";
import type { SearchView } from "./search-view.ts";
import type { FinalScoresView } from "./final-view.ts";
import type { AttestationView } from "./attestation-view.ts";

/**
 * The data behind `hexa inspect` (docs/ARCHITECTURE.md §8): one run's files, already read and parsed by the store, turned into
 * the JSON the page draws. Pure, and family-independent except through `EpisodeDrawer`, which the CLI supplies
 * (a family supplies it).
 */

/** The episode's action, whatever the family: the one place that knows where a trajectory keeps it. */
export const actionOf = (t: Trajectory): unknown => t.action;

export interface EpisodeDrawer {
  /** Data-URI pictures of one episode: a still `image` (cheap) and, when asked, an `animation` of its action. */
  drawEpisode(rec: EpisodeRecord, opts: { animate: boolean }): { image?: string; animation?: string };
  /** The action as one short line of text. */
  renderAction(action: unknown): string;
  /**
   * Makes these episodes' animations ahead of `drawEpisode`, e.g. side by side off the main thread; never rejects
   * (what it could not make is drawn when asked). Absent: each is drawn when asked.
   */
  prepareAnimations?(recs: readonly EpisodeRecord[]): Promise<void>;
  /** The episode's animation as GIF bytes (`hexa inspect --serve` serves them); absent: none. */
  animationGif?(rec: EpisodeRecord): Uint8Array | undefined;
}

/** What the run was, from its config; plain values so that this module needs no config schema. */
export interface RunSummaryInput {
  family: string;
  levels: string[];
  agent: string;
  evolver: string;
  init: string;
  update: string;
  models: { actor: string; evolver: string };
  /** T, x, R, M, N, M_max, N_max (docs/spec/method.md §9). */
  T: number;
  x: number;
  R: number;
  M: number;
  N: number;
  maxSkills: number;
  maxMistakes: number;
  seedOffset: number;
}

/** One run directory as read by the store's readers (`repair: false`: inspection never changes a run). */
export interface RunInput {
  id: string;
  path: string;
  createdAt: string;
  summary: RunSummaryInput;
  episodes: readonly EpisodeRecord[];
  /** Committed events of each level, in order. */
  bankEvents: ReadonlyMap<string, readonly BankEvent[]>;
  snapshots: readonly BankSnapshot[];
  usage: readonly UsageLine[];
  failedCalls: readonly FailedCall[];
  evals: readonly { name: string; episodes: readonly EpisodeRecord[] }[];
  /** Torn last lines, uncommitted updates: what the reader should know is missing. */
  notices: readonly string[];
}

/** Observations are cut to this many characters: a 25-turn LLM episode stays a few kB in the page. */
const OBSERVATION_CHARS = 2000;

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}… [${s.length - n} more characters]`);

interface EpisodeView {
  id: string;
  phase: string;
  level: string;
  round: number;
  seed: number;
  success: boolean;
  turns: number;
  maxTurns: number;
  r: number;
  category: string;
  bankRound: number | null;
  retrieved: string[];
  action: string;
  stopReason: string;
  agent: string;
  model: string;
  tokens: number;
  costUsd: number;
  wallMs: number;
  error?: string;
  steps: { turn: number; thought: string; tool: string; args: string; observation: string; ok: boolean; ms: number }[];
  image?: string;
  animation?: string;
}

export interface RunView {
  id: string;
  path: string;
  createdAt: string;
  summary: RunSummaryInput & {
    labels: { agent: string; evolver: string };
    totals: { episodes: number; successes: number; meanTurns: number; tokens: number; costUsd: number; wallMs: number };
    evals: { name: string; episodes: number; successes: number }[];
  };
  episodes: EpisodeView[];
  bank: BankView;
  usage: UsageView;
  notices: string[];
}

export interface Report {
  schemaVersion: 1;
  kind: "run" | "compare" | "search";
  title: string;
  builtAt: string;
  /** One cell per configuration; a single run is one cell of one run. */
  cells: { name: string; runs: RunView[] }[];
  /** Reward searches found at or under the directory (docs/spec/reward-search.md §8.2): the lineage of every candidate. */
  searches: SearchView[];
  /** The final scores (final-scores.json) of the run, its searches or the comparison's runs. */
  finals: FinalScoresView[];
  /** Each run's last verification and bundle, for the runs that have one. */
  attestations: AttestationView[];
  notices: string[];
}

const heuristicLabel = (who: string) => (who.startsWith("heuristic") ? "heuristic, no LLM" : who);

const episodeView = (rec: EpisodeRecord, drawer: EpisodeDrawer, animate: boolean): EpisodeView => {
  const t = rec.trajectory;
  const pictures = drawer.drawEpisode(rec, { animate });
  return {
    id: rec.id,
    phase: rec.phase,
    level: rec.level,
    round: rec.round,
    seed: rec.seed,
    success: t.success,
    turns: t.turns,
    maxTurns: t.maxTurns,
    r: rec.r,
    category: rec.category,
    bankRound: rec.bankRound,
    retrieved: rec.retrieved,
    action: actionOf(t) === null ? "(none)" : drawer.renderAction(actionOf(t)),
    stopReason: t.stopReason,
    agent: t.agent,
    model: t.model,
    tokens: t.usage.input + t.usage.output,
    costUsd: t.usage.costUsd,
    wallMs: t.wallMs,
    ...(t.error ? { error: t.error } : {}),
    steps: t.steps.map((s) => ({
      turn: s.turn,
      thought: cut(s.thought, OBSERVATION_CHARS),
      tool: s.tool,
      args: cut(JSON.stringify(s.args ?? null), OBSERVATION_CHARS),
      observation: cut(s.observation, OBSERVATION_CHARS),
      ok: s.ok,
      ms: Math.round(s.ms),
    })),
    ...pictures,
  };
};

export interface BuildOptions {
  /** Which episodes get an embedded animation (the rest show their still picture; `--serve` makes them on demand). */
  animate: (rec: EpisodeRecord, all: readonly EpisodeRecord[]) => boolean;
}

/**
 * The last solved stream episode of each level: the default set of embedded animations, one short GIF per level
 * that shows what the bank taught (a solved rollout stops at success; an unsolved one runs the whole horizon).
 */
export const lastSolvedOfEachLevel = (rec: EpisodeRecord, all: readonly EpisodeRecord[]): boolean =>
  all.filter((e) => e.phase === "stream" && e.level === rec.level && e.trajectory.success).at(-1)?.id === rec.id;

export const buildRunView = (run: RunInput, drawer: EpisodeDrawer, opts: BuildOptions): RunView => {
  const stream = run.episodes.filter((e) => e.phase === "stream");
  const sum = (f: (e: EpisodeRecord) => number) => run.episodes.reduce((s, e) => s + f(e), 0);
  return {
    id: run.id,
    path: run.path,
    createdAt: run.createdAt,
    summary: {
      ...run.summary,
      labels: {
        agent: heuristicLabel(run.summary.agent),
        evolver: run.summary.evolver === "heuristic" ? "heuristic, no LLM" : `llm (${run.summary.models.evolver})`,
      },
      totals: {
        episodes: stream.length,
        successes: stream.filter((e) => e.trajectory.success).length,
        meanTurns: stream.length ? stream.reduce((s, e) => s + e.trajectory.turns, 0) / stream.length : 0,
        tokens: run.usage.reduce((s, u) => s + u.input + u.output, 0),
        costUsd: run.usage.reduce((s, u) => s + u.costUsd, 0),
        wallMs: sum((e) => e.trajectory.wallMs),
      },
      evals: run.evals.map((e) => ({ name: e.name, episodes: e.episodes.length, successes: e.episodes.filter((x) => x.trajectory.success).length })),
    },
    episodes: run.episodes.map((e) => episodeView(e, drawer, opts.animate(e, run.episodes))),
    bank: bankView(run.bankEvents, run.snapshots),
    usage: usageView(run.usage, run.failedCalls),
    notices: [...run.notices],
  };
};

export const buildReport = (o: {
  kind: Report["kind"];
  title: string;
  builtAt: string;
  cells: { name: string; runs: RunView[] }[];
  searches?: SearchView[];
  finals?: FinalScoresView[];
  attestations?: AttestationView[];
  notices?: string[];
}): Report => ({
  schemaVersion: 1,
  kind: o.kind,
  title: o.title,
  builtAt: o.builtAt,
  cells: o.cells,
  searches: o.searches ?? [],
  finals: o.finals ?? [],
  attestations: o.attestations ?? [],
  notices: [
    ...(o.notices ?? []),
    ...o.cells.flatMap((c) => c.runs.flatMap((r) => r.notices.map((n) => `${r.id}: ${n}`))),
    ...(o.searches ?? []).flatMap((s) => s.notices.map((n) => `search ${s.name}: ${n}`)),
  ],
});
