import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptedModel } from "../../test/support/scripted-model.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { ConfigError } from "../errors.ts";
import { LlmError } from "../llm/llm-error.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { readOfflineTrajectories } from "../store/offline-trajectories.ts";
import { RunDir } from "../store/run-dir.ts";
import { parseRunConfig, runConfigYaml, type RunConfig } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";

/** How a run stops before its end (docs/spec/method.md §10): Ctrl-C at an episode boundary, and an evolver endpoint that fails. */

const LEVEL = "two_body_problem";
const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const newDir = (cfg: RunConfig) => {
  const root = mkdtempSync(join(tmpdir(), "hexa-stop-"));
  roots.push(root);
  return RunDir.create(root, "run", runConfigYaml(cfg), new Date(0));
};
const clock = () => 0;
const cfg = parseRunConfig(
  { family: "interphyre", levels: [LEVEL], agent: "heuristic", evolver: "heuristic", rounds: 3, episodesPerRound: 2, concurrency: 1, offline: { episodes: 2 } },
  "cfg",
);
const TOTAL = 2 + 3 * 2;

describe("an aborted signal (Ctrl-C)", () => {
  it("is seen between synchronous heuristic episodes: a timer's abort stops the loop early, and a resume finishes the run", async () => {
    const dir = newDir(cfg);
    const ctl = new AbortController();
    const reason = new Error("interrupted");
    // A heuristic episode never awaits anything real, so without a yield between episodes this timer fires only after the run.
    setTimeout(() => ctl.abort(reason), 0);
    await expect(runLoop(cfg, { family, dir, now: clock, signal: ctl.signal })).rejects.toBe(reason);
    const played = dir.episodes().length;
    expect(played).toBeGreaterThan(0);
    expect(played).toBeLessThan(TOTAL);
    const m = await runLoop(cfg, { family, dir, now: clock });
    expect(m.overall.episodes).toBe(3 * 2);
    expect(dir.episodes()).toHaveLength(TOTAL);
  });

  it("lets the episode in flight finish and be recorded, and starts no update after it", async () => {
    const dir = newDir(cfg);
    const ctl = new AbortController();
    const reason = new Error("interrupted");
    const run = runLoop(cfg, { family, dir, now: clock, signal: ctl.signal, onProgress: (p) => p.done === 1 && ctl.abort(reason) });
    await expect(run).rejects.toBe(reason);
    expect(dir.episodes().map((e) => e.id)).toEqual(["offline/two_body_problem/r0/s" + String(dir.episodes()[0]!.seed)]);
    expect(dir.bankLog().done.size).toBe(0);
  });
});

describe("an evolver endpoint that fails for good", () => {
  it("stops the run with a hexa: message that says how to resume, and commits nothing", async () => {
    const llmCfg = parseRunConfig({ ...cfg, evolver: "llm" }, "cfg");
    const dir = newDir(llmCfg);
    const evolverModel = new ScriptedModel([new LlmError("http://127.0.0.1:9/v1", "m", 3, new Error("503 Service Unavailable"))]);
    const run = runLoop(llmCfg, { family, dir, evolverModel, now: clock });
    await expect(run).rejects.toThrow(ConfigError);
    await expect(run).rejects.toThrow(
      /two_body_problem round 0: the evolver's model endpoint failed \(.*503.*\); the bank update was not committed\. .*hexa run --resume /,
    );
    expect(dir.bankLog().done.size).toBe(0);
  });
});

describe("lost records of offline trajectories read from files (docs/spec/method.md §10)", () => {
  const file = "skills/offline/two_body_problem.heuristic.jsonl";
  const fileCfg = parseRunConfig(
    { family: "interphyre", levels: [LEVEL], agent: "heuristic", evolver: "heuristic", rounds: 1, episodesPerRound: 2, offline: { trajectories: [file] } },
    "cfg",
  );
  const fromFile = (l: string) => readOfflineTrajectories([file]).get(l) ?? [];

  it("are read again when the files are there; refused, naming what is missing and what to do, when not", async () => {
    const dir = newDir(fileCfg);
    await runLoop(fileCfg, { family, dir, now: clock, offlineTrajectories: fromFile });
    const whole = dir.episodes();
    rmSync(dir.file("episodes"));
    const gone = () => {
      throw new ConfigError("offline.trajectories: skills/offline/x.jsonl: no such file");
    };
    const refused = runLoop(fileCfg, { family, dir, now: clock, offlineTrajectories: gone });
    await expect(refused).rejects.toThrow(
      /two_body_problem: episodes\.jsonl lacks the offline trajectories round 0 was distilled from \(offline\/two_body_problem\/file\d+\/s\d+.*\) and they cannot be read again \(.*no such file\); restore episodes\.jsonl from a copy, or make offline\.trajectories readable and resume again/,
    );
    await runLoop(fileCfg, { family, dir, now: clock, offlineTrajectories: fromFile });
    const decided = (e: (typeof whole)[number]) => ({
      ...e,
      trajectory: { ...e.trajectory, wallMs: 0, steps: e.trajectory.steps.map((x) => ({ ...x, ms: 0 })) },
    });
    expect(
      dir
        .episodes()
        .map(decided)
        .sort((a, b) => a.id.localeCompare(b.id)),
    ).toEqual(whole.map(decided).sort((a, b) => a.id.localeCompare(b.id)));
  });
});
