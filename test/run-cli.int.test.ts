import { createAppContext } from "../src/app/context.ts";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseRunConfig } from "../src/loop/run-config.ts";
import { startFakeOpenAI } from "./support/fake-openai-server.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/**
 * `hexa run`, `hexa eval` and `hexa bank` as a user runs them: the real CLI in a child process, on the
 * heuristic quickstart (no model, no network). One quickstart run is shared; it starts when the file loads,
 * so the error cases (which never need it) run on the other core meanwhile.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** A quickstart-sized run on two fast levels (the README's quickstart itself is played by the inspect tests). */
const QUICKSTART = "test/fixtures/two-levels.yaml";
const ENV = (() => {
  // The commands hexa prints read as a linked `hexa` prints them (src/cli/invocation.ts).
  const env: NodeJS.ProcessEnv = { ...process.env, HEXA_LAUNCHER: "hexa" };
  delete env.CHROMA_URL; // the index tests start their own embedded server
  return env;
})();

interface Out {
  status: number | null;
  stdout: string;
  stderr: string;
}

const hexa = (args: string[], env: NodeJS.ProcessEnv = ENV): Promise<Out> =>
  new Promise((ok, fail) => {
    const child = spawn(process.execPath, ["bin/hexa.js", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", fail);
    child.once("close", (status) => ok({ status, stdout, stderr }));
  });

const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-run-cli-"));
  made.push(dir);
  return dir;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const lines = (path: string): unknown[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Every file under dir with its contents, keyed by relative path (folders as "<dir>"): a before/after fingerprint. */
const tree = (dir: string, skip: readonly string[] = []): Record<string, string> => {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (skip.includes(rel)) continue;
      if (statSync(p).isDirectory()) {
        out[rel] = "<dir>";
        walk(p);
      } else out[rel] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
};

interface Episode {
  id: string;
  phase: string;
  level: string;
  seed: number;
  bankRound: number;
  retrieved: string[];
  trajectory: { success: boolean; turns: number; steps: { thought: string; tool: string }[] };
}
interface Entry {
  id: string;
  title?: string;
}
interface Snapshot {
  round: number;
  banks: Record<string, { skills: Entry[]; mistakes: Entry[] }>;
}

const quickRuns = join(tmp(), "runs");
const quickstart = hexa(["run", QUICKSTART, "--runs-dir", quickRuns]);
const quickCfg = parseRunConfig(parseYaml(readFileSync(join(ROOT, QUICKSTART), "utf8")), QUICKSTART, families.all());

const config = (dir: string, name: string, body: string) => {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, body);
  return path;
};
// Small enough that a config wrongly accepted finishes in a second or two instead of a whole quickstart.
const TINY = "levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\n";

const expectRefused = (r: Out, message: RegExp) => {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).toMatch(/^hexa: /m);
  expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
};
const entriesOf = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

describe.concurrent("hexa run: bad input is refused before anything is written; --print-config", () => {
  const cases: { name: string; yaml: string; message: RegExp }[] = [
    { name: "unknown top-level key", yaml: `${TINY}roundz: 3\n`, message: /roundz: unknown key; see hexa run --print-config/ },
    { name: "unknown nested key", yaml: `${TINY}bank: {maxSkill: 3}\n`, message: /bank\.maxSkill: unknown key/ },
    { name: "unknown key in a part's own slice", yaml: `${TINY}actor: {maxTurn: 3}\n`, message: /actor\.maxTurn: unknown key/ },
    { name: "wrong type", yaml: TINY.replace("rounds: 1", 'rounds: "three"'), message: /rounds: .*expected number, received string/ },
    { name: "unknown level", yaml: TINY.replace("[two_body_problem]", "[catapultz]"), message: /unknown level 'catapultz'; known: basket_case, catapult/ },
    {
      name: "offline init with an evolving update",
      yaml: `${TINY}init: offline\nupdate: evolving\n`,
      message: /update: offline initialisation freezes the bank \(got update evolving\); use update: static/,
    },
  ];
  it.each(cases)("$name", async ({ yaml, message }) => {
    const dir = tmp();
    const runs = join(dir, "runs");
    expectRefused(await hexa(["run", config(dir, "c", yaml), "--runs-dir", runs]), message);
    expect(entriesOf(runs)).toEqual([]);
  });

  it("a missing config file", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    expectRefused(await hexa(["run", join(dir, "nope.yaml"), "--runs-dir", runs]), /nope\.yaml: no such config file; see configs\//);
    expect(entriesOf(runs)).toEqual([]);
  });

  // Inputs the user must fix (style.md §11, §12): a `hexa:` error (rc 2) that names them, never a raw stack trace (rc 1) or a hang.
  it("a folder for a config: refused, naming it", async () => {
    expectRefused(await hexa(["run", "configs", "--runs-dir", join(tmp(), "runs")]), /configs: a folder, not a config file; name a YAML file/);
  });

  it("--runs-dir that is a file: refused, the file untouched", async () => {
    const dir = tmp();
    const file = join(dir, "a-file");
    writeFileSync(file, "x\n");
    const cfg = config(dir, "c", TINY);
    expectRefused(await hexa(["run", cfg, "--runs-dir", file]), /a-file is a file, not a folder; give a folder for run directories \(--runs-dir\)/);
    expectRefused(await hexa(["run", cfg, "--runs-dir", join(file, "runs")]), /a-file is a file, not a folder/);
    expect(readFileSync(file, "utf8")).toBe("x\n");
  });

  it("--runs-dir under /proc (a recursive mkdir there never returns) or where no folder may be made: refused", async () => {
    const cfg = config(tmp(), "c", TINY);
    expectRefused(
      await hexa(["run", cfg, "--runs-dir", "/proc/hexa-runs"]),
      /^hexa: \/proc\/hexa-runs: cannot mkdir \(.*\); check that the runs folder \(--runs-dir\) exists, is writable and has space/m,
    );
    expectRefused(
      await hexa(["run", cfg, "--runs-dir", "/sys/hexa-runs"]),
      /^hexa: \/sys\/hexa-runs: cannot mkdir \((operation not permitted|permission denied)/m,
    );
  });

  it("a 300-character name, .inf and .nan: refused, showing the real value", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    expectRefused(
      await hexa(["run", config(dir, "long", `${TINY}name: ${"a".repeat(300)}\n`), "--runs-dir", runs]),
      /name: at most 100 characters .*\(got "a{99}… \(302 characters\)\)/,
    );
    expectRefused(await hexa(["run", config(dir, "inf", TINY.replace("rounds: 1", "rounds: .inf")), "--runs-dir", runs]), /rounds: .*\(got Infinity\)/);
    expectRefused(await hexa(["run", config(dir, "nan", TINY.replace("rounds: 1", "rounds: .nan")), "--runs-dir", runs]), /rounds: .*\(got NaN\)/);
    expect(entriesOf(runs)).toEqual([]);
  });

  it("--resume of a directory that is not a run changes nothing in it", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    mkdirSync(join(dir, "banks"));
    writeFileSync(join(dir, "banks", "round-00.json"), "{}\n");
    const before = tree(dir);
    expectRefused(await hexa(["run", "--resume", dir]), /not a hexa run \(no run\.json\); give a directory made by hexa run/);
    expect(tree(dir)).toEqual(before);
  });

  // One refused run, checked by the two tests below.
  let unreachable: Promise<{ out: Out; runs: string }> | undefined;
  const refusedForChroma = () =>
    (unreachable ??= (async () => {
      const dir = tmp();
      const runs = join(dir, "runs");
      const out = await hexa(["run", config(dir, "c", `${TINY}skillIndex: {enabled: true}\n`), "--runs-dir", runs], {
        ...ENV,
        CHROMA_URL: "http://127.0.0.1:9",
      });
      return { out, runs };
    })());

  it("skillIndex enabled with a CHROMA_URL that does not answer: a clear error", async () => {
    const { out } = await refusedForChroma();
    expectRefused(out, /CHROMA_URL: no Chroma heartbeat at http:\/\/127\.0\.0\.1:9\/api\/v2\/heartbeat .*unset CHROMA_URL/);
  });

  it("skillIndex enabled with a CHROMA_URL that does not answer: nothing under the runs dir", async () => {
    const { runs } = await refusedForChroma();
    expect(entriesOf(runs)).toEqual([]);
  });

  it("--print-config without a config prints every default as YAML", async () => {
    const r = await hexa(["run", "--print-config"]);
    expect(r.status, r.stderr).toBe(0);
    const printed = parseYaml(r.stdout);
    expect(printed).toEqual(parseRunConfig({ levels: ["<level>"] }, "defaults", families.all()));
    expect(printed).toMatchObject({ rounds: 17, episodesPerRound: 3, retriever: { topSkills: 6 }, actor: { maxTurns: 25 }, skillIndex: { enabled: false } });
  });

  it("--print-config with a config prints it resolved, defaults included", async () => {
    const r = await hexa(["run", QUICKSTART, "--print-config"]);
    expect(r.status, r.stderr).toBe(0);
    const printed = parseYaml(r.stdout);
    expect(printed).toEqual(quickCfg);
    expect(printed).toMatchObject({ levels: ["two_body_problem", "down_to_earth"], agent: "heuristic", rounds: 17, retriever: { topSkills: 6 } });
  });
});

// Concurrent: every test below only reads the run, except eval, which adds a file under eval/ that the others skip.
describe.concurrent("the quickstart run", () => {
  let out: Out;
  let run: string;
  let files: string[];
  let episodes: Episode[];
  let snapshots: Snapshot[];
  const levels = quickCfg.levels;
  const stream = () => episodes.filter((e) => e.phase === "stream");
  /** A copy of the run without eval/, for tests that must see a whole directory stay unchanged. */
  const copyRun = () => {
    const copy = join(tmp(), basename(run)); // a run's directory is named by its id
    cpSync(run, copy, { recursive: true, filter: (p) => relative(run, p).split(/[\\/]/)[0] !== "eval" });
    return copy;
  };
  const learnedSeeds = (level: string) => new Set(episodes.filter((e) => e.level === level).map((e) => e.seed));

  beforeAll(async () => {
    out = await quickstart;
    expect(out.status, out.stderr).toBe(0);
    const ids = readdirSync(quickRuns);
    expect(ids).toHaveLength(1);
    run = join(quickRuns, ids[0]!);
    files = readdirSync(run).sort(); // before hexa eval adds eval/
    episodes = lines(join(run, "episodes.jsonl")) as Episode[];
    snapshots = readdirSync(join(run, "banks"))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(run, "banks", f), "utf8")) as Snapshot);
  });

  describe("hexa run configs/quickstart.yaml", () => {
    it("writes the run files; a heuristic run makes no model calls, so no usage.jsonl and no llm-log.jsonl", () => {
      expect(files).toEqual(["bank-events.jsonl", "banks", "config.yaml", "episodes.jsonl", "metrics.json", "report.html", "run.json", "writers.jsonl"]);
      expect(readdirSync(join(run, "banks")).sort()).toEqual(Array.from({ length: 18 }, (_, i) => `round-${String(i).padStart(2, "0")}.json`));
      expect(JSON.parse(readFileSync(join(run, "run.json"), "utf8"))).toMatchObject({ kind: "hexa-run", id: runIdOf(run) });
      expect(parseYaml(readFileSync(join(run, "config.yaml"), "utf8"))).toEqual(quickCfg);
      expect(Object.keys(JSON.parse(readFileSync(join(run, "metrics.json"), "utf8")).levels)).toEqual(levels);
      // 5 offline episodes and 17 rounds × 3 stream episodes per level.
      expect(episodes.filter((e) => e.phase === "offline")).toHaveLength(5 * levels.length);
      expect(stream()).toHaveLength(17 * 3 * levels.length);
    });

    it("says on stdout that it ran the heuristic agent without an LLM", () => {
      expect(out.stdout).toMatch(/heuristic experimentalist, no LLM/);
      expect(out.stdout).toMatch(/tokens 0 \(0 calls\), cost \$0\.0000/);
      expect(out.stdout).toContain(`held-out check: hexa eval ${run}`);
      for (const level of levels) expect(out.stdout).toMatch(new RegExp(`^${level}\\s+\\d+/51 \\d+%`, "m"));
    });

    it("ends with a non-empty bank on every level", () => {
      const last = snapshots.at(-1)!;
      expect(last.round).toBe(17);
      for (const level of levels) expect(last.banks[level]!.skills.length).toBeGreaterThan(0);
    });

    it("shows each stream episode its bank, and the heuristic actor places the ball from the skills' hints", () => {
      for (const e of stream()) {
        const bank = snapshots[e.bankRound]!.banks[e.level]!;
        const ids = [...bank.skills, ...bank.mistakes].map((x) => x.id);
        if (ids.length === 0) continue;
        expect(e.retrieved.length, e.id).toBeGreaterThan(0);
        expect(ids, e.id).toEqual(expect.arrayContaining(e.retrieved));
        // "hint N region" names the N-th region hint taken from the retrieved skills (levels/interphyre/heuristic/hints.ts).
        for (const s of e.trajectory.steps) {
          const n = /hint (\d+) region/.exec(s.thought)?.[1];
          if (n) expect(Number(n), e.id).toBeLessThanOrEqual(e.retrieved.length);
        }
      }
      const hinted = stream().filter((e) => e.trajectory.steps.some((s) => /hint \d+ region/.test(s.thought)));
      // A hint whose every placement overlaps an object in that scene is skipped, so not quite all of them.
      expect(hinted.length).toBeGreaterThanOrEqual(0.9 * stream().length);
      const offline = episodes.filter((e) => e.phase === "offline");
      expect(offline.every((e) => e.retrieved.length === 0 && !e.trajectory.steps.some((s) => /hint/.test(s.thought)))).toBe(true);
    });
  });

  describe("hexa bank", () => {
    it("show: the last bank of every level, entries by weight with their fields", async () => {
      const r = await hexa(["bank", "show", run]);
      expect(r.status, r.stderr).toBe(0);
      const last = snapshots.at(-1)!;
      for (const level of levels) {
        const bank = last.banks[level]!;
        expect(r.stdout).toContain(`${level}: bank after round 17 (${bank.skills.length} skills, ${bank.mistakes.length} mistakes)`);
        for (const s of bank.skills)
          expect(r.stdout).toMatch(new RegExp(`^  ${s.id}  weight \\d\\.\\d\\d  evidence \\d+ trajectories .*source seeds [\\d, ]+  parents `, "m"));
      }
      for (const field of ["title:", "principle:", "when:", "example:   Start at green_ball's initial centre plus ("]) expect(r.stdout).toContain(field);
      // The regions are typed payloads, not JSON in the text (docs/spec/interphyre.md §5.3).
      expect(r.stdout).not.toMatch(/hint: \{/);
    });

    it("show --level --round: the bank folded up to that round, as the round's snapshot has it", async () => {
      const r = await hexa(["bank", "show", run, "--level", "two_body_problem", "--round", "0"]);
      expect(r.status, r.stderr).toBe(0);
      const ids = [...r.stdout.matchAll(/^ {2}(\S+) {2}weight/gm)].map((m) => m[1]).sort();
      expect(ids).toEqual(snapshots[0]!.banks.two_body_problem!.skills.map((s) => s.id).sort());
      expect(r.stdout).not.toMatch(/^down_to_earth:/m);
      expectRefused(
        await hexa(["bank", "show", run, "--level", "catapult"]),
        /--level: not a level of this run \(got catapult\); use one of two_body_problem, down_to_earth/,
      );
    });

    it("history: one line per committed event, with round, type, ids and reason", async () => {
      const r = await hexa(["bank", "history", run]);
      expect(r.status, r.stderr).toBe(0);
      const events = (lines(join(run, "bank-events.jsonl")) as { event?: { type: string; reason: string } }[]).filter((l) => l.event);
      const printed = r.stdout.split("\n").filter((l) => /^r\d+\s+(add|merge|revise|reweight|prune|evolver_failure)\s/.test(l));
      expect(printed).toHaveLength(events.length);
      expect(printed[0]).toMatch(
        /^r0\s+add\s+s0_1 \(skill: Place the red ball near green_ball, offset \(-?\d+(\.\d+)?, -?\d+(\.\d+)?\) m, radius ≈ \d+(\.\d+)? \(two_body_problem\)\) — new region$/,
      );
      for (const level of levels) expect(r.stdout).toMatch(new RegExp(`^${level}: \\d+ events, committed through round 17$`, "m"));
    });

    it("reindex into an embedded Chroma server, then query it", async () => {
      const dataDir = join(tmp(), "chroma");
      const last = snapshots.at(-1)!;
      const n = levels.reduce((s, l) => s + last.banks[l]!.skills.length + last.banks[l]!.mistakes.length, 0);
      const r = await hexa(["bank", "reindex", run, "--data-dir", dataDir]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`${runIdOf(run)}: indexed ${n} entries`);
      expect(r.stdout).toMatch(/, final$/m);
      expect(r.stdout).toContain(`index: ${n} entries in all`);
      const q = await hexa(["bank", "query", "place the red ball", "--data-dir", dataDir, "--limit", "3"]);
      expect(q.status, q.stderr).toBe(0);
      const hits = q.stdout.trim().split("\n");
      expect(hits).toHaveLength(3);
      for (const h of hits)
        expect(h).toMatch(
          new RegExp(
            `^\\d\\.\\d{3}  skill +(two_body_problem|down_to_earth) +${escape(runIdOf(run))} \\(final\\) s\\d+_\\d+: Place the red ball near green_ball`,
          ),
        );
    });
  });

  describe("hexa run with models (the local OpenAI-compatible server)", () => {
    it("plays the hexa actor and the LLM evolver through the real client, logging every call and its usage in the run", async () => {
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
        server.push(
          miss, // the offline ReAct episode: a failure, so no contrastive pass, the failures pass gives both entries
          say({
            mistakes: [{ description: "Committed a corner ball", root_cause: "assumed it rolls", correction: "place it above the blue ball", sources: [] }],
            partial_skills: [{ title: "Drop from high", ...principle }],
          }),
          miss, // round 1 with the distilled bank
          say({
            ops: [
              { op: "keep", id: "s0_1" },
              { op: "keep", id: "m0_1" },
            ],
          }),
        );
        const r = await hexa(["run", cfg, "--runs-dir", join(root, "runs")], { ...ENV, HEXA_ACTOR_API_KEY: "k", HEXA_EVOLVER_API_KEY: "k" });
        expect(r.status, r.stderr).toBe(0);
        const run = join(root, "runs", readdirSync(join(root, "runs"))[0]!);
        expect(server.requests).toHaveLength(4);
        expect(String(server.requests[2]!.body.messages[0]!.content)).toContain("Drop from high");
        const usage = lines(join(run, "usage.jsonl")) as { role: string; model: string }[];
        expect(usage.map((u) => u.role)).toEqual(["actor", "evolver", "actor", "evolver"]);
        expect(lines(join(run, "llm-log.jsonl"))).toHaveLength(4);
        const metrics = JSON.parse(readFileSync(join(run, "metrics.json"), "utf8")) as { usage: { total: { calls: number }; evolver: { calls: number } } };
        expect([metrics.usage.total.calls, metrics.usage.evolver.calls]).toEqual([4, 2]);
        expect(readFileSync(join(run, "config.yaml"), "utf8")).not.toMatch(/apiKey: k/);
      } finally {
        await server.close();
      }
    });
  });

  describe("hexa run with skillIndex.enabled", () => {
    it("indexes every level's bank in an embedded Chroma server as the run goes, final at the end", async () => {
      const root = tmp();
      const dataDir = join(root, "chroma");
      const cfg = join(root, "indexed.yaml");
      writeFileSync(
        cfg,
        `levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 2\nepisodesPerRound: 2\noffline: {episodes: 2}\nskillIndex: {enabled: true, dataDir: ${JSON.stringify(dataDir)}}\n`,
      );
      const r = await hexa(["run", cfg, "--runs-dir", join(root, "runs")]);
      expect(r.status, r.stderr).toBe(0);
      const [id] = readdirSync(join(root, "runs"));
      const bank = (
        JSON.parse(readFileSync(join(root, "runs", id!, "banks", "round-02.json"), "utf8")) as { banks: Record<string, { skills: { id: string }[] }> }
      ).banks.two_body_problem!;
      expect(bank.skills.length).toBeGreaterThan(0);
      const q = await hexa(["bank", "query", "place the red ball near green_ball", "--data-dir", dataDir, "--limit", "20", "--kind", "skill"]);
      expect(q.status, q.stderr).toBe(0);
      const hits = q.stdout
        .trim()
        .split("\n")
        .filter((l) => l.includes(id!));
      expect(hits.map((h) => /(s\d+_\d+):/.exec(h)![1]).sort()).toEqual(bank.skills.map((s) => s.id).sort());
      for (const h of hits) expect(h).toContain(`${id} (final)`);
    });
  });

  describe("hexa eval", () => {
    it("--count 3: plays 3 held-out seeds per level into one new eval file, and prints both figures", async () => {
      const before = tree(run, ["eval"]);
      const r = await hexa(["eval", run, "--count", "3"]);
      expect(r.status, r.stderr).toBe(0);
      expect(tree(run, ["eval"])).toEqual(before);
      const files = readdirSync(join(run, "eval"));
      expect(files).toHaveLength(1);
      const recs = lines(join(run, "eval", files[0]!)) as Episode[];
      expect(recs).toHaveLength(3 * levels.length);
      expect(r.stdout).toMatch(/agent heuristic \(heuristic, no LLM\)/);
      expect(r.stdout).toMatch(/^level\s+stream \(cumulative\)\s+held-out\s+seeds$/m);
      for (const level of levels) {
        const mine = recs.filter((e) => e.level === level);
        expect(mine.every((e) => e.phase === "eval" && !learnedSeeds(level).has(e.seed))).toBe(true);
        const played = stream().filter((e) => e.level === level);
        const k = played.filter((e) => e.trajectory.success).length;
        const held = mine.filter((e) => e.trajectory.success).length;
        const row = `^${level}\\s+${k}/${played.length} ${Math.round((100 * k) / played.length)}%, [\\d.]+ turns\\s+${held}/3 \\d+%, [\\d.]+ turns\\s+([\\d, ]+)$`;
        // The eval file holds episodes as they finished (the physics workers run them in parallel); the table lists the seeds.
        const printed = new RegExp(row, "m").exec(r.stdout)?.[1]?.split(", ").map(Number);
        expect(printed?.sort((a, b) => a - b)).toEqual(mine.map((e) => e.seed).sort((a, b) => a - b));
      }
      expect(r.stderr.split("\n").filter((l) => /^\[\d\/6\] \S+ seed \d+: (solved in|not solved)/.test(l))).toHaveLength(6);
    });

    it("--seeds with a seed the run learned from: refused, naming the seed", async () => {
      const seed = stream().find((e) => e.level === "two_body_problem")!.seed;
      const copy = copyRun();
      const before = tree(copy);
      expectRefused(await hexa(["eval", copy, "--seeds", `${seed},100000`]), new RegExp(`--seeds: ${seed} were seen while learning on two_body_problem`));
      expect(tree(copy)).toEqual(before);
    });

    it("--seeds with a seed that is not certified: refused, naming it", async () => {
      const copy = copyRun();
      const before = tree(copy);
      expectRefused(await hexa(["eval", copy, "--seeds", "999999"]), new RegExp(`--seeds: 999999 is not a vetted seed of ${levels[0]}`));
      expect(tree(copy)).toEqual(before);
    });

    it("a run directory it cannot write to: a hexa: message, for eval and for --resume", async () => {
      const copy = copyRun();
      writeFileSync(join(copy, "eval"), "in the way\n"); // eval/ cannot be made, as on a read-only run directory
      expectRefused(await hexa(["eval", copy, "--count", "1"]), /eval: cannot mkdir \(.*\); hexa eval writes its results under the run's eval\/ folder/);
      mkdirSync(join(copy, "run.lock")); // the lock cannot be taken
      expectRefused(await hexa(["run", "--resume", copy]), /run\.lock: a folder, where hexa keeps the lock file .*; remove it and resume again/);
    });

    it("refuses an unfinished run, telling the user to resume it, and changes none of its files", async () => {
      const copy = copyRun();
      const all = readFileSync(join(run, "episodes.jsonl"), "utf8").split("\n").filter(Boolean);
      writeFileSync(join(copy, "episodes.jsonl"), `${all.slice(0, -2).join("\n")}\n`);
      const before = tree(copy);
      expectRefused(
        await hexa(["eval", copy]),
        new RegExp(
          `the run is unfinished \\(got ${stream().length - 2} of ${stream().length} stream episodes\\); finish it first with hexa run --resume ${escape(copy)}`,
        ),
      );
      // The final update's commit line cut off, as a crash between the events and the commit would leave it.
      expect(tree(copy)).toEqual(before);
      writeFileSync(join(copy, "episodes.jsonl"), `${all.join("\n")}\n`);
      const bank = readFileSync(join(run, "bank-events.jsonl"), "utf8").split("\n").filter(Boolean);
      const lastLevel = (JSON.parse(bank.at(-1)!) as { level: string }).level;
      writeFileSync(join(copy, "bank-events.jsonl"), `${bank.slice(0, -1).join("\n")}\n`);
      const before2 = tree(copy);
      expectRefused(await hexa(["eval", copy]), new RegExp(`round 17 not committed on ${lastLevel}\\); finish it first`));
      expect(tree(copy)).toEqual(before2);
      expect(existsSync(join(copy, "eval"))).toBe(false);
    });
  });
});

function runIdOf(runPath: string): string {
  return runPath.split(/[\\/]/).at(-1)!;
}
function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
