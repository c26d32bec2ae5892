import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { canonicalJson } from "../../../src/util/canonical-json.ts";
import { ErrorKind, ResultMessage, RewardFault } from "./protocol.ts";
import type { JobOutcome, TrainJob } from "./client.ts";

/**
 * Training results on disk, keyed by everything that decides them: (task, instance, normalised reward code,
 * seed, evaluation seeds, steps, PPO overrides, trainer name + version). A repeated candidate costs nothing and
 * a resumed run re-runs no finished training. Results are keyed by the normalised code (comments and layout do
 * not matter); reward-code faults by the exact code, since their line numbers depend on it.
 */

const CACHE_SCHEMA_VERSION = 1;

/**
 * Reward code without comments and with whitespace runs collapsed: a run with a newline becomes one newline
 * (automatic semicolon insertion depends on it), any other run one space, and none is kept where a
 * punctuation mark stands on either side unless both sides are operator characters (`a - -b` ≠ `a--b`).
 * Strings and template literals are kept as they are. A regex literal containing `//` or quotes may be
 * normalised imperfectly; that only costs a cache miss, never a wrong hit, because only whitespace and
 * comments are ever removed.
 */
export const normaliseRewardCode = (code: string): string => {
  const out: string[] = [];
  let pendingWs: "" | " " | "\n" = "";
  const word = /[A-Za-z0-9_$\u0080-\uffff]/;
  const op = /[+\-*/%=<>!&|^~?:.]/;
  const flushWs = (next: string) => {
    if (!pendingWs) return;
    const prev = out.length ? out[out.length - 1]!.slice(-1) : "";
    if (prev && (pendingWs === "\n" || (word.test(prev) && word.test(next)) || (op.test(prev) && op.test(next)))) out.push(pendingWs);
    pendingWs = "";
  };
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === "/" && code[i + 1] === "/") {
      while (i < code.length && code[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      const body = code.slice(i, end < 0 ? code.length : end + 2);
      if (body.includes("\n")) pendingWs = "\n";
      else if (!pendingWs) pendingWs = " ";
      i += body.length;
      continue;
    }
    if (/\s/.test(c)) {
      if (c === "\n") pendingWs = "\n";
      else if (!pendingWs) pendingWs = " ";
      i++;
      continue;
    }
    flushWs(c);
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === "\\" ? 2 : 1;
      out.push(code.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    out.push(c);
    i++;
  }
  return out.join("").trim();
};

export interface TrainerIdentity {
  name: string;
  version: string;
}

/** The cache key of a job's result (normalised code) and of its reward-code fault (exact code). */
export const trainCacheKeys = (job: TrainJob, trainer: TrainerIdentity): { result: string; fault: string } => {
  const base = { task: job.task, instance: job.instance, seed: job.seed, evalSeeds: job.evalSeeds, steps: job.steps, ppo: job.ppo ?? {}, trainer };
  const hash = (v: unknown) => createHash("sha256").update(canonicalJson(v)).digest("hex");
  return { result: hash({ ...base, reward: normaliseRewardCode(job.reward) }), fault: hash({ ...base, exactReward: job.reward }) };
};

const CachedOutcome = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("result"), result: ResultMessage.omit({ type: true, id: true }) }),
  z.object({ kind: z.literal("error"), error: z.object({ kind: ErrorKind, message: z.string(), fault: RewardFault.optional() }) }),
]);

const CacheEntry = z.object({
  schemaVersion: z.literal(CACHE_SCHEMA_VERSION),
  key: z.string(),
  trainer: z.object({ name: z.string(), version: z.string() }),
  task: z.string(),
  storedAt: z.string(),
  outcome: CachedOutcome,
});

/** Which outcomes are worth keeping: results, and faults of the reward code (deterministic); never cancels or budget stops. */
const cacheable = (o: JobOutcome): boolean => o.kind === "result" || o.error.kind === "reward_code";

export class TrainCache {
  /** The folder is made by the first put: a pool built only to be asked about (a run id, a forecast) writes nothing. */
  constructor(readonly dir: string) {}

  private path(key: string) {
    return join(this.dir, `${key}.json`);
  }

  private read(key: string): JobOutcome | undefined {
    const path = this.path(key);
    if (!existsSync(path)) return undefined;
    try {
      const entry = CacheEntry.parse(JSON.parse(readFileSync(path, "utf8")));
      return entry.key === key ? (entry.outcome as JobOutcome) : undefined;
    } catch {
      return undefined; // a damaged entry is a miss; the next put replaces it
    }
  }

  get(job: TrainJob, trainer: TrainerIdentity): JobOutcome | undefined {
    const keys = trainCacheKeys(job, trainer);
    return this.read(keys.result) ?? this.read(keys.fault);
  }

  /** Stores the outcome if it is cacheable; returns whether it did. */
  put(job: TrainJob, trainer: TrainerIdentity, outcome: JobOutcome, now: Date = new Date()): boolean {
    if (!cacheable(outcome)) return false;
    const keys = trainCacheKeys(job, trainer);
    const key = outcome.kind === "result" ? keys.result : keys.fault;
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(this.path(key), { schemaVersion: CACHE_SCHEMA_VERSION, key, trainer, task: job.task, storedAt: now.toISOString(), outcome });
    return true;
  }
}
