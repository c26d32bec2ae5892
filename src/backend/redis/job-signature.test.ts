import { describe, expect, it } from "vitest";
import { resultSignatureProblem, signatureProblem, signJob, signResult } from "./job-signature.ts";

const KEY = "k".repeat(32);
const data = { schemaVersion: 2, run: "r", config: { b: 1, a: [1, 2] } };

describe("job signatures", () => {
  it("hold for the job as signed, whatever the key order Redis gives back", () => {
    const signed = signJob(KEY, "episodes", "r/e1", data);
    const reordered = JSON.parse(
      JSON.stringify({ config: { a: [1, 2], b: 1 }, run: "r", schemaVersion: 2, ...(signed as unknown as { signature: string; signedAt: string }) }),
    );
    expect(signatureProblem(KEY, "episodes", "r/e1", reordered)).toBeNull();
  });

  it("fail for changed data, another job id, another queue, another key, or none", () => {
    const signed = signJob(KEY, "episodes", "r/e1", data);
    expect(signatureProblem(KEY, "episodes", "r/e1", { ...signed, run: "other" })).toMatch(/does not match this worker's job key; set the same HEXA_JOB_KEY/);
    expect(signatureProblem(KEY, "episodes", "r/e2", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "trainings", "r/e1", signed)).toMatch(/does not match/);
    expect(signatureProblem("x".repeat(32), "episodes", "r/e1", signed)).toMatch(/does not match/);
    expect(signatureProblem(KEY, "episodes", "r/e1", data)).toMatch(/not signed, and this worker takes signed jobs only/);
    expect(signatureProblem(KEY, "episodes", "r/e1", { ...data, signature: 42 })).toMatch(/not signed/);
  });

  it("without a key on either side a job goes unsigned; a signed job meets a worker without a key with a refusal", () => {
    expect(signJob(undefined, "episodes", "r/e1", data)).toEqual(data);
    expect(signatureProblem(undefined, "episodes", "r/e1", data)).toBeNull();
    expect(signatureProblem(undefined, "episodes", "r/e1", signJob(KEY, "episodes", "r/e1", data))).toMatch(/signed but this worker has no job key/);
  });

  it("is read strictly: 64 lower-case hex digits, nothing appended, nothing upper-cased", () => {
    const signed = signJob(KEY, "episodes", "r/e1", data) as typeof data & { signature: string };
    expect(signatureProblem(KEY, "episodes", "r/e1", signed)).toBeNull();
    for (const signature of [
      `${signed.signature}00`,
      `${signed.signature}zz`,
      `${signed.signature} `,
      signed.signature.toUpperCase(),
      signed.signature.slice(0, 62),
    ])
      expect(signatureProblem(KEY, "episodes", "r/e1", { ...signed, signature }), signature).toMatch(/does not match/);
  });
});

describe("result signatures", () => {
  const result = { schemaVersion: 2, trajectory: { turns: 3 }, worker: "w" };

  it("hold for the result a worker with the key wrote for this job, and for nothing else", () => {
    const signed = signResult(KEY, "episodes", "r/e1", result);
    expect(resultSignatureProblem(KEY, "episodes", "r/e1", JSON.parse(JSON.stringify(signed)))).toBeNull();
    expect(resultSignatureProblem(KEY, "episodes", "r/e1", { ...signed, trajectory: { turns: -1000 } })).toMatch(
      /signature: the result's signature does not match/,
    );
    expect(resultSignatureProblem(KEY, "episodes", "r/e2", signed)).toMatch(/does not match/);
    expect(resultSignatureProblem(KEY, "trainings", "r/e1", signed)).toMatch(/does not match/);
    expect(resultSignatureProblem("x".repeat(32), "episodes", "r/e1", signed)).toMatch(/does not match/);
    expect(resultSignatureProblem(KEY, "episodes", "r/e1", result)).toMatch(/signature: the result is not signed with the job key/);
  });

  it("a job's own signature is never a result's: the same data signed as a job does not answer it", () => {
    const asJob = signJob(KEY, "episodes", "r/e1", result) as Record<string, unknown>;
    const { signedAt: _, ...withSignature } = asJob;
    expect(resultSignatureProblem(KEY, "episodes", "r/e1", asJob)).toMatch(/does not match/);
    expect(resultSignatureProblem(KEY, "episodes", "r/e1", withSignature)).toMatch(/does not match/);
  });

  it("are neither written nor asked for without a key (a loopback Redis)", () => {
    expect(signResult(undefined, "episodes", "r/e1", result)).toEqual(result);
    expect(resultSignatureProblem(undefined, "episodes", "r/e1", result)).toBeNull();
  });
});
