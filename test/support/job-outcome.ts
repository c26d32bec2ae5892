import type { Queue } from "bullmq";

/**
 * How a queued job ended: undefined when it completed, else its failure reason. The job's own record is polled,
 * not a QueueEvents stream: a worker can fail a job before a stream read that would have heard it has started.
 */
export const jobOutcome = async (queue: Queue, jobId: string, ms: number, context: () => string = () => ""): Promise<{ error: string | undefined }> => {
  const t0 = Date.now();
  for (;;) {
    const state = await queue.getJobState(jobId);
    if (state === "completed") return { error: undefined };
    // Read after the state: a record fetched before it may predate the failure.
    if (state === "failed") return { error: (await queue.getJob(jobId))?.failedReason };
    if (Date.now() - t0 > ms) throw new Error(`job ${jobId} still ${state} after ${ms} ms${context() ? `; ${context()}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
