/**
 * `hexa verify` of a `hexa judge` folder (docs/guides/judging.md, "hexa verify"): the code judge authored again
 * with the recorded answers (or the judge the folder stores), every recorded trajectory judged again, the picks
 * chosen again, and judgment.json compared byte for byte with the record; then the authored judge and its
 * authoring summary, where the folder keeps them. With a vision judge, each pick's frames are read back from the
 * folder and the vision judge and the synthesiser replayed from the log too (judgment-vision.ts). The policy is
 * never read (the episodes are the recorded trajectories): the policy's path is the record's.
 */
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import type { JudgmentReplay, JudgmentReplayRecord } from "../../../src/family/replay.ts";
import { CannotVerify, type Divergence } from "../../../src/verify/outcome.ts";
import { firstDifference } from "../../../src/verify/compare-values.ts";
import { type JudgeUsed, JudgmentFile, type PickedEpisode } from "../cli/judge-file.ts";
import { judgeForIntent } from "../cli/judge-author.ts";
import { judgmentText, judgeUsed, picksOf, type Scored, scoreRecord } from "../cli/judge-run.ts";
import { checkJudgeHash, Judge } from "../judging/judge.ts";
import type { RewardTask } from "../task.ts";
import { readTrajectoryFile } from "../trajectory/trajectory-file.ts";
import { boundedFolderFile, readJudgmentFolder } from "./judgment-folder.ts";
import { replayVision } from "./judgment-vision.ts";

const MAX_JUDGE_BYTES = 1 << 20;

const taskOf = async (f: JudgmentFile, where: string): Promise<RewardTask> => {
  const { listTasks, loadTask } = await import("../tasks/index.ts");
  if (!(listTasks() as readonly string[]).includes(f.task))
    throw new CannotVerify(`${where}: task: ${JSON.stringify(f.task.slice(0, 80))} is not a task of this hexa`);
  const task = await loadTask(f.task);
  await task.prepare?.();
  return task;
};

/** judges/<id>/v<version>.json as the folder keeps it, text and path; none when absent. */
const judgeFileName = (id: string, version: number): string => join("judges", id, `v${version}.json`);

/** The folder's stored judge (a judge the record found stored, not authored): bounded, parsed, its hash checked. */
const storedJudge = (dir: string, id: string, version: number, hash: string): Judge => {
  const name = judgeFileName(id, version);
  if (!existsSync(join(dir, name)))
    throw new CannotVerify(
      `${join(dir, "judgment.json")}: judge: code judge ${id} v${version}: its code is neither authored in llm-log.jsonl (the log asked no judge) nor kept in ${name}`,
    );
  let judge: Judge;
  try {
    const parsed = Judge.safeParse(JSON.parse(boundedFolderFile(dir, name, MAX_JUDGE_BYTES)));
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
    judge = checkJudgeHash(parsed.data, name);
  } catch (e) {
    throw e instanceof CannotVerify ? e : new CannotVerify(`${join(dir, name)}: ${(e as Error).message}`);
  }
  if (judge.hash !== hash) throw new CannotVerify(`${join(dir, name)}: hash: ${judge.hash} is not judgment.json's judge.hash ${hash}`);
  return judge;
};

interface ReplayedJudge {
  judge: Judge | null;
  /** The authoring's note, when the replay authored (or found) the judge through the judge model. */
  note?: string;
}

const replayedJudge = async (r: JudgmentReplayRecord, f: JudgmentFile, task: RewardTask, where: string): Promise<ReplayedJudge> => {
  if (f.judge.kind === "fitness") return { judge: null };
  if (f.intent === null) throw new CannotVerify(`${where}: intent: null, but a code judge needs its intent`);
  const model = r.model("judge");
  if (!model) return { judge: storedJudge(r.judgmentDir, f.judge.id, f.judge.version, f.judge.hash) };
  return judgeForIntent(task, f.intent, join(r.workDir, "judge-store"), async () => model);
};

