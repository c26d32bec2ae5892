import type { LevelFamily } from "../family/family.ts";
import type { LevelPhases } from "../family/capabilities.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { headlineBySeed, writeFinalScores, type FinalScore } from "../store/final-scores.ts";
import { figureText } from "./inspect/final-view.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { fixed } from "../cli-kit/format.ts";

/** A level's figures, the headline first, then its value per seed, what was spent and where the scored thing came from. */
const levelText = (s: FinalScore, first: FinalScore): string[] => {
  const source = typeof s.detail.source === "string" ? `, from ${s.detail.source}` : "";
  const perSeed = [...headlineBySeed(s).values()].map((v) => fixed(v)).join(", ");
  return [
    `  ${s.level}  (${s.spent} trained${source})`,
    ...(s.measure === first.measure ? [] : [`    (${s.measure})`]),
    ...Object.values(s.figures).map((f) => `    ${figureText(f)}`),
    ...(s.perSeed.length ? [`    ${s.figures[s.headline]!.label} per seed: ${perSeed}`] : []),
  ];
};

/** The final scores of every level: what they measure (at which budget), then each level's figures. */
export const formatFinalScores = (scores: readonly FinalScore[]): string =>
  [`final scores (${scores[0]?.measure ?? ""}):`, ...scores.flatMap((s) => levelText(s, scores[0]!))].join("\n");

/**
 * After a run's rounds or search: the family's final scores, written to final-scores.json and printed; nothing
 * when the family or the config asks for none.
 */
export const scoreRun = async (
  family: LevelFamily,
  config: RunConfig,
  phases: ReadonlyMap<string, LevelPhases>,
  dir: string,
  episodes: readonly EpisodeRecord[],
  print: (text: string) => void,
): Promise<FinalScore[] | undefined> => {
  const scores = await family.search?.finalScores?.({ config, dir, phases, episodes });
  if (!scores) return undefined;
  const path = writeFinalScores(dir, scores);
  print(`${formatFinalScores(scores)}\nfinal scores: ${path}\n`);
  return scores;
};
