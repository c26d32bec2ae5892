import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { startFakeOpenAI } from "./support/fake-openai-server.ts";

/**
 * `hexa compare` as a user runs it: the real CLI in a child process, its runs `hexa run` / `hexa eval` children,
 * on a tiny heuristic config (one level, 2 rounds × 1 episode; no model). Killed with kill -9 mid-way and rerun.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENV = (() => {
  const env = { ...process.env };
  delete env.CHROMA_URL;
  return env;
})();

interface Out {
  status: number | null;
  stdout: string;
  stderr: string;
}

const start = (args: string[], env: NodeJS.ProcessEnv = ENV): { child: ChildProcess; done: Promise<Out> } => {
  const child = spawn(process.execPath, ["bin/hexa.js", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const done = new Promise<Out>((ok, fail) => {
    child.once("error", fail);
    child.once("close", (status) => ok({ status, stdout, stderr }));
  });
  return { child, done };
};
const hexa = (args: string[], env?: NodeJS.ProcessEnv) => start(args, env).done;

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-compare-"));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const lines = (path: string): Record<string, unknown>[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const TINY = "levels: [down_to_earth]\nagent: heuristic\nevolver: heuristic\nrounds: 2\nepisodesPerRound: 1\noffline: {episodes: 1}\n";
const GRID = ["--grid", "init=off2on,online", "--grid", "retriever.topSkills=0,6"];

describe("hexa compare", () => {
  it("refuses a bad grid key or value, naming the key, before any folder is made", async () => {
    const root = tmp();
    const cfg = join(root, "tiny.yaml");
    writeFileSync(cfg, TINY);
    const out = join(root, "cmp");
    const [key, value, skipAll] = await Promise.all([
      hexa(["compare", cfg, "--grid", "retriever.topSkillz=0,6", "--out", out]),
      hexa(["compare", cfg, "--grid", "init=off2on", "--grid", "actor.maxTurns=12,-1", "--out", out]),
      hexa(["compare", cfg, "--grid", "init=offline", "--grid", "update=evolving,replacement", "--out", out]),
    ]);
    expect(key.status).toBe(2);
    expect(key.stderr).toMatch(/^hexa: --grid retriever.topSkillz: not a config key; known under retriever: /m);
    expect(value.status).toBe(2);
    expect(value.stderr).toMatch(/^hexa: --grid actor.maxTurns: the value -1 is refused/m);
    expect(skipAll.status).toBe(2);
    expect(skipAll.stderr).toMatch(/skipped c1 \(init=offline, update=evolving\): update: offline initialisation freezes the bank/);
    expect(skipAll.stderr).toMatch(/hexa: --grid: every cell is refused/);
    expect(existsSync(out)).toBe(false);
  }, 120_000);

  it("a 2 × 2 grid × 3 runs: paired seeds, resumable after kill -9, every run in the results, plot written", async () => {
    const root = tmp();
    const cfg = join(root, "tiny.yaml");
    writeFileSync(cfg, TINY);
    const out = join(root, "cmp");
    const args = ["compare", cfg, ...GRID, "--runs", "3", "--heldout", "2", "--parallel", "3", "--out", out];
    const first = start(args);
    // Killed once a run has finished and others are in flight.
    const t0 = Date.now();
    while (lines(join(out, "compare-log.jsonl")).length < 2 && Date.now() - t0 < 400_000) await new Promise((r) => setTimeout(r, 200));
    expect(lines(join(out, "compare-log.jsonl")).length).toBeGreaterThanOrEqual(2);
    first.child.kill("SIGKILL");
    await first.done;
    const runsDir = join(out, "runs");
    // Its hexa run / hexa eval children die with it (their stdin closes), so none keeps a run's lock.
    const locks = () =>
      readdirSync(runsDir).flatMap((d) => (existsSync(join(runsDir, d, "run.lock")) ? [Number(readFileSync(join(runsDir, d, "run.lock"), "utf8"))] : []));
    const t1 = Date.now();
    while (locks().some(alive) && Date.now() - t1 < 30_000) await new Promise((r) => setTimeout(r, 200));
    expect(locks().filter(alive)).toEqual([]);
    const before = readdirSync(runsDir).length;
    expect(before).toBeLessThan(12);

    const second = await hexa(args);
    expect(second.status, second.stderr).toBe(0);
    const dirs = readdirSync(runsDir).sort();
    expect(dirs).toHaveLength(12);
    for (const c of ["c1", "c2", "c3", "c4"])
      for (const s of [0, 1, 2]) expect(dirs.filter((d) => d.startsWith(`${c}_`) && d.includes(`__s${s}__`))).toHaveLength(1);
    // No (cell, run) was started afresh twice: a run the kill cut short was continued with --resume.
    const log = lines(join(out, "compare-log.jsonl"));
    const fresh = log.filter((l) => l.step === "run").map((l) => `${String(l.cell)}/${String(l.run)}`);
    expect(new Set(fresh).size).toBe(fresh.length);

    // Pairing: every run plays the same seed in each round; runs differ only in seed; held-out seeds are shared and unseen.
    type Ep = { id: string; phase: string; round: number; seed: number };
    const runs = dirs.map((d) => {
      const path = join(runsDir, d);
      const eps = lines(join(path, "episodes.jsonl")) as unknown as Ep[];
      const evalDir = join(path, "eval");
      const evalFiles = readdirSync(evalDir).filter((f) => /^\d{4}-.*\.jsonl$/.test(f));
      const held = evalFiles.flatMap((f) => lines(join(evalDir, f)) as unknown as Ep[]);
      return { d, eps, held, cfg: parseYaml(readFileSync(join(path, "config.yaml"), "utf8")) as Record<string, unknown> };
    });
    for (const r of runs) expect(new Set(r.eps.map((e) => e.id)).size).toBe(r.eps.length);
    const streamSeeds = (r: (typeof runs)[number]) =>
      r.eps
        .filter((e) => e.phase === "stream")
        .map((e) => `${e.round}:${e.seed}`)
        .sort();
    for (const r of runs) expect(streamSeeds(r)).toEqual(streamSeeds(runs[0]!));
    const held = [...new Set(runs[0]!.held.map((e) => e.seed))].sort();
    expect(held).toHaveLength(2);
    for (const r of runs) {
      expect([...new Set(r.held.map((e) => e.seed))].sort()).toEqual(held);
      for (const s of held) expect(runs.every((x) => x.eps.every((e) => e.seed !== s))).toBe(true);
    }
    const c1 = runs.filter((r) => r.d.startsWith("c1_"));
    expect(c1.map((r) => r.cfg.seed)).toEqual([0, 1, 2]);
    expect({ ...c1[1]!.cfg, seed: 0 }).toEqual(c1[0]!.cfg);
    expect(runs.find((r) => r.d.startsWith("c4_"))!.cfg).toMatchObject({ init: "online", retriever: { topSkills: 6 }, seeds: { offset: 0 } });

    // Results: every run, every figure with its n, Δ against c1, the plot as SVG and PNG.
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
      cells: {
        id: string;
        runs: unknown[];
        levels: { stream: { runs: number; seeds: number }; vsBaseline?: { stream: { n: number; unit: string; seeds: number } } }[];
      }[];
    };
    expect(results.cells.map((c) => [c.id, c.runs.length])).toEqual([
      ["c1", 3],
      ["c2", 3],
      ["c3", 3],
      ["c4", 3],
    ]);
    expect(results.cells[0]!.levels[0]!.stream).toMatchObject({ runs: 3, seeds: 2 });
    // Δ is bootstrapped over the 3 runs (the independent unit), each run's 2 seeds averaged first.
    expect(results.cells[1]!.levels[0]!.vsBaseline!.stream).toMatchObject({ n: 3, unit: "run", seeds: 6 });
    const md = readFileSync(join(out, "results.md"), "utf8");
    expect(md).toMatch(/\(n = 3 × 2\)/);
    expect(md).toContain("c2 (init=off2on, retriever.topSkills=6)");
    expect(readFileSync(join(out, "results.csv"), "utf8").trim().split("\n")).toHaveLength(13);
    expect(readFileSync(join(out, "success.svg"), "utf8")).toMatch(/^<svg/);
    expect(readFileSync(join(out, "success.png")).subarray(1, 4).toString()).toBe("PNG");
    expect(second.stdout).toMatch(/^cell +learning % +held-out % +turns +Δ learning vs c1 +Δ held-out vs c1$/m);
    // The whole grid as one inspect report, every run in it.
    const html = readFileSync(join(out, "report.html"), "utf8");
    for (const run of readdirSync(join(out, "runs")).filter((n) => !n.startsWith("."))) expect(html).toContain(run);

    // A third time: nothing left to do, no child process started; a different grid in the same folder is refused.
    const [again, other] = [await hexa(args), await hexa(["compare", cfg, "--grid", "init=off2on,online", "--runs", "3", "--heldout", "2", "--out", out])];
    expect(again.status, again.stderr).toBe(0);
    expect(lines(join(out, "compare-log.jsonl"))).toHaveLength(log.length);
    expect(other.status).toBe(2);
    expect(other.stderr).toMatch(/compare.json: this folder holds another comparison \(changed: grid/);
    expect(statSync(join(out, "results.md")).size).toBeGreaterThan(0);
  }, 900_000);

  it("a grid through the local OpenAI-compatible server: the hexa actor and the LLM evolver, 2 cells × 1 run; a progress line per episode from the first one on, the table within 100 columns", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const cfg = join(root, "llm.yaml");
      const endpoint = `{model: m, baseURL: ${JSON.stringify(server.url)}, maxRetries: 0, timeoutMs: 5000}`;
      writeFileSync(
        cfg,
        `levels: [two_body_problem]\nagent: hexa\nevolver: llm\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\nllm: {actor: ${endpoint}, evolver: ${endpoint}}\n`,
      );
      const miss = { text: "Commit.", toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }] };
      const say = (v: unknown) => ({ text: JSON.stringify(v) });
      const principle = { principle: "Drop the red ball onto the blue one from high up.", when_to_apply: "the blue ball rests on a ledge", sources: [] };
      const cell = [
        miss, // the offline ReAct episode: a failure, so no contrastive pass, the failures pass gives both entries
        say({
          mistakes: [{ description: "Committed a corner ball", root_cause: "assumed it rolls", correction: "place it above the blue ball", sources: [] }],
          partial_skills: [{ title: "Drop from high", ...principle }],
        }),
        miss, // round 1
        say({
          ops: [
            { op: "keep", id: "s0_1" },
            { op: "keep", id: "m0_1" },
          ],
        }),
        miss, // the held-out seed with the frozen bank
      ];
      server.push(...cell, ...cell);
      const out = join(root, "cmp");
      const r = await hexa(["compare", cfg, "--grid", "retriever.topSkills=0,6", "--runs", "1", "--heldout", "1", "--out", out], {
        ...ENV,
        HEXA_ACTOR_API_KEY: "k",
        HEXA_EVOLVER_API_KEY: "k",
      });
      expect(r.status, r.stderr).toBe(0);
      expect(server.requests).toHaveLength(10);
      // c1 shows no skills to the actor in round 1; c2 shows the distilled one.
      expect(String(server.requests[2]!.body.messages[0]!.content)).not.toContain("Drop from high");
      expect(String(server.requests[7]!.body.messages[0]!.content)).toContain("Drop from high");
      const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as {
        cells: { tokens: { total: number }; levels: { heldOut: { runs: number; seeds: number } }[] }[];
      };
      expect(results.cells).toHaveLength(2);
      // 5 calls per cell at the server's 10 + 5 tokens each.
      expect(results.cells.map((c) => c.tokens.total)).toEqual([75, 75]);
      expect(results.cells[1]!.levels[0]!.heldOut).toMatchObject({ runs: 1, seeds: 1 });

      // Each cell: 1 offline + 1 stream episode, then 1 held-out.
      const err = r.stderr.split("\n");
      // After the cost forecast (the model roles have no prices here), the plan.
      expect(r.stderr).toMatch(/^forecast: 6 episode\(s\)/);
      expect(r.stderr).toMatch(/^.*: 2 cell\(s\) × 1 run\(s\), 6 episodes in all, /m);
      const bar = err.flatMap((l, i) => (/^\[\d+\/6\] (offline|round \d+): \d+ success/.test(l) ? [i] : []));
      const firstDone = err.findIndex((l) => / done: 1 of 2 runs/.test(l));
      // The first look may find the child a few episodes in: the bar starts within the first run.
      expect(err[bar[0]!], r.stderr).toMatch(/^\[[1-3]\/6\] (offline|round 1)/);
      expect(bar[0], r.stderr).toBeLessThan(firstDone);
      expect(err[bar.at(-1)!], r.stderr).toMatch(/^\[6\/6\] /);
      const table = r.stdout.split("\n");
      expect(table.filter((l) => l.length > 100 && !/^(results|plot): /.test(l))).toEqual([]);
      expect(table, r.stdout).toContain("  c2  retriever.topSkills=6");
      expect(r.stdout).toMatch(/^two_body_problem:\ncell +learning %/m);
    } finally {
      await server.close();
    }
  }, 600_000);
});
