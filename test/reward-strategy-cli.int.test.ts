import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFinalScores } from "../src/store/final-scores.ts";
import { EpisodeRecord } from "../src/store/run-records.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { hexa, spawnHexa } from "./support/hexa-cli.ts";

/**
 * The run's `method` (and its `search:` slice) through the real CLI with tiny trainings (mechanisms, not learning, docs/spec/reward-search.md §8): a
 * search run in the run directory with its exact budget, its resume, the rounds run's exact budget, the final
 * scores on fresh training and evaluation seeds (the final scoring protocol), a compare grid over the strategy, `hexa bench reward-search`'s files,
 * and a bad strategy refused by its key.
 */
const tmp = tempDirs("hexa-strategy-");

const jsonl = jsonlOf;

/** A cartpole config: `top` are top-level lines (`method: eureka`, `search: {budget: 3}`), `rewardSearch` more keys of that slice. */
const config = (dir: string, top: string[], rewardSearch = "") => {
  const path = join(dir, "rs.yaml");
  writeFileSync(
    path,
    [
      "family: reward-search",
      "levels: [cartpole]",
      "agent: heuristic",
      "evolver: heuristic",
      "rounds: 1",
      "episodesPerRound: 1",
      "offline: {episodes: 1}",
      "actor: {maxTurns: 6}",
      "concurrency: 1",
      `rewardSearch: {${[`trainSteps: 1024, finishSteps: 1024, cacheDir: ${join(dir, "cache")}, jobsDir: ${join(dir, "jobs")}`, rewardSearch].filter(Boolean).join(", ")}}`,
      ...top,
    ].join("\n"),
  );
  return path;
};

const onlyRun = (runs: string) => join(runs, readdirSync(runs).find((d) => !d.startsWith("."))!);
const scoresOf = (run: string) => readFinalScores(run)!;
const jobs = (dir: string) => (existsSync(join(dir, "jobs")) ? readdirSync(join(dir, "jobs")).length : 0);

