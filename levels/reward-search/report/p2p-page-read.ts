/**
 * What `hexa inspect` reads of a p2p search directory (docs/security.md: a stranger's folder): search.json,
 * plans.jsonl, iterations.jsonl, bank-events.jsonl and the training files under `trainings/`, each a plain file
 * of the folder (no link followed) under a size bound and read through its schema; names are the ones the p2p
 * log writes, never one a record chooses. A judged checkpoint's `hexa judge` folder is read where it is there
 * (judgment-page-read.ts, its frames from one budget for the page). A live search may be writing: a torn last
 * line is left out with a notice; a damaged record is refused naming the file, line and field.
 */
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { lessonViews, type LessonView } from "../../../src/report/inspect/bank-view.ts";
import { SearchHeader } from "../../../src/search/candidates.ts";
import { IterationRecord, PlanRecord, TrainingRecord } from "../../../src/search/p2p-log.ts";
import { BankEvent } from "../../../src/store/bank.ts";
import { parseJsonLine } from "../../../src/store/jsonl.ts";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import type { FrameBudget } from "../pictures/frame-files.ts";
import { boundedFolderFile } from "../verify/judgment-folder.ts";
import { MAX_PAGE_FRAME_BYTES, readJudgmentPage } from "./judgment-page-read.ts";
import type { JudgmentPageInput } from "./judgment-page.ts";
import { checkpointJudgmentName, JUDGMENTS_FOLDER } from "../search/p2p-judgment-folder.ts";

/** The largest search.json read (a header is well under 1 KiB). */
const MAX_HEADER_BYTES = 64 << 10;
/** The largest lineage file read (200 iterations of 20 KiB reward code are 4 MiB). */
const MAX_LINEAGE_BYTES = 32 << 20;
/** The largest training file read (one training's checkpoints and feedback are a few KiB). */
const MAX_TRAINING_BYTES = 1 << 20;
/** Training files read at most (200 iterations × 8 configurations × 8 seeds, the config's caps, is 12,800). */
const MAX_TRAININGS = 12_800;

const TRAINING_NAME = /^it(\d{1,4})-c(\d{1,2})-s(\d{1,10})\.json$/;

/** One checkpoint's judgment, as the judgment page shows it. */
interface CheckpointJudgment {
  config: number;
  seed: number;
  step: number;
  page: JudgmentPageInput;
}

/** One iteration: its plan, its record once its trainings are judged, the trainings written so far and their judgments. */
export interface IterationPage {
  plan: PlanRecord;
  record?: IterationRecord;
  trainings: TrainingRecord[];
  judgments: CheckpointJudgment[];
}

export interface P2pPageInput {
  /** The folder, as the user named it. */
  dir: string;
  header: SearchHeader;
  /** The score at which a checkpoint counts as a success: search.json's passThreshold (an intent's passAt), else the fitness judge's 1. */
  passAt: number;
  iterations: IterationPage[];
  lessons: LessonView[];
  /** What was left out and why (a torn line, a refused file). */
  notices: string[];
}

const plainFolder = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

const refused = (e: unknown): never => {
  throw e instanceof CannotVerify ? new ConfigError(e.message) : e;
};

const readHeader = (dir: string): SearchHeader => {
  let text = "";
  try {
    text = boundedFolderFile(dir, "search.json", MAX_HEADER_BYTES);
  } catch (e) {
    refused(e);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${join(dir, "search.json")}: not JSON (${(e as Error).message})`);
  }
  const parsed = SearchHeader.safeParse(raw);
  if (!parsed.success)
    throw new ConfigError(`${join(dir, "search.json")}: ${parsed.error.issues[0]!.path.join(".") || "(root)"}: ${parsed.error.issues[0]!.message}`);
  if (parsed.data.strategy !== "p2p") throw new ConfigError(`${join(dir, "search.json")}: strategy: ${parsed.data.strategy}, not p2p`);
  return parsed.data;
};

/** A lineage file: absent is empty; a link, a folder or one over the bound is refused; a torn last line is left out with a notice. */
const lineageFile = <S extends z.ZodType>(dir: string, name: string, schema: S, notices: string[]): z.infer<S>[] => {
  const path = join(dir, name);
  if (!existsSync(path) && !lstatSync(path, { throwIfNoEntry: false })) return [];
  let text = "";
  try {
    text = boundedFolderFile(dir, name, MAX_LINEAGE_BYTES);
  } catch (e) {
    refused(e);
  }
  const lines = text.split("\n");
  if (lines.at(-1) !== "") notices.push(`${name}: the last line is incomplete (being written, or cut by a crash); it is left out`);
  return lines.slice(0, -1).flatMap((line, i) => (line.trim() === "" ? [] : [parseJsonLine(path, i + 1, line, schema)]));
};

/** The training files under trainings/ by iteration; a refused file is a notice (its iteration's table is not shown). */
const readTrainings = (dir: string, notices: string[]): Map<number, TrainingRecord[]> => {
  const out = new Map<number, TrainingRecord[]>();
  const folder = join(dir, "trainings");
  if (!existsSync(folder)) return out;
  if (!plainFolder(folder)) {
    notices.push("trainings: not a plain folder (a link?); no training is shown");
    return out;
  }
  const names = readdirSync(folder).filter((f) => TRAINING_NAME.test(f));
  if (names.length > MAX_TRAININGS) notices.push(`trainings: ${names.length} files; the first ${MAX_TRAININGS} are read`);
  for (const name of names.sort().slice(0, MAX_TRAININGS)) {
    const [, i, c, s] = TRAINING_NAME.exec(name)!.map(Number);
    try {
      const parsed = TrainingRecord.safeParse(JSON.parse(boundedFolderFile(folder, name, MAX_TRAINING_BYTES, `trainings/${name}`)));
      if (!parsed.success) throw new CannotVerify(`trainings/${name}: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
      const t = parsed.data;
      if (t.iteration !== i || t.config !== c || t.seed !== s)
        throw new CannotVerify(`trainings/${name}: holds iteration ${t.iteration} config ${t.config} seed ${t.seed}`);
      out.set(t.iteration, [...(out.get(t.iteration) ?? []), t]);
    } catch (e) {
      notices.push(`${(e as Error).message.replace(`${join(folder, name)}: `, "")}; left out`);
    }
  }
  for (const ts of out.values()) ts.sort((a, b) => a.config - b.config || a.seed - b.seed);
  return out;
};

