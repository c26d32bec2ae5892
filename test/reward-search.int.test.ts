import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runLlmEpisode, type LlmAgent } from "../agents/run-episode.ts";
import { ActorConfig } from "../agents/actor-config.ts";
import { REWARD_SEARCH_WORDS } from "../levels/reward-search/family.ts";
import { getTask } from "../levels/reward-search/tasks/index.ts";
import { openRewardEnv } from "../levels/reward-search/task-env.ts";
import { LlmConfig } from "../src/llm/config.ts";
import { createRoleModel } from "../src/llm/role-model.ts";
import { createTrainerPool } from "../levels/reward-search/trainer/pool.ts";
import { startFakeOpenAI, type FakeOpenAI } from "./support/fake-openai-server.ts";
import { spawnHexa } from "./support/hexa-cli.ts";

/**
 * The reward-search family end to end with tiny training budgets (mechanisms, not learning): the heuristic
 * designer through `hexa run` (kill -9 and resume re-train nothing), and the LLM agents through the real
 * ChatOpenAI client against the local OpenAI-compatible server with scripted reward code, broken code included.
 */
const made: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-rs-"));
  made.push(d);
  return d;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const lines = (path: string) =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, any>)
    : [];

const config = (dir: string, extra = "") => {
  const path = join(dir, "rs.yaml");
  writeFileSync(
    path,
    [
      "family: reward-search",
      "levels: [cartpole]",
      "agent: heuristic",
      "evolver: heuristic",
      "rounds: 2",
      "episodesPerRound: 1",
      "offline: {episodes: 1}",
      "actor: {maxTurns: 4}",
      "concurrency: 1",
      `rewardSearch: {trainSteps: 1024, finishSteps: 2048, cacheDir: ${join(dir, "cache")}, jobsDir: ${join(dir, "jobs")}}`,
      extra,
    ].join("\n"),
  );
  return path;
};

const hexa = (args: string[], onStderr?: (stderr: string, child: ChildProcess) => void) =>
  spawnHexa(args, { env: { HEXA_ACTOR_API_KEY: "k", HEXA_EVOLVER_API_KEY: "k" }, ...(onStderr ? { onStderr } : {}) });

/** The one run directory a runs folder holds. */
const runDir = (runs: string): string => join(runs, readdirSync(runs).find((n) => !n.startsWith("."))!);

const trainObs = (eps: Record<string, any>[]) => eps.flatMap((e) => e.trajectory.steps.filter((s: any) => s.tool === "train_policy" || s.tool === "finish"));

describe("hexa run with family: reward-search and the heuristic designer", () => {
  it("plays, evolves a bank of designs, and a kill -9 + resume loses no episode and re-trains nothing that finished", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const cfg = config(dir);
    // Kill it once the offline episode is recorded and round 1 has begun.
    const first = hexa(["run", cfg, "--runs-dir", runs], (err, child) => {
      if (/round 0: bank/.test(err)) child.kill("SIGKILL");
    });
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    const run = runDir(runs);
    const before = lines(join(run, "episodes.jsonl"));
    expect(before.map((e) => e.id)).toEqual(["offline/cartpole/r0/s2"]);
    const resumed = await hexa(["run", "--resume", run]).done;
    expect(resumed.status, resumed.stderr).toBe(0);
    const eps = lines(join(run, "episodes.jsonl"));
    expect(eps.map((e) => e.id)).toEqual(["offline/cartpole/r0/s2", "stream/cartpole/r1/s0", "stream/cartpole/r2/s1"]);
    for (const e of eps) {
      expect(e.trajectory.agent).toBe("heuristic (no LLM)");
      expect(e.trajectory.action.code).toMatch(/function reward/);
      expect(typeof e.trajectory.score).toBe("number");
    }
    const log = lines(join(run, "bank-events.jsonl"));
    expect(log.filter((l) => l.commit).map((l) => l.commit.round)).toEqual([0, 1, 2]);
    expect(log.some((l) => l.event?.entry?.payload?.design)).toBe(true);

    // The same config again: every training is answered by the cache (nothing trains twice).
    const again = await hexa(["run", cfg, "--runs-dir", join(dir, "runs2")]).done;
    expect(again.status, again.stderr).toBe(0);
    const run2 = runDir(join(dir, "runs2"));
    const obs = trainObs(lines(join(run2, "episodes.jsonl")));
    expect(obs.length).toBeGreaterThan(0);
    for (const s of obs.filter((s: any) => s.tool === "train_policy")) expect(s.observation).toContain("cached");
  });
});