describe("method in hexa run", () => {
  it("eureka searches every task in the run directory with the exact budget, resumes without retraining, and scores on fresh seeds no search training used", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const out = await hexa(["run", config(dir, ["method: eureka", "search: {budget: 3, eureka: {samples: 2}}"]), "--runs-dir", runs]);
    expect(out.stderr).not.toMatch(/hexa: /);
    expect(out.status).toBe(0);
    const run = onlyRun(runs);
    const search = join(run, "search", "cartpole");
    const header = JSON.parse(readFileSync(join(search, "search.json"), "utf8"));
    expect(header).toMatchObject({ strategy: "eureka", task: "cartpole", seed: 0, budget: 3, trainSteps: 1024, proposer: "heuristic (no LLM)" });
    const candidates = jsonl(join(search, "candidates.jsonl"));
    expect(candidates.map((c) => c.index)).toEqual([0, 1, 2]);
    // K = 2: the second iteration (one candidate, the budget's rest) refines the first iteration's best.
    expect(candidates.map((c) => c.iteration)).toEqual([0, 0, 1]);
    expect(candidates[2]!.operator).toBe("refine");
    // No rounds: no episode was played.
    expect(existsSync(join(run, "episodes.jsonl"))).toBe(false);

    const [s] = scoresOf(run).levels;
    expect(s!.level).toBe("cartpole");
    expect(s!.spent).toBe(3);
    const d = s!.detail as Record<string, any>;
    const best = candidates.filter((c) => c.outcome.kind === "result").sort((a, b) => b.outcome.fitness - a.outcome.fitness || a.index - b.index)[0]!;
    expect(d.code).toBe(best.code);
    expect(d.source).toBe(`candidate #${best.index} of eureka`);
    // The final score: three fresh training seeds, none of them (nor their evaluation seeds) a selection seed of the search.
    const per = s!.perSeed as { seed: number; evalSeeds: number[]; fitness: number; sparse: number; human: number }[];
    expect(per).toHaveLength(3);
    for (const c of candidates) for (const p of per) for (const seed of [p.seed, ...p.evalSeeds]) expect([c.trainSeed, ...c.evalSeeds]).not.toContain(seed);
    for (const p of per) for (const k of ["fitness", "sparse", "human"] as const) expect(typeof p[k]).toBe("number");
    // F leads; its paired differences are over the same three seeds.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(s!.headline).toBe("fitness");
    expect(s!.figures.fitness!.mean).toBeCloseTo(mean(per.map((p) => p.fitness)), 10);
    expect(s!.figures.vsSparse).toMatchObject({ n: 3 });
    expect(s!.figures.vsSparse!.mean).toBeCloseTo(mean(per.map((p) => p.fitness - p.sparse)), 10);
    expect(s!.figures.vsHuman!.mean).toBeCloseTo(mean(per.map((p) => p.fitness - p.human)), 10);
    expect(d.envSteps).toBe(3 * 1024);
    expect(out.stdout).toContain("final scores");

    // A resume of the finished search trains no candidate again (the final trainings are cache hits).
    const before = jobs(dir);
    const again = await hexa(["run", "--resume", run]);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain("3/3 candidates (3 from the log)");
    expect(jsonl(join(search, "candidates.jsonl"))).toHaveLength(3);
    expect(jobs(dir)).toBe(before);
  }, 60_000);

  it("rounds with a budget: each episode's share caps its trainings", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    // Two episodes of cartpole (one offline, one stream) share 3 trainings: 2 then 1; six turns would allow 4 each.
    const out = await hexa(["run", config(dir, ["search: {budget: 3}"]), "--runs-dir", runs]);
    expect(out.stderr).not.toMatch(/hexa: /);
    expect(out.status).toBe(0);
    const run = onlyRun(runs);
    const episodes = jsonl(join(run, "episodes.jsonl")).map((e) => EpisodeRecord.parse(e));
    const trained = (e: EpisodeRecord) => e.trajectory.steps.reduce((n, st) => n + (st.spent ?? 0), 0);
    const byPhase = Object.fromEntries(episodes.map((e) => [e.phase, trained(e)]));
    expect(byPhase).toEqual({ offline: 2, stream: 1 });
    // The last training of each episode is its finish: the designer keeps one for it.
    for (const e of episodes) expect(e.trajectory.steps.at(-1)!.tool).toBe("finish");
    const [s] = scoresOf(run).levels;
    expect(s!.spent).toBe(3);
    expect((s!.detail as Record<string, unknown>).source).toMatch(/^episode (offline|stream)\//);
  }, 60_000);

  it("rounds with a budget trains exactly the budget, also across a kill -9 and resume, each share from what earlier rounds spent", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    // 5 episodes (1 offline, 4 rounds) share 9 trainings: 2, 2, 2, 2, 1 when each spends its share.
    const path = config(dir, ["search: {budget: 9}"]);
    writeFileSync(path, readFileSync(path, "utf8").replace("rounds: 1", "rounds: 4"));
    const first = spawnHexa(["run", path, "--runs-dir", runs], { detached: true });
    const episodesFile = () => (existsSync(runs) && readdirSync(runs).some((d) => !d.startsWith(".")) ? join(onlyRun(runs), "episodes.jsonl") : "");
    const lines = () => (episodesFile() && existsSync(episodesFile()) ? jsonl(episodesFile()).length : 0);
    await new Promise<void>((ok, fail) => {
      const t = setInterval(() => {
        if (lines() >= 2) {
          clearInterval(t);
          process.kill(-first.child.pid!, "SIGKILL");
          ok();
        }
      }, 50);
      first.done.then(() => {
        clearInterval(t);
        fail(new Error("the run finished before it could be killed"));
      }, fail);
    });
    await first.done;
    const killedAt = lines();
    expect(killedAt).toBeLessThan(5);
    const run = onlyRun(runs);
    const again = await hexa(["run", "--resume", run]);
    expect(again.stderr).not.toMatch(/hexa: /);
    expect(again.status).toBe(0);
    const episodes = jsonl(join(run, "episodes.jsonl")).map((e) => EpisodeRecord.parse(e));
    expect(new Set(episodes.map((e) => e.id)).size).toBe(episodes.length);
    const spent = (e: EpisodeRecord) => e.trajectory.steps.reduce((n, st) => n + (st.spent ?? 0), 0);
    const order = [...episodes].sort((x, y) => (x.phase === "offline" ? -1 : y.phase === "offline" ? 1 : x.round - y.round));
    expect(order.map(spent)).toEqual([2, 2, 2, 2, 1]);
    // Every step that sent a training says so; no other step does.
    for (const e of episodes) for (const st of e.trajectory.steps) expect(st.spent ?? 0).toBe(st.tool === "train_policy" || st.tool === "finish" ? 1 : 0);
    expect(scoresOf(run).levels[0]!.spent).toBe(9);
  }, 120_000);

  it("refuses a rounds budget that its episodes or turns cannot spend, naming the key, before a run directory is made", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const [few, many] = await Promise.all([
      hexa(["run", config(tmp(), ["search: {budget: 1}"]), "--runs-dir", runs]),
      hexa(["run", config(tmp(), ["search: {budget: 13}"]), "--runs-dir", runs]),
    ]);
    expect(few.status).toBe(2);
    expect(few.stderr).toContain("search.budget: 1 trainings of cartpole leave some of its 2 episodes");
    expect(many.status).toBe(2);
    expect(many.stderr).toContain("up to 7 per episode, more than actor.maxTurns 6");
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  }, 30_000);

  it("a rounds run without a budget writes no final scores (unchanged; the old key rewardSearch.strategy still reads)", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const out = await hexa(["run", config(dir, [], "strategy: rounds"), "--runs-dir", runs]);
    expect(out.status).toBe(0);
    expect(existsSync(join(onlyRun(runs), "final-scores.json"))).toBe(false);
  }, 60_000);

  it("an unknown method is refused naming the key, before a run directory is made", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    const out = await hexa(["run", config(dir, ["method: greedy"]), "--runs-dir", runs]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/^hexa: .*method: .*"rounds"\|"eureka"\|"rf-agent"\|"p2p" \(got "greedy"\)/m);
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
    const grid = await hexa(["compare", config(dir, ["search: {budget: 2}"]), "--grid", "method=rounds,tree", "--out", join(dir, "cmp")]);
    expect(grid.status).toBe(2);
    expect(grid.stderr).toContain('--grid method: the value "tree" is refused');
  }, 30_000);
});

