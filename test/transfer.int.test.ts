import { createAppContext } from "../src/app/context.ts";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderSkillBlock, RetrieverConfig } from "../agents/retriever.ts";
import { auditSynthesis } from "../agents/synthesiser-audit.ts";
import { regionOf } from "../levels/interphyre/heuristic/evolver.ts";
import { rewardSearchFamily } from "../levels/reward-search/family.ts";
import { designOf } from "../levels/reward-search/heuristic/evolver.ts";
import { readSource, transferBank } from "../src/cli/transfer.ts";
import { armConfig, resultTable } from "../src/cli/transfer-eval.ts";
import { parseRunConfig } from "../src/loop/run-config.ts";
import { parse as parseYaml } from "yaml";
import { ConfigError, InvariantError } from "../src/errors.ts";
import type { Bank } from "../src/store/bank.ts";
import type { LevelFamily } from "../src/family/family.ts";
import { readShippedBank } from "../src/store/shipped-bank.ts";
import { TransferredBank } from "../src/store/transfer-bank.ts";
import { startFakeOpenAI, type FakeOpenAI } from "./support/fake-openai-server.ts";
import { spawnHexa, type Out } from "./support/hexa-cli.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/** `hexa transfer` (docs/spec/method.md §6): the pipeline in-process, and the real CLI in a child process. */

const tmp = () => mkdtempSync(join(tmpdir(), "hexa-transfer-"));
const interphyre = families.get("interphyre");

/** Children still running when the file ends (a filtered or aborted run): each is its own process group, ended with its `hexa run` children. */
const running = new Set<number>();
afterAll(() => running.forEach((pid) => process.kill(-pid, "SIGTERM")));

const hexa = (args: string[]): Promise<Out> => {
  const { child, done } = spawnHexa(args, { detached: true });
  if (child.pid) running.add(child.pid);
  return done.finally(() => child.pid && running.delete(child.pid));
};

// The end-to-end heuristic transfer (docs/spec/method.md §6: the bank synthesised, then played frozen beside the
// baseline on the same seeds), started when the file loads (it takes about a minute here).
const e2eDir = tmp();
const e2e = hexa([
  "transfer",
  "--from",
  "two_body_problem",
  "--from",
  "down_to_earth",
  "--to",
  "catapult",
  "--synthesiser",
  "heuristic",
  "--eval-seeds",
  "3",
  "--baseline",
  "heuristic",
  "--out",
  join(e2eDir, "bank.json"),
]);

const sources = () => ["two_body_problem", "down_to_earth"].map((l) => readSource(families, l, interphyre));

