import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { ConfigError } from "../errors.ts";
import { LlmConfig } from "../llm/config.ts";
import { createRoleModel } from "../llm/role-model.ts";
import { foldEvents } from "../store/bank.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { readOfflineTrajectories } from "../store/offline-trajectories.ts";
import { RunDir } from "../store/run-dir.ts";
import { readShippedBanks } from "../store/shipped-bank.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { heldOutSeeds, learnedSeeds, readRunState } from "./evaluate.ts";
import { parseRunConfig, runConfigYaml, type RunConfig } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";

/** What the loop does with what comes from outside: a failing endpoint, offline trajectories and banks from files. */

const LEVEL = "two_body_problem";
const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const newDir = (cfg: RunConfig) => {
  const root = mkdtempSync(join(tmpdir(), "hexa-inputs-"));
  roots.push(root);
  return { root, dir: RunDir.create(root, "run", runConfigYaml(cfg), new Date(0)) };
};
const clock = () => 0;

describe("an endpoint that fails mid-run", () => {
  it("records no episode for it, stops with a resume hint, and the resume plays that episode", async () => {
    const server = await startFakeOpenAI();
    try {
      const cfg = parseRunConfig(
        { family: "interphyre", levels: [LEVEL], agent: "react", rounds: 1, episodesPerRound: 2, concurrency: 1, actor: { maxTurns: 2 } },
        "cfg",
      );
      const llm = LlmConfig.parse({ actor: { model: "m", baseURL: server.url, apiKey: "k", maxRetries: 0, timeoutMs: 2000 } });
      const model = createRoleModel("actor", llm, { env: {}, sleep: async () => {} });
      const commit = { text: "Commit.", toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }] };
      server.push(commit, { fault: "500" });
      const { dir } = newDir(cfg);
      const failed = runLoop(cfg, { family, dir, actorModel: model, now: clock });
      await expect(failed).rejects.toThrow(ConfigError);
      await expect(failed).rejects.toThrow(/stream\/two_body_problem\/r1\/s\d+: the model endpoint failed .*not recorded.*hexa run --resume/);
      expect(dir.episodes().map((e) => e.trajectory.stopReason)).toEqual(["finish"]);
      server.push(commit);
      const m = await runLoop(cfg, { family, dir, actorModel: model, now: clock });
      expect(m.overall.episodes).toBe(2);
      expect(dir.episodes().every((e) => e.trajectory.stopReason !== "error")).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe("offline trajectories from files", () => {
  const file = "skills/offline/two_body_problem.heuristic.jsonl";
  const base = { levels: [LEVEL], agent: "heuristic", evolver: "heuristic", rounds: 1, episodesPerRound: 2 } as const;

  it("are recorded in the run, cited by id, excluded from held-out seeds, and never read again once round 0 is committed", async () => {
    const cfg = parseRunConfig({ family: "interphyre", ...base, offline: { trajectories: [file] } }, "cfg");
    const given = readOfflineTrajectories([file]).get(LEVEL)!;
    const { dir } = newDir(cfg);
    let reads = 0;
    const ports = { family, dir, now: clock, offlineTrajectories: (l: string) => (reads++, readOfflineTrajectories([file]).get(l) ?? []) };
    await runLoop(cfg, ports);
    const offline = dir.episodes().filter((e) => e.phase === "offline");
    expect(offline.map((e) => e.seed)).toEqual(given.map((t) => t.seed));
    const cited = dir
      .bankLog()
      .events.get(LEVEL)!
      .flatMap((e) => e.evidence);
    expect(cited.length).toBeGreaterThan(0);
    for (const id of cited) expect(dir.episodes().some((e) => e.id === id)).toBe(true);
    const held = heldOutSeeds(cfg, family, { count: 200 }, learnedSeeds(readRunState(dir))).get(LEVEL)!;
    for (const t of given) expect(held).not.toContain(t.seed);
    expect(() => heldOutSeeds(cfg, family, { seeds: [given[0]!.seed], count: 1 }, learnedSeeds(readRunState(dir)))).toThrow(/were seen while learning/);
    expect(reads).toBe(1);
    await runLoop(cfg, ports);
    expect(reads).toBe(1);
  });

  it("refuse a level the files do not cover, and trajectories on stream seeds", async () => {
    const cfg = parseRunConfig({ family: "interphyre", ...base, levels: [LEVEL, "down_to_earth"], offline: { trajectories: [file] } }, "cfg");
    const ports = { family, now: clock, offlineTrajectories: (l: string) => readOfflineTrajectories([file]).get(l) ?? [] };
    await expect(runLoop(cfg, { ...ports, dir: newDir(cfg).dir })).rejects.toThrow(/offline\.trajectories: no trajectories for down_to_earth/);
    const seeds = readCertified(LEVEL)!.seeds.map((s) => s.seed);
    const onStream = readOfflineTrajectories([file])
      .get(LEVEL)!
      .map((t, i) => ({ ...t, seed: seeds[i]! }));
    const cfg1 = parseRunConfig({ family: "interphyre", ...base, offline: { trajectories: [file] } }, "cfg");
    await expect(runLoop(cfg1, { family, now: clock, dir: newDir(cfg1).dir, offlineTrajectories: () => onStream })).rejects.toThrow(
      /which this run's stream also plays \(seeds\.offset/,
    );
  });

  it("read a last line without a newline as a line, and never change the file", () => {
    const root = mkdtempSync(join(tmpdir(), "hexa-inputs-"));
    roots.push(root);
    const text = readFileSync(file, "utf8").trimEnd();
    const path = join(root, "no-newline.jsonl");
    writeFileSync(path, text);
    expect(readOfflineTrajectories([path]).get(LEVEL)).toHaveLength(text.split("\n").length);
    expect(readFileSync(path, "utf8")).toBe(text);
    writeFileSync(path, `${text}\n{"schemaVersion": 1, "level": "two_bo`);
    expect(() => readOfflineTrajectories([path])).toThrow(new RegExp(`${path}:\\d+: not valid JSON`));
  });
});

describe("a shipped bank", () => {
  it("enters as renamed add events, so ids minted later never collide with the shipping run's", async () => {
    const cfg = parseRunConfig(
      {
        family: "interphyre",
        levels: ["catapult"],
        agent: "heuristic",
        evolver: "heuristic",
        init: "off2on",
        rounds: 1,
        episodesPerRound: 1,
        seeds: { offset: 56 },
        offline: { banks: ["skills/banks/catapult.heuristic.json"] },
      },
      "cfg",
    );
    const shipped = readShippedBanks(["skills/banks/catapult.heuristic.json"]).get("catapult")!;
    const { dir } = newDir(cfg);
    await runLoop(cfg, { family, dir, now: clock, shippedBank: () => shipped });
    const round0 = dir
      .bankLog()
      .events.get("catapult")!
      .filter((e) => e.round === 0);
    expect(round0.map((e) => e.type === "add" && e.entry.id)).toEqual([...shipped.skills, ...shipped.mistakes].map((e) => `shipped_${e.id}`));
    expect(foldEvents(dir.bankLog().events.get("catapult")!).skills.length).toBeGreaterThan(0);
    const early = parseRunConfig({ ...cfg, seeds: { offset: 0 } }, "cfg");
    await expect(runLoop(early, { family, dir: newDir(early).dir, now: clock, shippedBank: () => shipped })).rejects.toThrow(
      /offline\.banks: catapult's bank was learned on seeds .* which this run's stream also plays/,
    );
  });
});
