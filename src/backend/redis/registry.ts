import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { z } from "zod";
import type { RedisConnection } from "./connection.ts";
import { queueName } from "./jobs.ts";

/** The hash every worker beats into: field = worker name, value = a WorkerBeat as JSON. */
export const WORKERS_KEY = "hexa:workers";
export const HEARTBEAT_MS = 1000;
/** A worker silent this long is shown as lost (killed, or cut off from Redis); an hour: dropped. */
const LOST_MS = 10_000;
const DROP_MS = 3600_000;

export const WorkerBeat = z.object({
  name: z.string(),
  host: z.string(),
  pid: z.number().int(),
  queues: z.array(z.string()),
  concurrency: z.number().int(),
  startedAt: z.number(),
  at: z.number(),
  completed: z.number().int(),
  failed: z.number().int(),
  /** Jobs finished in the last 60 s. */
  lastMinute: z.number().int(),
  active: z.array(z.object({ id: z.string(), queue: z.string(), since: z.number() })),
});
export type WorkerBeat = z.infer<typeof WorkerBeat>;

export interface WorkersView {
  workers: (WorkerBeat & { lost: boolean })[];
  /** Jobs waiting per queue (not yet taken by a worker). */
  waiting: Record<string, number>;
  /** Fields of the hash whose value is not a worker beat (written by hand, another program, another hexa). */
  skipped: { field: string; why: string }[];
}

/** A hash value as a beat, or why it is not one: anyone who can write to the Redis can write there. */
const beatOf = (value: string): WorkerBeat | string => {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return "not JSON";
  }
  const beat = WorkerBeat.safeParse(raw);
  if (beat.success) return beat.data;
  const issue = beat.error.issues[0]!;
  return `${issue.path.join(".") || "the value"}: ${issue.message}`;
};

/** The workers beating into Redis and the jobs waiting in each queue of `kinds`, as `hexa workers` shows them. */
export const readWorkers = async (connection: RedisConnection, now: number, kinds: readonly string[]): Promise<WorkersView> => {
  const r = new Redis({ ...connection, maxRetriesPerRequest: 1, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    const workers: WorkerBeat[] = [];
    const skipped: WorkersView["skipped"] = [];
    for (const [field, value] of Object.entries(await r.hgetall(WORKERS_KEY))) {
      const beat = beatOf(value);
      if (typeof beat === "string") skipped.push({ field, why: beat });
      else workers.push(beat);
    }
    const drop = workers.filter((w) => now - w.at > DROP_MS).map((w) => w.name);
    if (drop.length) await r.hdel(WORKERS_KEY, ...drop);
    const waiting: Record<string, number> = {};
    for (const kind of kinds) {
      const q = new Queue(queueName(kind), { connection: r });
      const c = await q.getJobCounts("waiting", "prioritized", "delayed");
      waiting[kind] = (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0);
      await q.close();
    }
    return {
      workers: workers
        .filter((w) => !drop.includes(w.name))
        .map((w) => ({ ...w, lost: now - w.at > LOST_MS }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      waiting,
      skipped,
    };
  } finally {
    r.disconnect();
  }
};