/** Every recorded episode's trajectory, read from the folder (bounded, no link) and scored again. */
const rescored = async (dir: string, f: JudgmentFile, task: RewardTask, judge: Judge | null): Promise<Scored[]> => {
  const out: Scored[] = [];
  for (const [i, e] of f.episodes.entries()) {
    const path = join(dir, e.trajectory);
    if (!existsSync(path) || !lstatSync(path).isFile())
      throw new CannotVerify(`${path}: episodes[${i}].trajectory: missing or not a plain file; the episode cannot be judged again`);
    let record: ReturnType<typeof readTrajectoryFile>;
    try {
      record = readTrajectoryFile(path);
    } catch (e) {
      throw new CannotVerify(`episodes[${i}].trajectory: ${(e as Error).message}`);
    }
    out.push(await scoreRecord(task, judge, e.seed, record));
  }
  return out;
};

/** The picks chosen again, with the vision judge and the synthesiser replayed where the record has them; else the record's frames folders. */
const replayedPicks = async (r: JudgmentReplayRecord, f: JudgmentFile, used: JudgeUsed, scored: Scored[]): Promise<PickedEpisode[]> => {
  const picks = picksOf(used, scored);
  if (await replayVision(r, f, picks)) return picks;
  return picks.map((p) => {
    const recorded = f.picks.find((q) => q.pick === p.pick && q.seed === p.seed);
    return recorded?.frames === undefined ? p : { ...p, frames: recorded.frames };
  });
};

/** The judgment the replay makes, with what it cannot make (the policy's path, the rendering's notes) taken from the record. */
const replayedFile = async (r: JudgmentReplayRecord, f: JudgmentFile, task: RewardTask, j: ReplayedJudge, scored: Scored[]): Promise<JudgmentFile> => {
  const used = judgeUsed(task, j.judge);
  const picks = await replayedPicks(r, f, used, scored);
  const notes = j.note === undefined ? f.notes : [j.note, ...f.notes.slice(1)];
  return JudgmentFile.parse({
    ...f,
    intent: j.judge ? j.judge.intent : f.vision ? f.intent : null,
    judge: used,
    episodes: scored.map((s) => s.episode),
    picks,
    notes,
  });
};

/** A recorded file of the folder against the replay's, by their JSON: the first field that differs. */
const compareFile = (what: string, recorded: string, replayed: string): Divergence | undefined => {
  if (recorded === replayed) return undefined;
  let d: ReturnType<typeof firstDifference>;
  try {
    d = firstDifference(JSON.parse(recorded), JSON.parse(replayed));
  } catch {
    d = undefined;
  }
  return { what, ...(d ?? { field: "(bytes)", recorded: `${recorded.length} characters`, replayed: `${replayed.length} characters, the same values` }) };
};

/** The authored judge and its authoring summary, where the folder keeps them (the judge store was the folder). */
const compareAuthored = (dir: string, store: string, judge: Judge): Divergence | undefined => {
  for (const name of [judgeFileName(judge.id, judge.version), join("judges", judge.id, `v${judge.version}.authoring.json`)]) {
    if (!existsSync(join(dir, name))) continue;
    if (!existsSync(join(store, name))) return { what: name, field: "(file)", recorded: "kept in the folder", replayed: "(not written by the replay)" };
    const d = compareFile(name, boundedFolderFile(dir, name, MAX_JUDGE_BYTES), boundedFolderFile(store, name, MAX_JUDGE_BYTES));
    if (d) return d;
  }
  return undefined;
};

/** Replays one judgment folder; throws CannotVerify naming the field for a folder it cannot replay. */
export async function replayJudgment(r: JudgmentReplayRecord): Promise<JudgmentReplay> {
  const { text, file } = readJudgmentFolder(r.judgmentDir);
  const where = join(r.judgmentDir, "judgment.json");
  const task = await taskOf(file, where);
  const judge = await replayedJudge(r, file, task, where);
  const scored = await rescored(r.judgmentDir, file, task, judge.judge);
  const replayed = await replayedFile(r, file, task, judge, scored);
  const divergence =
    compareFile("judgment.json", text, judgmentText(replayed)) ??
    (judge.note !== undefined && judge.judge ? compareAuthored(r.judgmentDir, join(r.workDir, "judge-store"), judge.judge) : undefined);
  return { episodes: scored.length, ...(divergence ? { divergence } : {}) };
}
