/**
 * Judges and their judgments on disk, under a folder the caller gives (docs/guides/judging.md, "Versioned
 * judges"): `judges/<id>/v<version>.json` and `judgments/<trajectory>/<judge id>@v<version>.json`. Files are
 * written atomically and parsed on read; a stored judge version is never overwritten with other content, and
 * judging again with a new version writes a new file beside the old judgment, which stays as it was.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { ConfigError, ModelOutputError } from "../../../src/errors.ts";
import { writeAtomic } from "../../../src/util/write-atomic.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { checkJudgeHash, Judge, judgeTrajectory, PlainName } from "./judge.ts";
import type { JudgeLimits } from "../sandbox/judge-sandbox.ts";
import { Judgment } from "./judgment.ts";

const MAX_FILE_BYTES = 4 << 20;

const name = (what: string, v: string): string => {
  const r = PlainName.safeParse(v);
  if (!r.success) throw new ConfigError(`${what}: ${JSON.stringify(v)} ${r.error.issues[0]!.message}`);
  return v;
};

const judgePath = (dir: string, id: string, version: number) => join(dir, "judges", name("judge.id", id), `v${version}.json`);
const judgmentPath = (dir: string, trajectory: string, id: string, version: number) =>
  join(dir, "judgments", name("trajectory", trajectory), `${name("judge.id", id)}@v${version}.json`);

const write = (path: string, value: unknown) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
};

function read<T>(path: string, schema: z.ZodType<T>): T {
  if (!existsSync(path)) throw new ConfigError(`${path}: no such file`);
  const size = statSync(path).size;
  if (size > MAX_FILE_BYTES) throw new ConfigError(`${path}: ${size} bytes, more than ${MAX_FILE_BYTES}; not a judge file`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: not JSON (${(e as Error).message})`);
  }
  const r = schema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ConfigError(`${path}: ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  return r.data;
}

/** Store a judge version; the same version with other content is refused (make a new version). */
export function saveJudge(dir: string, judge: Judge): string {
  const path = judgePath(dir, judge.id, judge.version);
  checkJudgeHash(Judge.parse(judge), `judge ${judge.id} v${judge.version}`);
  if (existsSync(path)) {
    const old = loadJudge(dir, judge.id, judge.version);
    if (old.hash !== judge.hash)
      throw new ConfigError(`${path}: judge ${judge.id} v${judge.version} is already stored with another hash; revise it to a new version`);
    return path;
  }
  write(path, judge);
  return path;
}

/** Read a judge version back, checked: schema, and the hash against its content. */
export function loadJudge(dir: string, id: string, version: number): Judge {
  const path = judgePath(dir, id, version);
  const j = read(path, Judge);
  if (j.id !== id || j.version !== version) throw new ConfigError(`${path}: holds judge ${j.id} v${j.version}, not ${id} v${version}`);
  try {
    return checkJudgeHash(j, path);
  } catch (e) {
    throw e instanceof ModelOutputError ? new ConfigError(e.message) : e;
  }
}

export function saveJudgment(dir: string, j: Judgment): string {
  const path = judgmentPath(dir, j.trajectory, j.judge.id, j.judge.version);
  write(path, Judgment.parse(j));
  return path;
}

export const loadJudgment = (dir: string, trajectory: string, judgeId: string, version: number): Judgment =>
  read(judgmentPath(dir, trajectory, judgeId, version), Judgment);

/** Judge stored episodes with a judge (stored first) and store each judgment; older versions' files are untouched. */
export async function rescore(
  dir: string,
  judge: Judge,
  episodes: readonly { trajectory: string; record: TrajectoryRecord }[],
  limits?: Partial<JudgeLimits>,
): Promise<Judgment[]> {
  saveJudge(dir, judge);
  const out: Judgment[] = [];
  for (const e of episodes) {
    const j = await judgeTrajectory(judge, e.trajectory, e.record, limits);
    saveJudgment(dir, j);
    out.push(j);
  }
  return out;
}
