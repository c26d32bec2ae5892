import { HexaError } from "../errors.ts";
import { terminalLine, terminalText } from "../util/terminal-text.ts";

/** Where a replay first differs from its record (docs/guides/verify.md): what, the field, and both values. */
export interface Divergence {
  /** e.g. "episode stream/catapult/r1/s57 turn 3", "bank event 4 (catapult round 1 add s1_2)", "metric", "the actor's request". */
  what: string;
  field: string;
  recorded: string;
  replayed: string;
}

export interface VerifyCounts {
  episodes: number;
  bankEvents: number;
  modelExchanges: number;
  trainings: number;
  /** Runs of a compare directory (1 for a run or a search). */
  runs: number;
  /** A search's candidates (a search directory's). */
  candidates?: number;
  /** A judgment's trajectories, re-judged (a `hexa judge` folder's). */
  judged?: number;
}

export type VerifyStatus = "identical" | "diverged" | "cannot";

export interface VerifyReport {
  status: VerifyStatus;
  dir: string;
  counts: VerifyCounts;
  divergence?: Divergence;
  /** One line for a person: "identical (…)", the divergence, or what is missing. */
  message: string;
}

/** A record lacks what a replay needs (a file, a field, a training): `hexa verify` exits 2 and names it. */
export class CannotVerify extends HexaError {}

export const zeroCounts = (): VerifyCounts => ({ episodes: 0, bankEvents: 0, modelExchanges: 0, trainings: 0, runs: 0 });

export const addCounts = (a: VerifyCounts, b: VerifyCounts): VerifyCounts => ({
  episodes: a.episodes + b.episodes,
  bankEvents: a.bankEvents + b.bankEvents,
  modelExchanges: a.modelExchanges + b.modelExchanges,
  trainings: a.trainings + b.trainings,
  runs: a.runs + b.runs,
});

const countsText = (c: VerifyCounts): string => {
  // A judgment plays, trains and keeps nothing: it re-judges recorded trajectories.
  if (c.judged !== undefined) return `${c.judged} ${c.judged === 1 ? "trajectory" : "trajectories"} re-judged, ${c.modelExchanges} model exchanges`;
  // A search directory plays no episode and keeps no bank: its candidates stand where they would.
  const played = c.candidates === undefined ? `${c.episodes} episodes, ${c.bankEvents} bank events` : `${c.candidates} candidates`;
  return `${c.runs > 1 ? `${c.runs} runs, ` : ""}${played}, ${c.modelExchanges} model exchanges, ${c.trainings} trainings checked`;
};

/** The report of a replay that ran to its comparison: identical, or its first divergence. */
export const reportOf = (dir: string, counts: VerifyCounts, divergence: Divergence | undefined): VerifyReport =>
  divergence
    ? { status: "diverged", dir, counts, divergence, message: `${divergence.what}: ${divergence.field} differs` }
    : { status: "identical", dir, counts, message: `identical: ${countsText(counts)}` };

/** The exit status of `hexa verify`: 0 identical, 1 diverged, 2 cannot verify. */
export const exitCodeOf = (s: VerifyStatus): number => (s === "identical" ? 0 : s === "diverged" ? 1 : 2);

/** The verdict for a terminal; every part taken from a record is escaped (src/util/terminal-text.ts). */
export const reportText = (r: VerifyReport): string => {
  if (r.status === "identical") return `identical: ${countsText(r.counts)}`;
  if (r.status === "cannot") return `cannot verify ${terminalLine(r.dir)}: ${terminalText(r.message)}`;
  const [what, field, recorded, replayed] = [r.divergence!.what, r.divergence!.field, r.divergence!.recorded, r.divergence!.replayed].map(terminalLine);
  return `diverged: ${what}\n  field:    ${field}\n  recorded: ${recorded}\n  replayed: ${replayed}\n(checked before it: ${countsText(r.counts)})`;
};
