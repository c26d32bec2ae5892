import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import { recordedTrainings } from "./recorded-trainings.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A run directory (in a runs folder of its own, no trainer cache there) whose one episode trained twice on a worker. */
const runPlayedByWorkers = (keeps: boolean): string => {
  const runs = mkdtempSync(join(tmpdir(), "hexa-recorded-"));
  dirs.push(runs);
  const dir = join(runs, "run");
  mkdirSync(dir);
  const step = (turn: number, tool: string, ok = true) => ({ turn, tool, ok, args: { code: "function reward() {}" }, observation: "Trained 1,024 steps." });
  const episode = { id: "offline/cartpole/r0/s1", trajectory: { steps: [step(1, "describe_task"), step(2, "train_policy"), step(3, "finish")] } };
  writeFileSync(join(dir, "episodes.jsonl"), `${JSON.stringify(episode)}\n`);
  writeFileSync(join(dir, "run.json"), "{}");
  if (keeps) mkdirSync(join(dir, "trainer-cache"));
  return dir;
};

const bundled = (runDir: string) => recordedTrainings({ runDir, config: { family: "reward-search" } as unknown as RunConfig, startedAt: new Date(0) });

describe("the recorded trainings of a run whose trainings ran on workers (no policy file named)", () => {
  it("are the run's own when it keeps them", async () => {
    await expect(bundled(runPlayedByWorkers(true))).resolves.toEqual([]);
  });

  it("refuse a run that keeps none and whose trainer cache holds none, counting its episodes' trainings", async () => {
    await expect(bundled(runPlayedByWorkers(false))).rejects.toThrow(
      /its records name 2 trainings, but the results of its trainings are neither in the run \(no trainer-cache\/.*\) nor in its trainer cache/,
    );
  });
});
