/**
 * Where a judged checkpoint of a p2p search keeps its `hexa judge` folder, in the search directory: written by the
 * intent judge (p2p-intent-judge.ts), read by the search's page (report/p2p-page-read.ts). One level, so a
 * reader checks one folder for links.
 */
export const JUDGMENTS_FOLDER = "judgments";

export const checkpointJudgmentName = (iteration: number, config: number, seed: number, step: number): string =>
  `${JUDGMENTS_FOLDER}/it${iteration}-c${config}-s${seed}-step${step}`;
