import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extract as extractTar } from "tar";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { filesUnder } from "./manifest.ts";
import { packRun, type PackOptions } from "./pack.ts";

const temp = tempDirs("hexa-pack-");

/** A trainer job folder as the pool writes it (docs/trainer-protocol.md): request.json names it as its jobDir. */
const trainerJob = (root: string, name: string): string => {
  const dir = join(root, ".trainer-jobs", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "request.json"), JSON.stringify({ jobDir: dir, seed: 1 }));
  writeFileSync(join(dir, "reward.js"), "return 1;");
  writeFileSync(join(dir, "outcome.json"), '{"kind":"result"}');
  writeFileSync(join(dir, "policy.json"), '{"weights":[1,2,3]}');
  return dir;
};

/** A run folder whose records name a trained policy and a file that is no trainer job's. */
const runWithJobs = () => {
  const root = temp();
  const job = trainerJob(root, "cand-1-99-1");
  const runDir = join(root, "r1");
  mkdirSync(runDir);
  writeFileSync(join(runDir, "run.json"), "{}\n");
  const episode = { trajectory: { action: { code: "…", policy: join(job, "policy.json") } }, other: { policy: "/etc/hostname.json" } };
  writeFileSync(join(runDir, "episodes.jsonl"), `${JSON.stringify(episode)}\n`);
  writeFileSync(join(runDir, "report.html"), "<html>");
  writeFileSync(join(runDir, "run.lock"), "123");
  writeFileSync(join(runDir, "metrics.json.tmp-123"), "{");
  const cache = join(root, "llm-cache");
  mkdirSync(cache);
  writeFileSync(join(cache, "abc123.json"), '{"schemaVersion":1}');
  writeFileSync(join(cache, "abc123.json.tmp-4-x"), "{");
  return { root, runDir, cache };
};

const packed = async (o: Partial<PackOptions> & Pick<PackOptions, "runDir">) => {
  const out = join(temp(), "b.tar.gz");
  const result = await packRun({ runId: "r1", out, force: false, withPolicies: false, createdAt: "2026-12-05T00:00:00.000Z", extras: [], secrets: [], ...o });
  const dest = temp();
  extractTar({ file: out, cwd: dest, sync: true });
  return { result, files: filesUnder(join(dest, "r1")) };
};

describe("packing a run", () => {
  it("takes the trainer jobs its records name without their policies, and the response cache; leaves out derived and temporary files", async () => {
    const { runDir, cache } = runWithJobs();
    const { result, files } = await packed({ runDir, cacheDir: cache });
    expect(files).toEqual([
      "MANIFEST.json",
      "bundle/llm-cache/abc123.json",
      "bundle/trainer-jobs/cand-1-99-1/outcome.json",
      "bundle/trainer-jobs/cand-1-99-1/request.json",
      "bundle/trainer-jobs/cand-1-99-1/reward.js",
      "episodes.jsonl",
      "run.json",
    ]);
    expect(result.skipped).toEqual([
      "/etc/hostname.json: a policy the run's records name, in no trainer job folder on this machine; its job is not packed (the records keep its result)",
      "1 trained policy file(s) left out; add --with-policies to pack them",
    ]);
  });

  it("takes the policies with --with-policies, and says when the response cache is gone", async () => {
    const { runDir, root } = runWithJobs();
    const { result, files } = await packed({ runDir, withPolicies: true, cacheDir: join(root, "no-such-cache") });
    expect(files).toContain("bundle/trainer-jobs/cand-1-99-1/policy.json");
    expect(result.skipped).toContain(`${join(root, "no-such-cache")}: the run's response cache (llm.cacheDir) is not on this machine; packed without it`);
  });

  it("refuses a run folder holding a name the bundle keeps for itself", async () => {
    const { runDir } = runWithJobs();
    mkdirSync(join(runDir, "bundle"));
    await expect(packed({ runDir })).rejects.toThrow(/bundle: a name a bundle keeps for itself/);
  });

  it("refuses a run killed with finished episodes still held for the run's order, and packs one whose held/ is empty", async () => {
    const { runDir } = runWithJobs();
    mkdirSync(join(runDir, "held"));
    writeFileSync(join(runDir, "held", "stream%2Fdown_to_earth%2Fr2%2Fs7.json"), "{}\n");
    await expect(packed({ runDir })).rejects.toThrow(/held: 1 finished episode\(s\) not yet written to episodes\.jsonl .*hexa run --resume/);
    rmSync(join(runDir, "held", "stream%2Fdown_to_earth%2Fr2%2Fs7.json"));
    expect((await packed({ runDir })).files).toContain("episodes.jsonl");
  });
});
