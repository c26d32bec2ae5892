/**
 * A `hexa judge` folder read as a stranger's (docs/security.md): judgment.json bounded and checked against its
 * schema, and every name in it that chooses a file held to the one hexa judge writes, so no field of the record
 * picks a path. Refusals name the field. Shared by `hexa verify` and `hexa inspect` of a judgment.
 */
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { JudgmentFile } from "../cli/judge-file.ts";
import { trajectoryName } from "../cli/judge-run.ts";
import { PlainName } from "../judging/judge.ts";

const JUDGMENT_FILE = "judgment.json";
/** The largest judgment.json read (100 episodes with three picks' judgments are well under 1 MiB). */
export const MAX_JUDGMENT_BYTES = 8 << 20;

/** A plain file of the folder (no link, no folder), at most `max` bytes, as text; `field` names it in a refusal. */
export const boundedFolderFile = (dir: string, name: string, max: number, field = name): string => {
  const path = join(dir, name);
  if (!existsSync(path)) throw new CannotVerify(`${path}: ${field}: missing`);
  const st = lstatSync(path);
  if (!st.isFile()) throw new CannotVerify(`${path}: ${field}: not a plain file (a link or a folder); only the folder's own files are read`);
  if (st.size > max) throw new CannotVerify(`${path}: ${field}: ${st.size} bytes, more than ${max}`);
  return readFileSync(path, "utf8");
};

/** The frames folder hexa judge names for a pick: `frames/<seed>`. */
export const framesName = (seed: number): string => `frames/${seed}`;

/** The names in a parsed record that choose files, each held to what hexa judge writes. */
const checkNames = (f: JudgmentFile, where: string): void => {
  f.episodes.forEach((e, i) => {
    if (e.trajectory !== trajectoryName(e.seed))
      throw new CannotVerify(`${where}: episodes[${i}].trajectory: ${JSON.stringify(e.trajectory.slice(0, 200))} is not ${trajectoryName(e.seed)}`);
  });
  f.picks.forEach((p, i) => {
    if (p.frames !== undefined && p.frames !== framesName(p.seed))
      throw new CannotVerify(`${where}: picks[${i}].frames: ${JSON.stringify(p.frames.slice(0, 200))} is not ${framesName(p.seed)}`);
    if (!f.episodes.some((e) => e.seed === p.seed)) throw new CannotVerify(`${where}: picks[${i}].seed: ${p.seed} is no episode's seed`);
  });
  if (f.judge.kind === "code" && !PlainName.safeParse(f.judge.id).success)
    throw new CannotVerify(`${where}: judge.id: ${JSON.stringify(f.judge.id.slice(0, 200))} is not a plain name`);
};

/** judgment.json of a folder: its bytes and its checked content. */
export const readJudgmentFolder = (dir: string): { text: string; file: JudgmentFile } => {
  const where = join(dir, JUDGMENT_FILE);
  const text = boundedFolderFile(dir, JUDGMENT_FILE, MAX_JUDGMENT_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new CannotVerify(`${where}: not JSON (${(e as Error).message})`);
  }
  const parsed = JudgmentFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CannotVerify(`${where}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  checkNames(parsed.data, where);
  return { text, file: parsed.data };
};
