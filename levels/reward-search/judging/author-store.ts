/**
 * Authored judges in the judge store (judge-store.ts; docs/guides/judging.md, "Authoring a code judge"): a judge
 * authored for an intent on a task has an id made of both, so it is found again; a new authoring becomes the next
 * version of that id, and the authoring's summary is kept beside the version as
 * `judges/<id>/v<version>.authoring.json`.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";
import { type Judge, PlainName } from "./judge.ts";
import { loadJudge } from "./judge-store.ts";

/** The id of the judge authored for `intent` on `task`: the task and a hash of the intent. */
export const authoredJudgeId = (task: string, intent: string): string => PlainName.parse(`${task}-intent-${sha256Hex(intent).slice(0, 16)}`);

const VERSION_FILE = /^v([1-9]\d{0,8})\.json$/;

/** The highest stored version of judge `id`, or null when none is stored. */
export const latestJudgeVersion = (dir: string, id: string): number | null => {
  const folder = join(dir, "judges", PlainName.parse(id));
  if (!existsSync(folder)) return null;
  const versions = readdirSync(folder).flatMap((f) => {
    const m = VERSION_FILE.exec(f);
    return m ? [Number(m[1])] : [];
  });
  return versions.length ? Math.max(...versions) : null;
};

/** The latest stored version of the judge authored for this intent on this task whose intent is exactly it, or null. */
export const storedJudgeFor = (dir: string, task: string, intent: string): Judge | null => {
  const id = authoredJudgeId(task, intent);
  const version = latestJudgeVersion(dir, id);
  if (version === null) return null;
  const judge = loadJudge(dir, id, version);
  return judge.intent === intent ? judge : null;
};

const Rounds = z.strictObject({ rounds: z.number().int().min(0), cap: z.number().int().min(0), stopped: z.string(), notes: z.array(z.string()) });

/** What an authoring did, kept beside the judge version it made. */
export const AuthoringSummary = z.strictObject({
  schemaVersion: z.literal(1),
  intent: z.string(),
  task: z.string(),
  model: z.string(),
  /** `authored judge <id> v<n>` or `authoring failed at <stage>: …`. */
  label: z.string(),
  judge: z.strictObject({ id: z.string(), version: z.number().int().min(1), hash: z.string() }).nullable(),
  sample: z.strictObject({ task: z.string(), seed: z.number().int(), steps: z.number().int() }).nullable(),
  review: Rounds,
  implement: Rounds,
  loophole: Rounds,
  calls: z.array(z.strictObject({ step: z.string(), problem: z.string().optional(), input: z.number(), output: z.number() })),
  /** The user's corrections the authoring took into account (a p2p search's); absent: none. */
  corrections: z.string().min(1).optional(),
});
export type AuthoringSummary = z.infer<typeof AuthoringSummary>;

/** Write an authoring's summary beside the judge version it made. */
export const saveAuthoringSummary = (dir: string, judge: Judge, summary: AuthoringSummary): string => {
  const path = join(dir, "judges", PlainName.parse(judge.id), `v${judge.version}.authoring.json`);
  mkdirSync(join(path, ".."), { recursive: true });
  writeAtomic(path, `${JSON.stringify(AuthoringSummary.parse(summary), null, 2)}\n`);
  return path;
};
