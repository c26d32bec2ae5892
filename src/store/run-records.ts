import { z } from "zod";
import { RewardCategory, Trajectory } from "./trajectory.ts";

import { UsageRecord } from "../llm/accounting.ts";
import { BankEvent, Mistake, Skill } from "./bank.ts";
import { Lesson, LESSONS_MAX } from "./lesson.ts";

/** What a run directory holds, line by line (docs/spec/style.md §14: versioned, parsed on read). */

export const RUN_MARK = "hexa-run";

/** Which hexa wrote something: the git commit when hexa runs from a checkout, else the package version. */
export const CodeVersion = z.object({ version: z.string(), commit: z.string().nullable() });
export type CodeVersion = z.infer<typeof CodeVersion>;

export const RunMeta = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal(RUN_MARK),
  id: z.string().describe("equals the directory's name, so a run.json copied into another run is refused"),
  createdAt: z.string(),
  /** Absent in runs made before hexa recorded them (accepted on resume, with a note). */
  configHash: z.string().optional().describe("sha256 of config.yaml's data (the resolved config as written): a resume with an edited config is refused"),
  config: z.unknown().optional().describe("that data, to name the keys an edit changed"),
  code: CodeVersion.optional().describe("the hexa that created the run"),
});
export type RunMeta = z.infer<typeof RunMeta>;

/** stopped.json: the run stopped before its end and resumes from there (written by the spend cap). */
export const StopRecord = z.object({
  schemaVersion: z.literal(1),
  reason: z.literal("budget"),
  at: z.string(),
  message: z.string(),
  spent: z.object({ usd: z.number(), tokens: z.number().int(), calls: z.number().int() }),
  cap: z.object({ usd: z.number().optional(), tokens: z.number().int().optional() }),
});
export type StopRecord = z.infer<typeof StopRecord>;

/** writers.jsonl: one line per process that wrote to the run, so a run made by several hexa versions says so. */
export const WriterLine = z.object({
  schemaVersion: z.literal(1),
  at: z.string(),
  pid: z.number().int(),
  command: z.string(),
  code: CodeVersion,
  middleware: z
    .array(z.string())
    .optional()
    .describe("the user's langchain middleware this process ran in the actor's episodes (HEXA_MIDDLEWARE): each one's name and module file name"),
});
export type WriterLine = z.infer<typeof WriterLine>;

/** A model server quirk hexa handled or could not, as it told the user (once per model and process). */
export const NoticeLine = z.object({
  schemaVersion: z.literal(1),
  at: z.string(),
  message: z.string().describe("`llm.<role>: <what>; <fix>` (src/llm/answer-read.ts)"),
});
export type NoticeLine = z.infer<typeof NoticeLine>;

export const Phase = z.enum(["offline", "stream", "eval"]);
export type Phase = z.infer<typeof Phase>;

/** One finished episode: the trajectory with its r(τ) and category, and the bank entries it was shown. */
export const EpisodeRecord = z.object({
  schemaVersion: z.literal(1),
  id: z.string().describe("<phase>/<level>/r<round>/s<seed>: the evolver cites this id"),
  phase: Phase,
  level: z.string(),
  round: z.number().int().min(0),
  seed: z.number().int(),
  r: z.number(),
  category: RewardCategory,
  /** The round whose bank (banks/round-NN.json) the episode played with; null for offline episodes, which play with none. */
  bankRound: z.number().int().min(0).nullable(),
  retrieved: z.array(z.string()),
  trajectory: Trajectory,
});
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

/**
 * bank-events.jsonl: the events of one update, then its commit line. Events after the last commit belong to
 * an update cut short by a crash and are dropped on resume, which redoes that update.
 */
export const BankLogLine = z.union([
  z.strictObject({ level: z.string(), event: BankEvent }),
  z.strictObject({ level: z.string(), commit: z.object({ round: z.number().int().min(0), events: z.number().int().min(0), ms: z.number().min(0) }) }),
]);
export type BankLogLine = z.infer<typeof BankLogLine>;

/** Where a model call was made: an episode's phase, or `search` for a family's whole search (reward search's eureka / rf-agent). */
export const UsagePhase = z.enum([...Phase.options, "search"]);
export type UsagePhase = z.infer<typeof UsagePhase>;

/** usage.jsonl: one line per model call, with where in the run it was made. */
export const UsageLine = UsageRecord.extend({
  schemaVersion: z.literal(1),
  phase: UsagePhase,
  level: z.string(),
  round: z.number().int().min(0),
  seed: z.number().int().optional().describe("the episode's seed (a search: its instance's seed); absent for evolver calls"),
  candidate: z.number().int().min(0).optional().describe("phase search: the candidate the call proposed, self-evaluated or aligned"),
});
export type UsageLine = z.infer<typeof UsageLine>;

/** A level's bank as a file holds it; `lessons` only where the bank has any (docs/spec/method.md §3.1). */
export const BankData = z.object({ skills: z.array(Skill), mistakes: z.array(Mistake), lessons: z.array(Lesson).max(LESSONS_MAX).optional() });

/** banks/round-NN.json: every level's bank after round NN's update (NN = 00: the initial bank). */
export const BankSnapshot = z.object({
  schemaVersion: z.literal(1),
  round: z.number().int().min(0),
  banks: z.record(z.string(), BankData),
});
export type BankSnapshot = z.infer<typeof BankSnapshot>;