/** The judgment folders of an iteration's checkpoints that are there; one that fails its checks is a notice. */
const readJudgments = (dir: string, trainings: readonly TrainingRecord[], budget: FrameBudget, notices: string[]): CheckpointJudgment[] => {
  if (!plainFolder(join(dir, JUDGMENTS_FOLDER))) return [];
  return trainings.flatMap((t) =>
    t.judged.flatMap((cp) => {
      const name = checkpointJudgmentName(t.iteration, t.config, t.seed, cp.step);
      const folder = join(dir, name);
      if (!existsSync(folder)) return [];
      if (!plainFolder(folder)) {
        notices.push(`${name}: not a plain folder (a link?); its judgment is not shown`);
        return [];
      }
      try {
        return [{ config: t.config, seed: t.seed, step: cp.step, page: readJudgmentPage(folder, budget) }];
      } catch (e) {
        notices.push(`${name}: ${(e as Error).message}; its judgment is not shown`);
        return [];
      }
    }),
  );
};

const lessonsOf = (events: readonly BankEvent[], task: string, notices: string[]): LessonView[] => {
  try {
    return lessonViews(task, events);
  } catch (e) {
    notices.push(`bank-events.jsonl: ${(e as Error).message}; no lesson is shown`);
    return [];
  }
};

/** The search's pass threshold: the config's passThreshold, an intent search's passAt, else the fitness judge's 1. */
const passAtOf = (header: SearchHeader): number => {
  const p = header.options.passThreshold ?? header.options.passAt;
  return typeof p === "number" && p >= 0 && p <= 1 ? p : 1;
};

/** The page's input for a p2p search directory; refuses one whose header or lineage fails its checks, naming the file and field. */
export const readP2pPage = (dir: string): P2pPageInput => {
  const header = readHeader(dir);
  const notices: string[] = [];
  const plans = lineageFile(dir, "plans.jsonl", PlanRecord, notices);
  const records = lineageFile(dir, "iterations.jsonl", IterationRecord, notices);
  plans.forEach((p, i) => {
    if (p.iteration !== i) throw new ConfigError(`${join(dir, "plans.jsonl")}:${i + 1}: iteration: ${p.iteration}, expected ${i}`);
    if (p.parent !== null && p.parent >= i) throw new ConfigError(`${join(dir, "plans.jsonl")}:${i + 1}: parent: ${p.parent}, not an earlier iteration`);
  });
  records.forEach((r, i) => {
    if (r.iteration !== i || i >= plans.length)
      throw new ConfigError(`${join(dir, "iterations.jsonl")}:${i + 1}: iteration: ${r.iteration}, no plan ${i} matches it`);
  });
  const trainings = readTrainings(dir, notices);
  const budget: FrameBudget = { left: MAX_PAGE_FRAME_BYTES };
  const iterations = plans.map((plan, i) => {
    const ts = trainings.get(i) ?? [];
    return { plan, ...(records[i] ? { record: records[i] } : {}), trainings: ts, judgments: readJudgments(dir, ts, budget, notices) };
  });
  const events = lineageFile(dir, "bank-events.jsonl", BankEvent, notices);
  return { dir, header, passAt: passAtOf(header), iterations, lessons: lessonsOf(events, header.task, notices), notices };
};