describe("comparing strategies", () => {
  it("hexa compare over method gives every cell a final score per task with its trainings", async () => {
    const dir = tmp();
    const out = join(dir, "cmp");
    const r = await hexa([
      "compare",
      config(dir, ["search: {budget: 2, eureka: {samples: 2}, rfAgent: {initial: 1, children: 1}}"]),
      "--grid",
      "method=rounds,eureka,rf-agent",
      "--runs",
      "1",
      "--heldout",
      "0",
      "--out",
      out,
    ]);
    expect(r.stderr).not.toMatch(/hexa: /);
    expect(r.status).toBe(0);
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(results.cells.map((c: any) => c.label)).toEqual(["method=rounds", "method=eureka", "method=rf-agent"]);
    for (const c of results.cells) {
      const [l] = c.levels;
      expect(l.level).toBe("cartpole");
      expect(l.final.spent).toEqual([2]);
      // F of the final policy leads, then its paired differences from the sparse and human rewards.
      expect(l.final.figures.map((f: any) => f.label)).toEqual(["F", "F − F_sparse", "F − F_human", "normalised"]);
      expect(typeof l.final.figures[0].perRun[0]).toBe("number");
    }
    // The rf-agent cell's lineage is inside its run directory, where hexa inspect finds it.
    const rf = results.cells[2].runs[0].dir;
    expect(jsonl(join(rf, "search", "cartpole", "candidates.jsonl")).map((c) => c.operator)).toEqual(["initial", "structural"]);
    const md = readFileSync(join(out, "results.md"), "utf8");
    expect(md).toContain("| c3 (method=rf-agent) | cartpole |");
    expect(md).toContain("| F | F − F_sparse | F − F_human | normalised | F per run | Δ F vs c1, 95% CI |");
    expect(readFileSync(join(out, "results.csv"), "utf8").split("\n")[0]).toContain("final_headline,final_figures,final_spent");
  }, 300_000);

  it("hexa bench reward-search writes the table (strategies, sparse and human rows) as Markdown, CSV, JSON and a plot", async () => {
    const dir = tmp();
    const out = join(dir, "bench");
    const r = await hexa([
      "bench",
      "reward-search",
      "--strategies",
      "eureka,rf-agent",
      "--tasks",
      "cartpole",
      "--budget",
      "2",
      "--runs",
      "2",
      "--train-steps",
      "1024",
      "--samples",
      "2",
      "--initial",
      "1",
      "--children",
      "1",
      "--out",
      out,
    ]);
    expect(r.stderr).not.toMatch(/hexa: /);
    expect(r.status).toBe(0);
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(res.rows.map((x: any) => `${x.task}/${x.row}`)).toEqual(["cartpole/sparse", "cartpole/human", "cartpole/eureka", "cartpole/rf-agent"]);
    for (const row of res.rows.slice(2)) expect(row.trained).toEqual([2, 2]);
    // Run r searched instance r in both strategies, and each run's score stands on 3 fresh training seeds.
    expect(res.scores.map((x: any) => `${x.strategy}/${x.run}`).sort()).toEqual(["eureka/0", "eureka/1", "rf-agent/0", "rf-agent/1"]);
    for (const x of res.scores) expect(x.perSeed).toHaveLength(3);
    // Each run's score keeps where it came from: its search's trainings, with those a cache answered counted.
    for (const x of res.scores) expect(x.cache).toMatchObject({ trainings: 2 });
    expect(res.diffs).toHaveLength(1);
    expect(res.scores).toHaveLength(4);
    const md = readFileSync(join(out, "results.md"), "utf8");
    expect(md).toContain("| cartpole | human |");
    expect(md).toContain("| task | reward | n | F (95 % interval) | F − F_sparse | F − F_human | normalised | F per run |");
    // The bench's final trainings are at --train-steps, below cartpole's scored budget, and the table says so.
    expect(md).toContain("- cartpole: final trainings trained at 1,024 env steps, NOT the task's scored budget");
    expect(md).toContain("--budget 2 --runs 2");
    // Two runs are too few independent units for an interval: the verdict says so instead of printing one.
    expect(md).toContain("- cartpole: too few runs to tell (2 runs: no interval below 3 independent runs)");
    expect(readFileSync(join(out, "results.csv"), "utf8").split("\n").filter(Boolean)).toHaveLength(1 + 4 * 2);
    expect(readFileSync(join(out, "scores.svg"), "utf8")).toMatch(/^<svg/);
    expect(readFileSync(join(out, "scores.png")).subarray(1, 4).toString()).toBe("PNG");
    const bad = await hexa(["bench", "reward-search", "--strategies", "eureka,greedy", "--out", join(dir, "b2")]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--strategies: "greedy" is not a strategy; known: rounds, eureka, rf-agent, p2p');
  }, 480_000);

  it("hexa bench reward-search takes the search knobs from the search slice's schema, with the bench's floor on --budget", async () => {
    const help = await hexa(["bench", "reward-search", "--help"]);
    expect(help.stdout).toContain("eureka: K: candidates sampled and evaluated per iteration");
    expect(help.stdout).toMatch(/rf-agent: children of one expansion[\s\S]*\(default 8\)/);
    const out = join(tmp(), "bench");
    const small = await hexa(["bench", "reward-search", "--budget", "1", "--out", out]);
    expect(small.status).toBe(2);
    expect(small.stderr).toContain("--budget: the bench needs at least 2 (got 1)");
    const zero = await hexa(["bench", "reward-search", "--children", "0", "--out", out]);
    expect(zero.status).toBe(2);
    expect(zero.stderr).toMatch(/--children: .* \(got 0\); see hexa bench --help/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
