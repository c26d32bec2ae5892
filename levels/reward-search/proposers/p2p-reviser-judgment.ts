import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { PickedEpisode } from "../cli/judge-file.ts";
import { checkpointJudgmentName } from "../search/p2p-judgment-folder.ts";
import { readJudgmentFolder } from "../verify/judgment-folder.ts";

/**
 * What the reviser's `judgment` tool answers of one judged checkpoint of an intent search: its `hexa judge` folder
 * in the search's own directory (p2p-judgment-folder.ts), named from the checked iteration, config, seed and step
 * only, read through the bounded, checked reader of judgment.json; per picked episode the synthesis, the code
 * judge's leaves and the vision judge's criteria and diagnosis.
 */

const n = (x: number) => Number(x.toPrecision(3)).toString();

const synthesisText = (p: PickedEpisode): string => {
  const s = p.synthesis;
  switch (s.kind) {
    case "agree":
      return `agree ${n(s.score)} (code ${n(s.code)}, vision ${n(s.vision)})`;
    case "disagree":
      return `disagree (code ${n(s.code)}, vision ${n(s.vision)}): ${s.reason}`;
    case "single":
      return `${s.judge} alone ${n(s.score)}`;
    case "none":
      return `none: ${s.rule}`;
    case "settled":
      return `settled ${n(s.score)} (code ${n(s.code)}, vision ${n(s.vision)}, sided with ${s.sidedWith}): ${s.rule}`;
  }
};

const pickText = (p: PickedEpisode): string[] => {
  const leaves = (p.judgment?.nodes ?? []).flatMap((node) =>
    node.leaf
      ? [
          `  leaf ${node.id} ${node.name}: ${node.leaf.status}, value ${JSON.stringify(node.leaf.result.value)}, score ${n(node.score)} — ${node.leaf.result.note}`,
        ]
      : [],
  );
  const v = p.vision;
  const vision =
    v?.kind === "verdict"
      ? [
          ...v.criteria.map((c) => `  [${c.status}] ${c.criterion} — ${c.assessment}`),
          `  vision diagnosis: ${v.diagnosis}${v.failureTags.length ? ` (${v.failureTags.join(", ")})` : ""}`,
        ]
      : v
        ? [`  vision failed at ${v.stage}: ${v.message}`]
        : [];
  return [`${p.pick} (seed ${p.seed}): score ${n(p.score)}; ${synthesisText(p)}`, ...leaves, ...vision];
};

/** The judgment of checkpoint `step` of a training, or why there is none. */
export const judgmentText = (searchDir: string | undefined, t: { iteration: number; config: number; seed: number; step: number }): string => {
  const name = checkpointJudgmentName(t.iteration, t.config, t.seed, t.step);
  if (searchDir === undefined) return "no judgment folders: this search keeps its lineage in memory";
  const folder = join(searchDir, name);
  const st = lstatSync(folder, { throwIfNoEntry: false });
  if (!st) return `no judgment folder ${name}: this checkpoint was judged without one (the fitness judge keeps none)`;
  if (!st.isDirectory()) return `${name} is not a plain folder; it is not read`;
  try {
    const { file } = readJudgmentFolder(folder);
    return [`${name}: intent ${JSON.stringify(file.intent)}`, ...file.picks.flatMap(pickText), ...file.notes.map((x) => `note: ${x}`)].join("\n");
  } catch (e) {
    return `${name}: unreadable (${(e as Error).message.replace(`${searchDir}/`, "")})`;
  }
};
