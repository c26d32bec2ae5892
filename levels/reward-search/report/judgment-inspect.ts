/**
 * `hexa inspect DIR` on a `hexa judge` folder (docs/guides/judging.md, "hexa inspect"): the folder read as a
 * stranger's (judgment-page-read.ts) and shown as one page (judgment-page.ts).
 */
import { ConfigError } from "../../../src/errors.ts";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { readJudgmentPage } from "./judgment-page-read.ts";
import { renderJudgmentPage } from "./judgment-page.ts";

/** The page of a judgment folder and a line for the terminal; a folder that fails its checks is refused naming the field. */
export const judgmentPage = async (dir: string): Promise<{ html: string; summary: string }> => {
  let input: ReturnType<typeof readJudgmentPage>;
  try {
    input = readJudgmentPage(dir);
  } catch (e) {
    throw e instanceof CannotVerify ? new ConfigError(e.message) : e;
  }
  const pictures = [...input.pictures.values()];
  const frames = pictures.reduce((n, p) => n + p.frames.length + p.trail.length, 0);
  const criteria = pictures.reduce((n, p) => n + (p.criteria?.length ?? 0), 0);
  const summary = `judgment of ${input.file.task} by the ${input.file.judge.label}: ${input.file.episodes.length} episodes, ${input.file.picks.length} picks, ${frames} frames, ${criteria} vision criteria`;
  return { html: renderJudgmentPage(input), summary };
};