const CODE = `function reward(obs, action, nextObs, info) {
  const alive = info.fell || info.out_of_bounds ? 0 : 1;
  const upright = -((nextObs.theta / 0.2094) ** 2);
  return { total: alive + 0.5 * upright, components: { alive, upright } };
}`;
const BROKEN = "function reward(obs, action, nextObs, info) {\n  return { total: obs.nope.x, components: {} };\n}";

let server: FakeOpenAI | undefined;
afterAll(async () => server?.close());

describe("hexa run with family: reward-search: bad input", () => {
  it("an unknown task, and a trainer command that does not exist, are hexa: errors (exit 2) naming what to fix, before the run starts", async () => {
    const dir = tmp();
    const unknown = config(dir).replace("rs.yaml", "unknown.yaml");
    writeFileSync(unknown, readFileSync(config(dir), "utf8").replace("[cartpole]", "[cartpolez]"));
    const u = await hexa(["run", unknown, "--runs-dir", join(dir, "runs-u")]).done;
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/hexa: .*unknown reward-search task 'cartpolez'; known: cartpole/);
    expect(existsSync(join(dir, "runs-u"))).toBe(false);
    const missing = join(dir, "missing.yaml");
    writeFileSync(missing, readFileSync(config(dir), "utf8").replace(/rewardSearch: \{/, "rewardSearch: {trainer: {command: [/nonexistent/trainer]}, "));
    const m = await hexa(["run", missing, "--runs-dir", join(dir, "runs-m")]).done;
    expect(m.status).toBe(2);
    expect(m.stderr).toMatch(/^hexa: .*\/nonexistent\/trainer/m);
    expect(m.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    // A custom trainer is asked for its hello before the run starts: one that cannot start refuses the run, nothing written.
    expect(existsSync(join(dir, "runs-m"))).toBe(false);
  });
});

describe("hexa run with family: reward-search, the hexa actor and the LLM evolver (the local OpenAI-compatible server)", () => {
  it("plays scripted reward code (broken code included), distils and evolves the bank through the real client", async () => {
    const s = await startFakeOpenAI();
    try {
      const dir = tmp();
      const endpoint = `{model: m, baseURL: ${JSON.stringify(s.url)}, maxRetries: 0, timeoutMs: 60000}`;
      const cfg = config(dir, `llm: {actor: ${endpoint}, evolver: ${endpoint}}`);
      writeFileSync(
        cfg,
        readFileSync(cfg, "utf8").replace("agent: heuristic", "agent: hexa").replace("evolver: heuristic", "evolver: llm").replace("rounds: 2", "rounds: 1"),
      );
      const commit = { text: "Commit.", toolCalls: [{ name: "finish", args: { code: CODE } }] };
      const say = (v: unknown) => ({ text: JSON.stringify(v) });
      s.push(
        { text: "Try a broken idea.", toolCalls: [{ name: "check_reward", args: { code: BROKEN } }] }, // the offline ReAct episode
        commit,
        // The offline episode failed: no contrastive pass (nothing to contrast), the failures pass gives both entries.
        say({
          mistakes: [
            { description: "Read a field that does not exist", root_cause: "assumed obs has nested fields", correction: "use obs.theta", sources: [] },
          ],
          partial_skills: [
            { title: "Alive plus upright", principle: "Reward being alive and penalise the pole angle squared.", when_to_apply: "balance tasks", sources: [] },
          ],
        }),
        commit, // round 1 with the distilled bank
        say({
          ops: [
            { op: "keep", id: "s0_1" },
            { op: "keep", id: "m0_1" },
          ],
        }),
      );
      const r = await hexa(["run", cfg, "--runs-dir", join(dir, "runs")]).done;
      expect(r.status, r.stderr).toBe(0);
      const run = runDir(join(dir, "runs"));
      const eps = lines(join(run, "episodes.jsonl"));
      expect(eps.map((e) => e.id)).toEqual(["offline/cartpole/r0/s1", "stream/cartpole/r1/s0"]);
      expect(eps[0]!.trajectory.steps[0].observation).toMatch(/line 2/);
      expect(eps[1]!.trajectory).toMatchObject({ agent: "hexa", action: { code: CODE } });
      expect(eps[1]!.retrieved).toEqual(["s0_1", "m0_1"]);
      expect(s.requests).toHaveLength(5);
      // The evolver's prompt speaks the family's words and shows the committed code; the actor sees the bank.
      const evolver = String(s.requests[2]!.body.messages[0]!.content);
      expect(evolver).toContain("reward-design task");
      expect(evolver).not.toContain("red ball");
      expect(String(s.requests[2]!.body.messages[1]!.content)).toContain("function reward(obs, action, nextObs, info)");
      expect(String(s.requests[3]!.body.messages[0]!.content)).toContain("Alive plus upright");
    } finally {
      await s.close();
    }
  });
});

describe("LLM agents on a reward-search task through the OpenAI-compatible server", () => {
  const pool = createTrainerPool({ jobsDir: join(tmp(), "jobs"), size: 1 });
  afterAll(() => pool.close());
  const budgets = { train: 1024, finish: 2048 };
  const episode = async (agent: LlmAgent, script: Parameters<FakeOpenAI["push"]>) => {
    server ??= await startFakeOpenAI();
    server.requests.length = 0;
    server.push(...script);
    const llm = LlmConfig.parse({ actor: { model: "gpt-4.1-mini", baseURL: server.url, apiKey: "test", maxRetries: 1, timeoutMs: 60_000 } });
    const model = createRoleModel("actor", llm, { env: {}, sleep: async () => {} });
    return runLlmEpisode(
      {
        agent,
        open: (maxTurns) => openRewardEnv({ task: "cartpole", seed: 4, trainer: pool, budgets, checkTransitions: 64, maxTurns }),
        words: REWARD_SEARCH_WORDS,
        config: ActorConfig.parse({ maxTurns: 5 }),
      },
      { model, costOf: () => 0, now: () => 0 },
    );
  };

  it("hexa: broken code comes back with its line, a training reports F and components, finish scores the committed code", async () => {
    const t = await episode("hexa", [
      { text: "read", toolCalls: [{ name: "describe_task", args: {} }] },
      { text: "check a broken idea", toolCalls: [{ name: "check_reward", args: { code: BROKEN } }] },
      { text: "train", toolCalls: [{ name: "train_policy", args: { code: CODE } }] },
      { text: "commit broken", toolCalls: [{ name: "finish", args: { code: BROKEN } }] },
      { text: "commit", toolCalls: [{ name: "finish", args: { code: CODE } }] },
    ]);
    expect(t.steps.map((s) => s.tool)).toEqual(["describe_task", "check_reward", "train_policy", "finish", "finish"]);
    expect(t.steps[0]!.observation).toContain(getTask("cartpole").fitness.describe);
    expect(t.steps[1]!.observation).toMatch(/line 2/);
    expect(t.steps[2]!.observation).toMatch(/F of the final policy: .*evaluation seeds/);
    expect(t.steps[2]!.observation).toMatch(/- alive: /);
    expect(t.steps[2]!.observation).toMatch(/Best checkpoint during training \(not the score\)/);
    expect(t.steps[3]).toMatchObject({ ok: false });
    expect(t.steps[3]!.observation).toMatch(/nothing was committed/);
    expect(t).toMatchObject({ stopReason: "finish", action: { code: CODE } });
    expect(typeof t.score).toBe("number");
    expect(t.success).toBe((t.score ?? -1) >= getTask("cartpole").fitness.solved);
    const system = String(server!.requests[0]!.body.messages[0]!.content);
    expect(system).toContain("function reward(obs, action, nextObs, info)");
    expect(system).toContain("You have at most 5 turns");
    expect(server!.requests[0]!.body.tools!.map((x) => x.function.name)).toEqual(["describe_task", "check_reward", "train_policy", "finish"]);
  });

  it("direct and reflexion run on the family, reflexion with its words", async () => {
    const d = await episode("direct", [{ toolCalls: [{ name: "describe_task", args: {} }] }, { toolCalls: [{ name: "finish", args: { code: CODE } }] }]);
    expect(d).toMatchObject({ agent: "direct", maxTurns: 2, stopReason: "finish" });
    // F at 2,048 steps is far below 475: the first trial fails, the reflection goes into the second trial's prompt.
    const r = await episode("reflexion", [
      { toolCalls: [{ name: "finish", args: { code: CODE } }] },
      { text: "The alive bonus alone did not teach balance. Next, weigh the angle term more." },
      { toolCalls: [{ name: "finish", args: { code: CODE } }] },
    ]);
    expect(r).toMatchObject({ agent: "reflexion", maxTurns: 24, stopReason: "finish" });
    expect(String(server!.requests[1]!.body.messages[0]!.content)).toContain("You failed a reward-design task attempt");
    expect(String(server!.requests[2]!.body.messages[0]!.content)).toContain("weigh the angle term more");
  });
});
