import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { writeFinalScores, type FinalScore, type Spread } from "../store/final-scores.ts";
import type { EpisodeRecord } from "../store/run-records.ts";

const f2 = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(2) : "–");

const spreadText = (s: Spread | undefined) =>
  s ? ` ± ${f2(s.std)} [${f2(s.low)}, ${f2(s.high)}] over ${s.n} seed${s.n === 1 ? "" : "s"} (per seed ${s.perSeed.map(f2).join(", ")})` : "";

/** One line per level: the score (with its spread over seeds, when it has one), what was spent, and the family's own figures that make it. */
export const formatFinalScores = (scores: readonly FinalScore[]): string =>
  [
    `final scores (${scores[0]?.measure ?? ""}):`,
    ...scores.map((s) => {
      const d = s.detail;
      const figures = "fitness" in d ? `; F ${f2(d.fitness)} (sparse ${f2(d.sparse)}, human ${f2(d.human)}), from ${String(d.source)}` : "";
      const raw = s.score === null && s.raw?.spread ? `  ${s.raw.name}${spreadText(s.raw.spread)}` : "";
      return `  ${s.level.padEnd(24)} ${f2(s.score).padStart(6)}${spreadText(s.spread)}${raw}  (${s.spent} trained${figures})`;
    }),
  ].join("\n");

/**
 * After a run's rounds or search: the family's final scores, written to final-scores.json and printed; nothing
 * when the family or the config asks for none.
 */
export const scoreRun = async (
  family: LevelFamily,
  config: RunConfig,
  dir: string,
  episodes: readonly EpisodeRecord[],
  print: (text: string) => void,
): Promise<FinalScore[] | undefined> => {
  const scores = await family.finalScores?.({ config, dir, episodes });
  if (!scores) return undefined;
  const path = writeFinalScores(dir, scores);
  print(`${formatFinalScores(scores)}\nfinal scores: ${path}\n`);
  return scores;
};
