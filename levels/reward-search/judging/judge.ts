/**
 * A versioned code judge: `{ id, version, intent, tree, code, hash }` (docs/guides/judging.md, "Versioned
 * judges"). The hash covers intent, tree and code, so a judgment names exactly what judged it; a revision is a
 * new version with a new hash, and the judgments of the old one stay as they were (judge-store.ts).
 */
import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { CriteriaTree } from "./criteria.ts";
import { type JudgeLimits, runJudgeCode } from "../sandbox/judge-sandbox.ts";
import { Judgment } from "./judgment.ts";
import { scoreTree } from "./tree-score.ts";

/** A name that is safe as one path segment: judges and trajectories are stored under it. */
export const PlainName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, "must be letters, digits, _, . or - (starting with a letter or digit), at most 100")
  .refine((s) => !s.includes(".."), "must not contain ..");

const MAX_CODE = 256 * 1024;

export const Judge = z.strictObject({
  schemaVersion: z.literal(1),
  id: PlainName,
  version: z.number().int().min(1),
  intent: z.string().min(1).max(4000),
  tree: CriteriaTree,
  code: z.string().min(1).max(MAX_CODE),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type Judge = z.infer<typeof Judge>;

type JudgeContent = Pick<Judge, "intent" | "tree" | "code">;

const hashOf = (c: JudgeContent): string => sha256Hex({ intent: c.intent, tree: c.tree, code: c.code });

/** Version 1 of a judge. */
export const makeJudge = (id: string, content: JudgeContent): Judge => Judge.parse({ schemaVersion: 1, id, version: 1, ...content, hash: hashOf(content) });

/** The next version of a judge with some of its parts replaced; the judge given is not changed. */
export const reviseJudge = (prev: Judge, change: Partial<JudgeContent>): Judge => {
  const content = { intent: change.intent ?? prev.intent, tree: change.tree ?? prev.tree, code: change.code ?? prev.code };
  return Judge.parse({ ...prev, ...content, version: prev.version + 1, hash: hashOf(content) });
};

/** A judge whose hash does not match its content was edited after it was made: refused, naming the field. */
export const checkJudgeHash = (j: Judge, where: string): Judge => {
  const want = hashOf(j);
  if (j.hash !== want)
    throw new ModelOutputError(
      `${where}: hash ${j.hash.slice(0, 12)}… does not match the judge's intent, tree and code (${want.slice(0, 12)}…); make a new version instead of editing one`,
    );
  return j;
};

/** Judge one recorded episode: run the code in the sandbox, score the tree. A fault scores 0 with its tag. */
export async function judgeTrajectory(judge: Judge, trajectory: string, record: TrajectoryRecord, limits?: Partial<JudgeLimits>): Promise<Judgment> {
  const run = await runJudgeCode(judge.code, record, limits);
  const s = run.ok ? scoreTree(judge.tree, run.results) : scoreTree(judge.tree, [], { fault: run.fault });
  return Judgment.parse({
    schemaVersion: 1,
    judge: { id: judge.id, version: judge.version, hash: judge.hash },
    trajectory,
    score: s.score,
    sum: s.sum,
    order: s.order,
    ...(run.ok ? {} : { fault: run.fault }),
    rules: s.rules,
    nodes: s.nodes,
    extras: s.extras,
  });
}
