/**
 * `hexa inspect DIR` on a p2p search directory (docs/guides/inspect.md, "A p2p search"): the folder read as a
 * stranger's (p2p-page-read.ts) and shown as one page (p2p-page.ts); with --serve the page follows the search.
 */
import { readP2pPage } from "./p2p-page-read.ts";
import { renderP2pPage } from "./p2p-page.ts";

/** The page of a p2p search directory and a line for the terminal; a folder that fails its checks is refused naming the file and field. */
export const p2pPage = async (dir: string, opts: { live: boolean } = { live: false }): Promise<{ html: string; summary: string }> => {
  const input = readP2pPage(dir);
  const judged = input.iterations.filter((it) => it.record).length;
  const branches = input.iterations.filter((it) => it.plan.parent !== null && it.plan.parent !== it.plan.iteration - 1).length;
  const judgments = input.iterations.reduce((n, it) => n + it.judgments.length, 0);
  const summary = `p2p search on ${input.header.task}: ${input.iterations.length} iterations (${judged} judged, ${branches} branches), ${input.lessons.length} lessons, ${judgments} checkpoint judgments${input.notices.length ? `, ${input.notices.length} notices` : ""}`;
  return { html: renderP2pPage(input, opts), summary };
};