describe("the Interphyre heuristic synthesiser", () => {
  it("maps regions relative to objects the target has, with the audit's weight rule", async () => {
    const out = join(tmp(), "bank.json");
    const { bank } = await transferBank({ family: interphyre, target: "catapult", sources: sources(), synthesiser: "heuristic", out, now: new Date(0) });
    expect(bank.skills.length).toBeGreaterThanOrEqual(6);
    expect(bank.skills.every((s) => s.sourceType === "transfer" && regionOf(s)?.relativeTo === "green_ball")).toBe(true);
    // Every weight ≥ 0.7 cites two source levels; the single-source ones were capped and say so.
    for (const s of bank.skills) {
      const row = bank.transfer.audit.find((r) => r.id === s.id)!;
      const levels = new Set(row.cites.map((c) => c.level));
      if (s.weight >= 0.7) expect(levels.size).toBe(2);
      else expect(row.flags.some((f) => f.kind === "weight_capped") || s.weight < 0.7).toBe(true);
    }
    expect(bank.transfer.audit.some((r) => r.flags.some((f) => f.kind === "weight_capped"))).toBe(true);
    // No numbers and no foreign objects in the text: the regions ride in the payload.
    expect(bank.transfer.audit.flatMap((r) => r.flags).filter((f) => f.kind !== "weight_capped")).toEqual([]);
    expect(bank.transfer).toMatchObject({ synthesiser: { kind: "heuristic", model: "heuristic (no LLM)" }, promptHash: null, selection: "all source entries" });
    // A shippable bank: offline.banks reads it; the actor sees the transferred-bank heading (docs/spec/method.md §1.3).
    const shipped = readShippedBank(out);
    expect(shipped.level).toBe("catapult");
    expect(renderSkillBlock(shipped, RetrieverConfig.parse({}))).toMatch(/^## Skills transferred from other levels/);
  });

  it("transfers nothing when no source region refers to an object of the target", async () => {
    const family: LevelFamily = {
      ...interphyre,
      checks: { ...interphyre.checks, objectsOf: () => ["red_herring"] },
      heuristics: { ...interphyre.heuristics!, synthesise: () => ({ entries: [], citations: {} }) },
    };
    const out = join(tmp(), "bank.json");
    await expect(transferBank({ family, target: "catapult", sources: sources(), synthesiser: "heuristic", out, now: new Date(0) })).rejects.toThrow(
      /catapult: nothing transfers from two_body_problem, down_to_earth/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("refuses bad sources with the fix", () => {
    expect(() => readSource(families, "no_such_level", interphyre)).toThrow(ConfigError);
    expect(() => readSource(families, "keyhole", interphyre)).toThrow(/no shipped bank for keyhole in skills\/banks\/; give --from keyhole=runs\/<id>/);
    expect(() => readSource(families, "catapult=skills/banks/down_to_earth.heuristic.json", interphyre)).toThrow(
      /the bank file is for down_to_earth, not catapult/,
    );
  });
});

describe("the evaluation arms", () => {
  it("are valid run configs: Offline × Static with the bank, and the baseline on the same seeds", () => {
    const base = parseYaml(readFileSync("configs/paper-catapult.yaml", "utf8")) as Record<string, unknown>;
    const plan = {
      dir: "d",
      bankFile: "d/bank.json",
      target: "catapult",
      family: "interphyre",
      seeds: 20,
      seedOffset: 60,
      agent: "hexa" as const,
      baseline: "react" as const,
      base,
    };
    const bank = parseRunConfig(armConfig(plan, "bank"), "bank", families.all());
    const react = parseRunConfig(armConfig(plan, "baseline"), "baseline", families.all());
    expect([bank.agent, bank.init, bank.update, bank.offline.banks, bank.rounds, bank.episodesPerRound, bank.seeds.offset, bank.retriever.topSkills]).toEqual([
      "hexa",
      "offline",
      "static",
      ["d/bank.json"],
      1,
      20,
      60,
      6,
    ]);
    expect([react.agent, react.levels, react.episodesPerRound, react.seeds.offset, react.actor.maxTurns]).toEqual(["react", ["catapult"], 20, 60, 25]);
    const none = parseRunConfig(armConfig({ ...plan, agent: "heuristic", baseline: "heuristic", base: {} }, "baseline"), "baseline", families.all());
    expect([none.agent, none.retriever.topSkills, none.retriever.topMistakes]).toEqual(["heuristic", 0, 0]);
  });

  it("keep a reward-search config's training budgets in both arms, and the table shows the mean F beside success", () => {
    const base = parseYaml(readFileSync("configs/reward-transfer-sources.yaml", "utf8")) as Record<string, unknown>;
    const plan = {
      dir: "d",
      bankFile: "d/bank.json",
      target: "acrobot",
      family: "reward-search",
      seeds: 10,
      seedOffset: 60,
      agent: "heuristic" as const,
      baseline: "heuristic" as const,
      base,
    };
    for (const arm of ["bank", "baseline"] as const) {
      const c = parseRunConfig(armConfig(plan, arm), arm, families.all());
      expect([c.family, c.levels, c.actor.maxTurns, c.seeds.offset, c.episodesPerRound]).toEqual(["reward-search", ["acrobot"], 4, 60, 10]);
      expect((c as Record<string, unknown>).rewardSearch).toMatchObject({ trainSteps: 10000, finishSteps: 40000 });
    }
    const row = { arm: "bank", agent: "heuristic + transferred bank", successes: 4, episodes: 10, meanTurns: 4, run: "r" };
    expect(
      resultTable("acrobot", [
        { ...row, meanScore: -265.6667 },
        { ...row, arm: "baseline", agent: "heuristic (no bank)", successes: 6, meanScore: -148.0333 },
      ]),
    ).toBe(
      [
        "acrobot, same seeds for both arms",
        "arm                           success           mean turns  mean score  n",
        "heuristic + transferred bank  4/10 40%          4.0         -265.67     10",
        "heuristic (no bank)           6/10 60%          4.0         -148.03     10",
      ].join("\n"),
    );
    // Interphyre records no score: no column.
    expect(resultTable("catapult", [row]).split("\n")[1]).toBe("arm                           success           mean turns  n");
  });
});

describe("the reward-search heuristic synthesiser (cartpole → cartpole_hold_x1)", () => {
  const family = rewardSearchFamily(() => {
    throw new InvariantError("no trainer is needed to synthesise");
  });
  const common = { sourceSeeds: [1], generation: 3, parents: [], evidence: { sumR: 2, count: 2 } };
  const cartpole: Bank = {
    skills: [
      {
        kind: "skill",
        id: "s1_1",
        ...common,
        weight: 0.9,
        title: "t",
        principle: "p",
        whenToApply: "w",
        sourceType: "contrastive",
        payload: { design: { alive: 1, upright: 0.5, centre: 0.1 } },
      },
      {
        kind: "skill",
        id: "s2_1",
        ...common,
        weight: 0.6,
        title: "t",
        principle: "p",
        whenToApply: "w",
        sourceType: "evolved",
        payload: { design: { alive: 3, calm: 0.05, near: 1 } },
      },
      {
        kind: "skill",
        id: "s2_2",
        ...common,
        weight: 0.8,
        title: "t",
        principle: "p",
        whenToApply: "w",
        sourceType: "evolved",
        payload: { design: { near: 1 } },
      },
    ],
    mistakes: [{ kind: "mistake", id: "m1_1", ...common, weight: 0.5, description: "d", rootCause: "r", correction: "c", payload: { design: { alive: 1 } } }],
  };

  it("keeps the terms the target's library has, clamped into its ranges, and caps single-source weights", () => {
    const s = family.heuristics!.synthesise!({ target: "cartpole_hold_x1", sources: [{ level: "cartpole", bank: cartpole }] });
    expect(s.entries.map((e) => [e.id, designOf(e)])).toEqual([
      ["ts1", { alive: 1, upright: 0.5, centre: 0.1 }],
      ["ts2", { alive: 2, calm: 0.05 }], // "near" is a lander term; alive 3 clamped into [0.5, 2]
      ["tm1", { alive: 1 }],
    ]);
    expect(s.citations).toEqual({
      ts1: [{ level: "cartpole", id: "s1_1" }],
      ts2: [{ level: "cartpole", id: "s2_1" }],
      tm1: [{ level: "cartpole", id: "m1_1" }],
    });
    const { bank, audit } = auditSynthesis(
      s.entries.map((entry) => ({ entry, cites: s.citations[entry.id]! })),
      {
        sources: [{ level: "cartpole", bank: cartpole }],
        targetDescription: family.describe("cartpole_hold_x1"),
        targetObjects: family.checks!.objectsOf!("cartpole_hold_x1"),
        familyObjects: family.listLevels().flatMap((l) => family.checks!.objectsOf!(l)),
        levelIds: family.listLevels(),
      },
    );
    expect(bank.skills.map((x) => x.weight)).toEqual([0.69, 0.6]);
    expect(audit.flatMap((r) => r.flags)).toEqual([{ kind: "weight_capped", from: 0.9, to: 0.69, levels: ["cartpole"] }]);
  });

  it("runs through the same pipeline: a bank file for the target, audited against its observation and info names", async () => {
    const file = join(tmp(), "cartpole.json");
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, level: "cartpole", source: "test", ...cartpole }));
    const out = join(tmp(), "bank.json");
    const { bank } = await transferBank({
      family,
      target: "cartpole_hold_x1",
      sources: [readSource(families, `cartpole=${file}`, family)],
      synthesiser: "heuristic",
      out,
      now: new Date(0),
    });
    expect([bank.level, bank.skills.length, bank.mistakes.length, bank.transfer.family]).toEqual(["cartpole_hold_x1", 2, 1, "reward-search"]);
    expect(readShippedBank(out).skills.map(designOf)).toEqual([
      { alive: 1, upright: 0.5, centre: 0.1 },
      { alive: 2, calm: 0.05 },
    ]);
  });
});

describe("the LLM synthesiser through hexa transfer", () => {
  let server: FakeOpenAI;
  let dir: string;
  let config: string;
  beforeAll(async () => {
    server = await startFakeOpenAI();
    dir = tmp();
    config = join(dir, "llm.yaml");
    writeFileSync(config, `llm:\n  synthesiser: {model: gpt-4.1-mini, baseURL: "${server.url}", apiKey: test, maxRetries: 0, timeoutMs: 5000}\n`);
  });
  afterAll(() => server.close());

  const cite = (level: string, id: string) => ({ level, id });
  const skill = (i: number, cites: object[], weight = 0.6) => ({
    title: `Strike the green ball toward the basket (${"abcdefghij"[i]})`,
    principle: "A ball that lands on the plank's right end flings the green ball upward and toward the blue ball.",
    when_to_apply: "When the green ball rests on the plank.",
    primitive: "a falling ball transfers momentum to what it strikes",
    weight,
    cites,
  });
  const answer = {
    skills: [
      skill(0, [cite("two_body_problem", "s0_1"), cite("down_to_earth", "s0_1")], 0.85),
      ...[1, 2, 3, 4, 5].map((i) => skill(i, [cite("down_to_earth", "s2_1")])),
    ],
    mistakes: [0, 1].map((i) => ({
      description: `The green ball only slides (${i})`,
      root_cause: "Assumed a light touch flings it.",
      correction: "Strike harder.",
      primitive: "momentum",
      weight: 0.5,
      cites: [cite("two_body_problem", "s3_1")],
    })),
  };

  it("writes an audited bank with provenance (model, prompt hash, sources)", async () => {
    server.push({ text: JSON.stringify(answer) });
    const out = join(dir, "ok", "bank.json");
    const r = await hexa([
      "transfer",
      "--from",
      "two_body_problem",
      "--from",
      "down_to_earth",
      "--to",
      "catapult",
      "--config",
      config,
      "--eval-seeds",
      "0",
      "--out",
      out,
    ]);
    // The test server reports a fixed, small input count, which hexa warns of as a possibly cut context.
    expect(r.stderr.replace(/^warning: .*\n/gm, "")).toBe("transfer → catapult: two_body_problem (4 entries), down_to_earth (7 entries); synthesiser llm\n");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/transferred bank for catapult: 6 skills, 2 mistakes \(gpt-4\.1-mini\)/);
    const bank = TransferredBank.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(bank.transfer).toMatchObject({ synthesiser: { kind: "llm", model: "gpt-4.1-mini" }, target: "catapult", family: "interphyre" });
    expect(bank.transfer.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(bank.transfer.sources.map((s) => [s.level, s.entries, s.shown])).toEqual([
      ["two_body_problem", 4, 4],
      ["down_to_earth", 7, 7],
    ]);
    expect(bank.skills[0]!.weight).toBe(0.85);
    expect(existsSync(join(dir, "ok", "llm-log.jsonl"))).toBe(true);
  });

  it("lets Chroma pick the source entries when they exceed --prompt-entries", async () => {
    server.push({ text: JSON.stringify(answer) });
    const withIndex = join(dir, "chroma.yaml");
    writeFileSync(withIndex, `${readFileSync(config, "utf8")}skillIndex: {dataDir: "${join(dir, "chroma")}"}\n`);
    const out = join(dir, "picked", "bank.json");
    const r = await hexa([
      "transfer",
      "--from",
      "two_body_problem",
      "--from",
      "down_to_earth",
      "--to",
      "catapult",
      "--config",
      withIndex,
      "--eval-seeds",
      "0",
      "--prompt-entries",
      "5",
      "--out",
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const bank = TransferredBank.parse(JSON.parse(readFileSync(out, "utf8")));
    expect(bank.transfer.selection).toBe("the 5 entries most similar to the target description (Chroma)");
    expect(bank.transfer.sources.map((s) => s.entries)).toEqual([4, 7]);
    expect(bank.transfer.sources.reduce((n, s) => n + s.shown, 0)).toBe(5);
    expect(bank.transfer.sources.every((s) => s.shown >= 1)).toBe(true);
    const prompt = String(server.requests.at(-1)!.body.messages[1]!.content);
    expect(prompt.match(/^- \[s\d+_\d+\] skill/gm)).toHaveLength(5);
  }, 120_000);

  it("fails clearly after malformed JSON twice and writes no bank", async () => {
    server.push({ text: '{ "skills": [ oops' }, { text: "still {not json" });
    const out = join(dir, "bad", "bank.json");
    const r = await hexa([
      "transfer",
      "--from",
      "two_body_problem",
      "--from",
      "down_to_earth",
      "--to",
      "catapult",
      "--config",
      config,
      "--eval-seeds",
      "0",
      "--out",
      out,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /hexa: llm\.synthesiser: structured output failed after 2 attempt\(s\): the answer is not JSON .*; nothing was written .*--synthesiser heuristic/,
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe("hexa transfer end to end (heuristic synthesiser, no LLM)", () => {
  it("writes the bank, plays it frozen beside the baseline on the same seeds, and prints the table", async () => {
    const r = await e2e;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/transferred bank for catapult: \d+ skills, 0 mistakes \(heuristic \(no LLM\)\)/);
    expect(r.stdout).toMatch(/heuristic \+ transferred bank\s+\d\/3 \d+%\s+[\d.]+\s+3\n/);
    expect(r.stdout).toMatch(/heuristic \(no bank\)\s+\d\/3 \d+%\s+[\d.]+\s+3\n/);
    const bank = TransferredBank.parse(JSON.parse(readFileSync(join(e2eDir, "bank.json"), "utf8")));
    expect(bank.transfer.sources.map((s) => s.level)).toEqual(["two_body_problem", "down_to_earth"]);
    // Both arms played the same three target seeds.
    const seedsOf = (arm: string) => {
      const runs = join(e2eDir, "eval", arm);
      const [id] = readdirSync(runs);
      return readFileSync(join(runs, id!, "episodes.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { seed: number }).seed)
        .sort();
    };
    expect(seedsOf("bank")).toHaveLength(3);
    expect(seedsOf("bank")).toEqual(seedsOf("baseline"));
    // A run directory is a source too: its final bank.
    const runDir = join(e2eDir, "eval", "bank", readdirSync(join(e2eDir, "eval", "bank"))[0]!);
    expect(readSource(families, `catapult=${runDir}`, interphyre).bank.skills.map((s) => s.id)).toEqual(bank.skills.map((s) => `shipped_${s.id}`));
  }, 400_000);
});
