import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { signJob } from "../../src/backend/redis/job-signature.ts";
import { ROOT, spawnHexa } from "./hexa-cli.ts";
import { jobOutcome } from "./job-outcome.ts";

/** The hexa version a job must carry to be taken by this checkout's worker. */
export const hexaVersion = { version: (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version, commit: null };

export interface HostileWorker {
  child: ChildProcess;
  stderr: () => string;
  /** Adds a job as anyone with access to Redis would (3 attempts allowed), signed with `key` (null: unsigned); its error and attempts. */
  inject(
    kind: "episodes" | "trainings",
    data: object,
    o?: { key?: string | null; sign?: (data: object, jobId: string) => object },
  ): Promise<{ error: string | undefined; attempts: number | undefined }>;
  close(): Promise<void>;
}

/** `hexa worker --redis URL ARGS` with the job key `key`, started and ready, and queues to inject jobs into. */
export const startHostileWorker = async (redisPort: number, args: readonly string[], key: string, env: Record<string, string> = {}): Promise<HostileWorker> => {
  let err = "";
  const p = spawnHexa(["worker", "--redis", `redis://127.0.0.1:${redisPort}`, ...args], {
    env: { HEXA_JOB_KEY: key, OPENAI_BASE_URL: "", HEXA_ACTOR_API_KEY: "", ...env },
    onStderr: (s) => (err = s),
  });
  const t0 = Date.now();
  while (!err.includes(" at once per queue")) {
    if (Date.now() - t0 > 30_000 || p.child.exitCode !== null) throw new Error(`worker did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const connection = { host: "127.0.0.1", port: redisPort, maxRetriesPerRequest: null };
  const queues: Record<string, Queue> = {};
  for (const kind of ["episodes", "trainings"]) queues[kind] = new Queue(`hexa-${kind}`, { connection });
  let n = 0;
  return {
    child: p.child,
    stderr: () => err,
    inject: async (kind, data, o = {}) => {
      const jobId = `hostile-${process.pid}-${++n}`;
      const queue = queues[kind]!;
      const signed = o.sign ? o.sign(data, jobId) : signJob(o.key === undefined ? key : (o.key ?? undefined), kind, jobId, data);
      const job = await queue.add(kind === "episodes" ? "episode" : "training", signed, { jobId, attempts: 3, backoff: { type: "fixed", delay: 100 } });
      const { error } = await jobOutcome(queue, job.id!, 60_000, () => `worker said: ${err}`);
      return { error, attempts: (await queue.getJob(jobId))?.attemptsMade };
    },
    close: async () => {
      p.child.kill("SIGKILL");
      await Promise.allSettled(Object.values(queues).map((q) => q.close()));
    },
  };
};
