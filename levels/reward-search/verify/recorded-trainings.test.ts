import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import { recordedTrainings } from "./recorded-trainings.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A run directory whose one episode committed a training of worker `w1`, keeping the given entries. */
const runWith = (kept: Record<string, unknown>[] | undefined): string => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-recorded-"));
  dirs.push(dir);
  const episode = { id: "stream-r1-cartpole-s7", trajectory: { action: { code: "function reward() {}", policy: "remote:w1" } } };
  writeFileSync(join(dir, "episodes.jsonl"), `${JSON.stringify(episode)}\n`);
  if (kept) {
    mkdirSync(join(dir, "trainer-cache"));
    kept.forEach((e, i) => writeFileSync(join(dir, "trainer-cache", `${String(i).padStart(64, "0")}.json`), JSON.stringify(e)));
  }
  return dir;
};

const bundled = (runDir: string) => recordedTrainings({ runDir, config: { family: "reward-search" } as unknown as RunConfig, startedAt: new Date(0) });

describe("the recorded trainings of a run played by workers", () => {
  it("are the run's own when it keeps the worker's results", async () => {
    await expect(bundled(runWith([{ outcome: { kind: "result", result: { policy: "remote:w1" } } }]))).resolves.toEqual([]);
  });

  it.each([
    ["keeps no trainer-cache/", undefined],
    ["keeps only other workers' results", [{ outcome: { kind: "result", result: { policy: "remote:w2" } } }]],
  ])("refuse a run that %s, naming the worker's policy", async (_what, kept) => {
    await expect(bundled(runWith(kept))).rejects.toThrow(/its episodes committed a policy trained on a worker \(remote:w1\), but the run keeps no result/);
  });
});
