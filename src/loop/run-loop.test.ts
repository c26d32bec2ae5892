import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest, type ScriptItem } from "../../test/support/fake-openai-server.ts";
import { createRoleModel } from "../llm/role-model.ts";
import { applyEvent, EMPTY_BANK, foldEvents, type Bank, type BankEntry, type BankEvent } from "../store/bank.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { episodeId, RunDir } from "../store/run-dir.ts";
import type { BankSnapshot, EpisodeRecord, UsageLine } from "../store/run-records.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import type { Metrics } from "./metrics.ts";
import { parseRunConfig, runConfigYaml, type RunConfig } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";
import { schedule } from "./schedule.ts";

/**
 * The round loop end to end (docs/spec/method.md §10): the real ChatOpenAI client against two local OpenAI-compatible servers,
 * one scripting the actor's tool calls and one the evolver's JSON answers, on two_body_problem with R = 3
 * rounds of x = 2 seeds (stream seeds 0–5, offline seeds 6–7), for every init × update cell.
 */

const LEVEL = "two_body_problem";
const certified = readCertified(LEVEL)!;
const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const CAPS = { skills: 3, mistakes: 2 };

// ---------------------------------------------------------------------------------------------------------------
// The actor's script: each seed's episode has a fixed outcome, so r(τ) is known (docs/spec/method.md §2, T = 25).

type Outcome = "win1" | "win4" | "lose1" | "lose10";
const OUTCOME = {
  win1: { success: true, steps: 1, r: 1, category: "fast_success" },
  win4: { success: true, steps: 4, r: 0.75, category: "success" },
  lose1: { success: false, steps: 1, r: -0.75, category: "early_abandon_failure" },
  lose10: { success: false, steps: 10, r: -0.5, category: "exploratory_failure" },
} as const;
/** offline: 6, 7; round 1: 0, 1; round 2: 2, 3; round 3: 4, 5. Each batch has one success and one failure. */
const OUTCOMES: Record<number, Outcome> = { 6: "win1", 7: "lose1", 0: "win4", 1: "lose1", 2: "win1", 3: "lose10", 4: "win1", 5: "lose1" };

const MISS = { x: -4.3, y: 4.3, radius: 0.1 };
const look: ScriptItem = { text: "Let me look at the scene.", toolCalls: [{ name: "get_level_state", args: {} }] };
const episodeScript = (outcome: Outcome, seed: number): ScriptItem[] => {
  const [x, y, radius] = certified.seeds.find((s) => s.seed === seed)!.solution;
  const win: ScriptItem = { text: "Drop it onto the blue ball.", toolCalls: [{ name: "simulate_action", args: { x, y, radius } }] };
  const lose: ScriptItem = { text: "Commit.", toolCalls: [{ name: "finish", args: MISS }] };
  switch (outcome) {
    case "win1":
      return [win];
    case "win4":
      return [look, look, look, win];
    case "lose1":
      return [lose];
    case "lose10":
      return [...Array.from({ length: 9 }, () => look), lose];
  }
};

// ---------------------------------------------------------------------------------------------------------------
// The evolver's answers.

const json = (v: unknown): ScriptItem => ({ text: JSON.stringify(v) });
const skill = (title: string, sources: string[] = []) => ({
  title,
  principle: "The red ball falls onto the blue ball and knocks it toward the green ball. A ball placed too low never gains the speed.",
  when_to_apply: "when the blue ball rests on a ledge above the green one",
  sources,
});
const mistake = (description: string, sources: string[] = []) => ({
  description,
  root_cause: "assumed the ball does not bounce",
  correction: "start higher above the blue ball",
  sources,
});
const entry = (title: string) => ({ kind: "skill", ...skill(title), sources: undefined });
const mistakeEntry = (description: string) => ({ kind: "mistake", ...mistake(description), sources: undefined });
const off = (seed: number) => episodeId("offline", LEVEL, 0, seed);
const st = (round: number, seed: number) => episodeId("stream", LEVEL, round, seed);

/** A standard distillation at round k: skills s{k}_1 (cites the win), s{k}_2 (uncited), partial s{k}_3 (cites the loss); mistake m{k}_1. */
const distilAnswers = (k: number, win: string, loss: string): ScriptItem[] => [
  json({ skills: [skill(`Skill R${k}-A`, [win]), skill(`Skill R${k}-B`)] }),
  json({ mistakes: [mistake(`Mistake R${k}-A`, [loss])], partial_skills: [skill(`Skill R${k}-P`, [loss])] }),
];
/** A distillation that fits the caps even next to the bank it replaces: skill s{k}_1 (cites the win), mistake m{k}_1. */
const smallDistil = (k: number, win: string, loss: string): ScriptItem[] => [
  json({ skills: [skill(`Skill R${k}-A`, [win])] }),
  json({ mistakes: [mistake(`Mistake R${k}-A`, [loss])] }),
];
const notJson = (text: string): ScriptItem => ({ text });

// ---------------------------------------------------------------------------------------------------------------
// Expected numbers, written out independently of src/store/bank-weights.ts (docs/spec/method.md §3).

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const skillW = (rs: readonly number[]) => Math.min(1, Math.max(0.1, (mean(rs) + 1) / 2));
const partialW = (rs: readonly number[]) => Math.min(0.5, skillW(rs));
const mistakeW = (n: number) => Math.min(1, Math.max(0.1, n / (n + 2)));
/** Rounded to 12 decimals so the same formula evaluated in another order compares equal. */
const q = (v: unknown) => (typeof v === "number" ? Math.round(v * 1e12) / 1e12 : v);

// ---------------------------------------------------------------------------------------------------------------
// Running one configuration.

type Update = "none" | "distil" | "replace" | "evolve" | "replace-failed" | "evolve-failed";

interface Cell {
  init: "offline" | "off2on" | "online";
  update: "static" | "replacement" | "evolving";
  rewardLabels?: boolean;
  outcomes?: Record<number, Outcome>;
  evolver: ScriptItem[];
  /** What update k (k = 0 the initial one, then after round k) did. */
  updates: [Update, Update, Update, Update];
  /** Evolver calls per update k, failed attempts included. */
  calls: [number, number, number, number];
  /** Whether the actor of round 1, 2, 3 played with a non-empty bank. */
  sees: [boolean, boolean, boolean];
}

interface Run {
  cell: Cell;
  cfg: RunConfig;
  dir: RunDir;
  actor: FakeOpenAI;
  evolver: FakeOpenAI;
  actorScripted: number;
  metrics: Metrics;
  episodes: EpisodeRecord[];
  events: BankEvent[];
  commits: { round: number; events: number }[];
  snapshots: BankSnapshot[];
  usage: UsageLine[];
  logs: string[];
}

const servers: FakeOpenAI[] = [];
const roots: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const play = async (cell: Cell): Promise<Run> => {
  const actor = await startFakeOpenAI();
  const evolver = await startFakeOpenAI(cell.evolver);
  servers.push(actor, evolver);
  const endpoint = (url: string) => ({ model: "gpt-4.1-mini", baseURL: url, apiKey: "test", maxRetries: 0, timeoutMs: 2000 });
  const cfg = parseRunConfig(
    {
      family: "interphyre",
      levels: [LEVEL],
      rounds: 3,
      episodesPerRound: 2,
      agent: "hexa",
      evolver: "llm",
      init: cell.init,
      update: cell.update,
      offline: { episodes: 2 },
      bank: { maxSkills: CAPS.skills, maxMistakes: CAPS.mistakes, rewardLabels: cell.rewardLabels ?? true },
      concurrency: 1,
      llm: { actor: endpoint(actor.url), evolver: endpoint(evolver.url) },
    },
    "run-loop.test",
  );
  const plan = schedule(cfg, family).get(LEVEL)!;
  const outcomes = { ...OUTCOMES, ...cell.outcomes };
  const script = [...plan.offline, ...plan.rounds.flat()].flatMap((seed) => episodeScript(outcomes[seed]!, seed));
  actor.push(...script);
  const root = mkdtempSync(join(tmpdir(), "hexa-loop-"));
  roots.push(root);
  const dir = RunDir.create(root, `${cell.init}-${cell.update}`, runConfigYaml(cfg), new Date());
  const deps = { env: {}, sleep: async () => {} };
  const logs: string[] = [];
  let clock = 0;
  const metrics = await runLoop(cfg, {
    family,
    dir,
    actorModel: createRoleModel("actor", cfg.llm, deps),
    evolverModel: createRoleModel("evolver", cfg.llm, deps),
    now: () => (clock += 5),
    log: (line) => logs.push(line),
  });
  const lines = readFileSync(dir.file("bank"), "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { commit?: { round: number; events: number } });
  return {
    cell,
    cfg,
    dir,
    actor,
    evolver,
    actorScripted: script.length,
    metrics,
    episodes: dir.episodes(),
    events: dir.bankLog().events.get(LEVEL) ?? [],
    commits: lines.flatMap((l) => (l.commit ? [{ round: l.commit.round, events: l.commit.events }] : [])),
    snapshots: dir.snapshots(),
    usage: dir.usage(),
    logs,
  };
};

// ---------------------------------------------------------------------------------------------------------------
// Reading a run.

const bankAt = (run: Run, round: number): Bank => run.snapshots.find((s) => s.round === round)!.banks[LEVEL]!;
const entries = (b: Bank): BankEntry[] => [...b.skills, ...b.mistakes];
const idsOf = (b: Bank) => entries(b).map((e) => e.id);
const textOf = (req: RecordedRequest, i: number) => String(req.body.messages.at(i)!.content);
/** The evolver's requests made for update k (usage lines and requests are both in call order). */
const evolverRequests = (run: Run, k: number): RecordedRequest[] => {
  const lines = run.usage.filter((u) => u.role === "evolver");
  return run.evolver.requests.filter((_, i) => lines[i]!.round === k);
};
const batchIds = (run: Run, k: number) =>
  run.episodes.filter((e) => (k === 0 ? e.phase === "offline" : e.phase === "stream" && e.round === k)).map((e) => e.id);
const rOf = (run: Run) => (id: string) => run.episodes.find((e) => e.id === id)!.r;
const written = (events: readonly BankEvent[]): BankEntry[] =>
  events.flatMap((e) => (e.type === "add" || e.type === "merge" || e.type === "revise" ? [e.entry] : []));
const project = (e: BankEvent): unknown[] => {
  switch (e.type) {
    case "add":
    case "merge":
    case "revise":
      return [e.type, e.entry.id, q(e.entry.weight)];
    case "reweight":
      return [e.type, e.id, q(e.weight)];
    case "prune":
      return [e.type, e.id, e.why];
    case "evolver_failure":
    case "lesson_added":
    case "lesson_tier_changed":
    case "lessons_merged":
      return [e.type];
  }
};
const isCapPrune = (e: BankEvent) => e.type === "prune" && e.why === "cap";
const newIdOf = (k: number) => (id: string) => id.startsWith(`s${k}_`) || id.startsWith(`m${k}_`);

// The contrastive and failures passes open with the counts of the runs they show (agents/evolver-prompt.ts).
const CONTRASTIVE = /^The runs below: [^\n]*\n\nCompare the /;
const FAILURES = /^The runs below: [^\n]*\n\nStudy these failed runs/;
const EVOLVE = /^Update the bank with the evidence of the last round/;
const RETRY = /^Your answer could not be used: /;

// ---------------------------------------------------------------------------------------------------------------
// What every configuration must satisfy.

const commonChecks = (get: () => Run) => {
  it("updates the bank exactly in the expected rounds, with one commit per update", () => {
    const run = get();
    const { cell } = run;
    expect(run.commits).toEqual([0, 1, 2, 3].map((round) => ({ round, events: run.events.filter((e) => e.round === round).length })));
    cell.updates.forEach((kind, k) => {
      const before = k === 0 ? EMPTY_BANK : bankAt(run, k - 1);
      const after = bankAt(run, k);
      const evs = run.events.filter((e) => e.round === k);
      const reqs = evolverRequests(run, k);
      expect(reqs, `evolver calls of update ${k}`).toHaveLength(cell.calls[k]!);
      const first = reqs[0] ? textOf(reqs[0], 1) : "";
      if (kind !== "none") for (const id of batchIds(run, k)) expect(first).toContain(`### trajectory ${id} · seed`);
      switch (kind) {
        case "none":
          expect(evs).toEqual([]);
          expect(after).toEqual(before);
          break;
        case "distil":
          expect(idsOf(before)).toEqual([]);
          expect(first).toMatch(CONTRASTIVE);
          expect(reqs.some((r) => FAILURES.test(textOf(r, 1)))).toBe(true);
          expect(evs.filter((e) => !isCapPrune(e)).every((e) => e.type === "add")).toBe(true);
          expect(idsOf(after).length).toBeGreaterThan(0);
          expect(idsOf(after).every(newIdOf(k))).toBe(true);
          break;
        case "replace": {
          const old = idsOf(before);
          expect(old.length).toBeGreaterThan(0);
          expect(first).toMatch(CONTRASTIVE);
          expect(evs.slice(0, old.length).map((e) => e.type === "prune" && [e.id, e.why])).toEqual(old.map((id) => [id, "replaced"]));
          expect(
            evs
              .slice(old.length)
              .filter((e) => !isCapPrune(e))
              .every((e) => e.type === "add"),
          ).toBe(true);
          expect(idsOf(after).length).toBeGreaterThan(0);
          expect(idsOf(after).every(newIdOf(k))).toBe(true);
          break;
        }
        case "evolve": {
          const old = new Set(idsOf(before));
          expect(first).toMatch(EVOLVE);
          for (const e of entries(before)) expect(first).toContain(`[${e.id}] ${e.kind}`);
          for (const s of before.skills) expect(first).toContain(`title: ${s.title}`);
          expect(evs.some((e) => e.type === "prune" && e.why === "replaced")).toBe(false);
          const fresh = new Set(
            written(evs)
              .map((e) => e.id)
              .filter((id) => !old.has(id)),
          );
          for (const e of evs) {
            if (e.type === "revise") expect(old.has(e.entry.id)).toBe(true); // revisions keep the id
            if (e.type === "reweight") expect(old.has(e.id)).toBe(true);
            if (e.type === "prune") expect(old.has(e.id) || (isCapPrune(e) && fresh.has(e.id))).toBe(true);
            if (e.type === "add" || e.type === "merge") expect(newIdOf(k)(e.entry.id)).toBe(true);
          }
          expect(
            idsOf(after)
              .filter((id) => !old.has(id))
              .every(newIdOf(k)),
          ).toBe(true);
          break;
        }
        case "replace-failed":
        case "evolve-failed":
          expect(first).toMatch(kind === "evolve-failed" ? EVOLVE : CONTRASTIVE);
          expect(reqs).toHaveLength(2);
          expect(textOf(reqs[1]!, -1)).toMatch(RETRY);
          expect(evs.map((e) => e.type)).toEqual(["evolver_failure"]);
          expect(evs[0]).toMatchObject({ error: expect.stringMatching(/structured output failed after 2 attempt\(s\)/) });
          expect(after).toEqual(before);
          expect(run.logs.some((l) => l.startsWith(`${LEVEL} round ${k}: bank kept (evolver failed: `))).toBe(true);
          break;
      }
    });
  });

  it("enforces the caps after every update, pruning the lightest with why 'cap'", () => {
    const run = get();
    for (const s of run.snapshots) {
      expect(s.banks[LEVEL]!.skills.length).toBeLessThanOrEqual(CAPS.skills);
      expect(s.banks[LEVEL]!.mistakes.length).toBeLessThanOrEqual(CAPS.mistakes);
    }
    for (const k of [0, 1, 2, 3]) {
      const evs = run.events.filter((e) => e.round === k);
      const caps = evs.filter(isCapPrune);
      if (!caps.length) continue;
      const full = evs.filter((e) => !isCapPrune(e)).reduce(applyEvent, k === 0 ? EMPTY_BANK : bankAt(run, k - 1));
      expect(evs.slice(-caps.length)).toEqual(caps); // the cap prunes come last
      for (const kind of ["skill", "mistake"] as const) {
        const all = entries(full).filter((e) => e.kind === kind);
        const pruned = new Set(caps.map((e) => (e.type === "prune" ? e.id : "")));
        const kept = all.filter((e) => !pruned.has(e.id));
        const gone = all.filter((e) => pruned.has(e.id));
        expect(kept.length).toBe(Math.min(all.length, kind === "skill" ? CAPS.skills : CAPS.mistakes));
        if (gone.length) expect(Math.max(...gone.map((e) => e.weight))).toBeLessThanOrEqual(Math.min(...kept.map((e) => e.weight)));
      }
    }
  });

  it("shows the actor the retrieved skill block exactly when the bank it played with was non-empty", () => {
    const run = get();
    const titles = [...new Set(written(run.events).flatMap((e) => (e.kind === "skill" ? [e.title] : [])))];
    const descriptions = [...new Set(written(run.events).flatMap((e) => (e.kind === "mistake" ? [e.description] : [])))];
    const outcomes = { ...OUTCOMES, ...run.cell.outcomes };
    let at = 0;
    const sees: boolean[] = [];
    for (const e of run.episodes) {
      const o = OUTCOME[outcomes[e.seed]!];
      expect(e.trajectory).toMatchObject({ success: o.success, agent: e.phase === "offline" ? "react" : "hexa", stopReason: o.success ? "success" : "finish" });
      expect(e.trajectory.steps).toHaveLength(o.steps);
      expect([e.r, e.category]).toEqual([o.r, o.category]);
      const reqs = run.actor.requests.slice(at, (at += e.trajectory.steps.length));
      const system = textOf(reqs[0]!, 0);
      expect(reqs.every((r) => textOf(r, 0) === system)).toBe(true);
      expect(run.usage.filter((u) => u.role === "actor" && u.phase === e.phase && u.round === e.round && u.seed === e.seed)).toHaveLength(reqs.length);
      // Offline episodes are plain ReAct runs without a bank; stream round r plays with the bank after round r − 1.
      expect(e.bankRound === null).toBe(e.phase === "offline");
      const bank = e.bankRound === null ? EMPTY_BANK : bankAt(run, e.bankRound);
      if (e.phase === "stream") {
        expect(e.bankRound).toBe(e.round - 1);
        if (e.seed === run.episodes.find((x) => x.phase === "stream" && x.round === e.round)!.seed) sees.push(idsOf(bank).length > 0);
      }
      expect([...e.retrieved].sort()).toEqual(idsOf(bank).sort()); // top-6 / top-4 ≥ the caps: everything is retrieved
      expect(system.includes("## Learned skills")).toBe(bank.skills.length > 0);
      expect(system.includes("## Common mistakes")).toBe(bank.mistakes.length > 0);
      for (const t of titles) expect(system.includes(t), `${e.id}: ${t}`).toBe(bank.skills.some((s) => s.title === t));
      for (const d of descriptions) expect(system.includes(d), `${e.id}: ${d}`).toBe(bank.mistakes.some((m) => m.description === d));
      for (const s of bank.skills) expect(system).toContain(`: ${s.title}] ${s.principle} (weight ${s.weight.toFixed(2)})`);
    }
    expect(at).toBe(run.actor.requests.length);
    expect(run.actor.requests).toHaveLength(run.actorScripted);
    expect(sees).toEqual(run.cell.sees);
  });

  it("writes banks/round-NN.json equal to the fold of the events of rounds ≤ NN", () => {
    const run = get();
    expect(run.snapshots.map((s) => s.round)).toEqual([0, 1, 2, 3]);
    for (const s of run.snapshots) {
      expect(Object.keys(s.banks)).toEqual([LEVEL]);
      expect(s.banks[LEVEL]).toEqual(foldEvents(run.events, s.round));
    }
  });

  it("writes metrics.json with per-round stats and one usage line per model call", () => {
    const run = get();
    expect(existsSync(run.dir.file("metrics"))).toBe(true);
    const metrics = JSON.parse(readFileSync(run.dir.file("metrics"), "utf8")) as Metrics;
    expect(metrics).toEqual(JSON.parse(JSON.stringify(run.metrics)));
    expect(metrics.method).toEqual({ init: run.cell.init, update: run.cell.update, evolver: "llm" });
    const level = metrics.levels[LEVEL]!;
    expect(level.episodes).toBe(6);
    expect(level.offline.episodes).toBe(run.cell.init === "online" ? 0 : 2);
    expect(level.rounds.map((r) => r.round)).toEqual([1, 2, 3]);
    for (const r of level.rounds) {
      const eps = run.episodes.filter((e) => e.phase === "stream" && e.round === r.round);
      const bank = bankAt(run, r.round - 1);
      expect(r).toMatchObject({
        episodes: 2,
        successes: eps.filter((e) => e.trajectory.success).length,
        meanR: Math.round(mean(eps.map((e) => e.r)) * 1000) / 1000,
        "bank/skills": bank.skills.length,
        "bank/mistakes": bank.mistakes.length,
      });
    }
    // usage.jsonl: one line per request each server answered, failed structured-output attempts included.
    expect(run.usage.map((u) => u.role).sort()).toEqual([...run.actor.requests.map(() => "actor"), ...run.evolver.requests.map(() => "evolver")].sort());
    expect(run.evolver.requests).toHaveLength(run.cell.evolver.length); // the whole script was used, nothing more
    expect(run.evolver.requests).toHaveLength(run.cell.calls.reduce((a, b) => a + b, 0));
    for (const u of run.usage.filter((x) => x.role === "evolver")) expect([u.seed, u.phase]).toEqual([undefined, u.round === 0 ? "offline" : "stream"]);
    expect(metrics.usage.actor.calls).toBe(run.actor.requests.length);
    expect(metrics.usage.evolver.calls).toBe(run.evolver.requests.length);
  });
};

// ---------------------------------------------------------------------------------------------------------------
// The seven cells.

const standard0 = distilAnswers(0, off(6), off(7));

/** Off2On × evolving: a round-0 distillation over the caps, then three evolutions (the first after a non-JSON answer). */
const evolvingScript: ScriptItem[] = [
  json({ skills: [skill("Skill R0-A", [off(6)]), skill("Skill R0-B"), skill("Skill R0-C", [off(7)])] }),
  json({
    mistakes: [mistake("Mistake R0-A", [off(7)]), mistake("Mistake R0-B"), mistake("Mistake R0-C", [off(7)])],
    partial_skills: [skill("Skill R0-P", [off(7)]), skill("Skill R0-Q")],
  }),
  notJson("Here is my analysis of the round: the fast solves dropped the ball from higher up."),
  json({
    ops: [
      { op: "keep", id: "s0_1", sources: [st(1, 0)] },
      { op: "revise", id: "s0_2", entry: entry("Skill R1-B2"), sources: [st(1, 0), st(1, 1)], reason: "re-grounded" },
      { op: "prune", id: "s0_5", why: "redundant", reason: "same as s0_1" },
      { op: "merge", from: ["m0_1", "m0_3"], entry: mistakeEntry("Mistake R1-M"), sources: [st(1, 1)], reason: "same root cause" },
      { op: "add", entry: entry("Skill R1-E"), sources: [st(1, 0)], reason: "new mechanism" },
    ],
  }),
  json({
    ops: [
      { op: "keep", id: "s0_1", sources: [st(2, 2)] },
      { op: "keep", id: "s0_2" },
      { op: "keep", id: "s1_1" },
      { op: "keep", id: "m1_1", sources: [st(2, 3)] },
      { op: "add", entry: entry("Skill R2-F"), sources: [st(2, 3)] },
      { op: "add", entry: entry("Skill R2-G") },
      { op: "add", entry: mistakeEntry("Mistake R2-N"), sources: [st(2, 3)] },
      { op: "add", entry: mistakeEntry("Mistake R2-O") },
    ],
  }),
  json({
    ops: [
      { op: "keep", id: "s0_1" },
      { op: "revise", id: "s1_1", entry: entry("Skill R3-E2"), sources: [st(3, 4)], reason: "sharper" },
      { op: "prune", id: "s2_2", why: "contradicted", reason: "seed 5 failed with it" },
      { op: "keep", id: "m1_1" },
      { op: "keep", id: "m2_1", sources: [st(3, 5)] },
    ],
  }),
];

const CELLS: Cell[] = [
  { init: "offline", update: "static", evolver: standard0, updates: ["distil", "none", "none", "none"], calls: [2, 0, 0, 0], sees: [true, true, true] },
  { init: "off2on", update: "static", evolver: standard0, updates: ["distil", "none", "none", "none"], calls: [2, 0, 0, 0], sees: [true, true, true] },
  {
    init: "off2on",
    update: "replacement",
    evolver: [
      ...smallDistil(0, off(6), off(7)),
      ...smallDistil(1, st(1, 0), st(1, 1)),
      notJson("I would rather explain in prose."),
      notJson("{ops: still not json"),
      ...smallDistil(3, st(3, 4), st(3, 5)),
    ],
    updates: ["distil", "replace", "replace-failed", "replace"],
    calls: [2, 2, 2, 2],
    sees: [true, true, true],
  },
  {
    init: "off2on",
    update: "evolving",
    evolver: evolvingScript,
    updates: ["distil", "evolve", "evolve", "evolve"],
    calls: [2, 2, 1, 1],
    sees: [true, true, true],
  },
  // Online × static: round 1 plays without a bank, its episodes are distilled once, and the bank is then frozen.
  {
    init: "online",
    update: "static",
    evolver: distilAnswers(1, st(1, 0), st(1, 1)),
    updates: ["none", "distil", "none", "none"],
    calls: [0, 2, 0, 0],
    sees: [false, true, true],
  },
  {
    init: "online",
    update: "replacement",
    evolver: [
      ...smallDistil(1, st(1, 0), st(1, 1)),
      ...smallDistil(2, st(2, 2), st(2, 3)),
      json({ skills: [skill("Skill R3-X", [st(2, 2)])] }), // cites last round's trajectory: not shown, so invalid
      ...smallDistil(3, st(3, 4), st(3, 5)),
    ],
    updates: ["none", "distil", "replace", "replace"],
    calls: [0, 2, 2, 3],
    sees: [false, true, true],
  },
  {
    init: "online",
    update: "evolving",
    evolver: [
      ...distilAnswers(1, st(1, 0), st(1, 1)),
      notJson("{ops: oops"),
      json({ ops: [{ op: "keep", id: "s1_1" }] }), // leaves s1_2, s1_3, m1_1 out
      json({
        ops: [
          { op: "keep", id: "s1_1", sources: [st(3, 4)] },
          { op: "revise", id: "s1_2", entry: entry("Skill R3-B2"), sources: [st(3, 4), st(3, 5)], reason: "re-grounded" },
          { op: "prune", id: "s1_3", why: "redundant", reason: "covered by s1_1" },
          { op: "keep", id: "m1_1", sources: [st(3, 5)] },
        ],
      }),
    ],
    updates: ["none", "distil", "evolve-failed", "evolve"],
    calls: [0, 2, 2, 1],
    sees: [false, true, true],
  },
];

describe("run config cells", () => {
  it("refuses offline initialisation with replacement or evolving", () => {
    for (const update of ["replacement", "evolving"]) {
      expect(() => parseRunConfig({ family: "interphyre", levels: [LEVEL], init: "offline", update }, "cfg")).toThrow(
        /offline initialisation freezes the bank/,
      );
    }
  });
});

describe.each(CELLS)("runLoop $init × $update (3 rounds, x = 2, scripted actor and evolver)", (cell) => {
  let run: Run | undefined;
  beforeAll(async () => {
    run = await play(cell);
  });
  const get = () => run!;
  commonChecks(get);

  if (cell.update === "static" && cell.init !== "online") {
    it("distils once from the offline episodes and never changes the bank afterwards", () => {
      const r = get();
      const b0 = bankAt(r, 0);
      expect(idsOf(b0)).toEqual(["s0_1", "s0_2", "s0_3", "m0_1"]);
      for (const k of [1, 2, 3]) expect(bankAt(r, k)).toEqual(b0);
      expect(r.events.every((e) => e.round === 0)).toBe(true);
    });
  }

  if (cell.init === "off2on" && cell.update === "replacement") {
    it("re-distils from the last round with weights per formula, and keeps the bank when both attempts fail", () => {
      const r = get();
      const R = rOf(r);
      for (const k of [1, 3]) {
        const [win, loss] = batchIds(r, k) as [string, string];
        const b = bankAt(r, k);
        expect(b.skills.map((s) => [s.id, s.title, s.sourceType, q(s.weight), s.sourceSeeds])).toEqual([
          [`s${k}_1`, `Skill R${k}-A`, "contrastive", q(skillW([R(win)])), [2 * k - 2]],
        ]);
        expect(b.mistakes.map((m) => [m.id, q(m.weight), m.sourceSeeds])).toEqual([[`m${k}_1`, q(mistakeW(1)), [2 * k - 1]]]);
        expect([b.skills[0]!.evidence, b.mistakes[0]!.evidence]).toEqual([
          { sumR: R(win), count: 1 },
          { sumR: R(loss), count: 1 },
        ]);
      }
      // Round 3 replaces the round-1 bank: round 2's failed update left it in place.
      expect(r.events.filter((e) => e.round === 3 && e.type === "prune").map((e) => e.type === "prune" && e.id)).toEqual(["s1_1", "m1_1"]);
      const retry = evolverRequests(r, 2)[1]!;
      expect(textOf(retry, -1)).toMatch(/the answer is not JSON \(starts with "I would rather/);
    });
  }

  if (cell.init === "off2on" && cell.update === "evolving") {
    it("weighs distilled and evolved entries exactly per docs/spec/method.md §3, caps them, and retries a non-JSON answer", () => {
      const r = get();
      const R = rOf(r);
      const [o6, o7] = [R(off(6)), R(off(7))];
      const [r10, r11, r22, r23, r34, r35] = [R(st(1, 0)), R(st(1, 1)), R(st(2, 2)), R(st(2, 3)), R(st(3, 4)), R(st(3, 5))];
      const at = (k: number) => r.events.filter((e) => e.round === k).map(project);
      expect(at(0)).toEqual(
        [
          ["add", "s0_1", skillW([o6])],
          ["add", "s0_2", skillW([o6, o7])],
          ["add", "s0_3", skillW([o7])],
          ["add", "s0_4", partialW([o7])],
          ["add", "s0_5", partialW([o6, o7])],
          ["add", "m0_1", mistakeW(1)],
          ["add", "m0_2", mistakeW(0)],
          ["add", "m0_3", mistakeW(1)],
          ["prune", "s0_3", "cap"],
          ["prune", "s0_4", "cap"],
          ["prune", "m0_2", "cap"],
        ].map((e) => e.map(q)),
      );
      // The same numbers written out: r = +1 (1-turn win) and −0.75 (1-turn failure).
      expect(bankAt(r, 0).skills.map((s) => s.weight)).toEqual([1, 0.5625, 0.5]);
      expect(bankAt(r, 0).mistakes.map((m) => q(m.weight))).toEqual([q(1 / 3), q(1 / 3)]);
      expect(at(1)).toEqual(
        [
          ["reweight", "s0_1", skillW([o6, r10])],
          ["revise", "s0_2", skillW([r10, r11])], // s0_2 had no cited evidence before
          ["prune", "s0_5", "redundant"],
          ["merge", "m1_1", mistakeW(3)], // m0_1 and m0_3 each cited one failure, plus one now
          ["add", "s1_1", skillW([r10])],
        ].map((e) => e.map(q)),
      );
      expect(at(2)).toEqual(
        [
          ["reweight", "s0_1", skillW([o6, r10, r22])], // running mean over all evidence
          ["reweight", "m1_1", mistakeW(4)],
          ["add", "s2_1", skillW([r23])],
          ["add", "s2_2", skillW([r22, r23])],
          ["add", "m2_1", mistakeW(1)],
          ["add", "m2_2", mistakeW(0)],
          ["prune", "s0_2", "cap"],
          ["prune", "s2_1", "cap"],
          ["prune", "m2_2", "cap"],
        ].map((e) => e.map(q)),
      );
      expect(at(3)).toEqual(
        [
          ["revise", "s1_1", skillW([r10, r34])],
          ["prune", "s2_2", "contradicted"],
          ["reweight", "m2_1", mistakeW(2)],
        ].map((e) => e.map(q)),
      );
      const final = bankAt(r, 3);
      expect(final.skills.map((s) => [s.id, s.title, s.generation, s.parents])).toEqual([
        ["s0_1", "Skill R0-A", 0, []],
        ["s1_1", "Skill R3-E2", 3, ["s1_1"]],
      ]);
      expect(final.skills[0]!.evidence).toEqual({ sumR: o6 + r10 + r22, count: 3 });
      expect(final.mistakes.map((m) => [m.id, m.parents, m.evidence.count])).toEqual([
        ["m1_1", ["m0_1", "m0_3"], 4],
        ["m2_1", [], 2],
      ]);
      expect(final.mistakes[1]!.evidence.sumR).toBe(r23 + r35);
      // The non-JSON answer was retried once with the problem named; the prompt shows r (labelled mode).
      const [bad, retry] = evolverRequests(r, 1) as [RecordedRequest, RecordedRequest];
      expect(textOf(bad, 1)).toMatch(EVOLVE);
      expect(textOf(retry, 1)).toBe(textOf(bad, 1));
      expect(textOf(retry, -1)).toMatch(/^Your answer could not be used: the answer is not JSON/);
      expect(textOf(bad, 1)).toContain(`### trajectory ${st(1, 0)} · seed 0 · success yes · turns 4/25 · category success · r +0.75`);
      expect(textOf(bad, 1)).toContain("## last round's trajectories (best r first)");
      expect(textOf(bad, 0)).toContain(`at most ${CAPS.skills} skills and ${CAPS.mistakes} mistakes`);
    });
  }

  if (cell.init === "online" && cell.update === "replacement") {
    it("retries an answer that cites a trajectory the evolver was not shown", () => {
      const r = get();
      const [bad, retry, failures] = evolverRequests(r, 3) as [RecordedRequest, RecordedRequest, RecordedRequest];
      expect(textOf(bad, 1)).toMatch(CONTRASTIVE);
      expect(textOf(retry, -1)).toContain(`unknown trajectory id(s) ${st(2, 2)}; cite only`);
      expect(textOf(failures, 1)).toMatch(FAILURES);
      expect(idsOf(bankAt(r, 3))).toEqual(["s3_1", "m3_1"]);
    });
  }

  if (cell.init === "online" && cell.update === "evolving") {
    it("keeps the round-1 bank through a failed evolution, then evolves it in round 3", () => {
      const r = get();
      expect(textOf(evolverRequests(r, 2)[1]!, -1)).toMatch(/the answer is not JSON \(starts with "\{ops: oops"\)/);
      const failure = r.events.find((e) => e.type === "evolver_failure");
      expect(failure).toMatchObject({ round: 2, error: expect.stringMatching(/s1_2, s1_3, m1_1 not accounted for/) });
      expect(idsOf(bankAt(r, 2))).toEqual(["s1_1", "s1_2", "s1_3", "m1_1"]);
      const R = rOf(r);
      const b3 = bankAt(r, 3);
      expect(b3.skills.map((s) => [s.id, s.title, q(s.weight)])).toEqual([
        ["s1_1", "Skill R1-A", q(skillW([R(st(1, 0)), R(st(3, 4))]))],
        ["s1_2", "Skill R3-B2", q(skillW([R(st(3, 4)), R(st(3, 5))]))],
      ]);
      expect(b3.mistakes.map((m) => [m.id, q(m.weight)])).toEqual([["m1_1", q(mistakeW(2))]]);
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------
// The no-reward-labels ablation (docs/spec/method.md §7).

describe("runLoop with rewardLabels: false (Off2On × evolving)", () => {
  const cell: Cell = {
    init: "off2on",
    update: "evolving",
    rewardLabels: false,
    // Round 1 puts the failure first: a labelled evolver would show the win first.
    outcomes: { 0: "lose1", 1: "win1" },
    evolver: [
      ...standard0,
      json({
        ops: [
          { op: "keep", id: "s0_1", sources: [st(1, 1)] },
          { op: "revise", id: "s0_2", entry: entry("Skill R1-N2"), sources: [st(1, 1)] },
          { op: "prune", id: "s0_3", why: "redundant" },
          { op: "keep", id: "m0_1", sources: [st(1, 0)] },
        ],
      }),
      json({
        ops: [
          { op: "keep", id: "s0_1" },
          { op: "keep", id: "s0_2" },
          { op: "keep", id: "m0_1" },
          { op: "add", entry: entry("Skill R2-N"), sources: [st(2, 2)] },
        ],
      }),
      json({
        ops: [
          { op: "keep", id: "s0_1" },
          { op: "keep", id: "s0_2" },
          { op: "keep", id: "s2_1", sources: [st(3, 4)] },
          { op: "keep", id: "m0_1" },
        ],
      }),
    ],
    updates: ["distil", "evolve", "evolve", "evolve"],
    calls: [2, 1, 1, 1],
    sees: [true, true, true],
  };
  let run: Run | undefined;
  beforeAll(async () => {
    run = await play(cell);
  });
  const get = () => run!;
  commonChecks(get);

  it("leaves every entry unweighted (0.5) and shows the evolver no r, unsorted", () => {
    const r = get();
    for (const s of r.snapshots) for (const e of entries(s.banks[LEVEL]!)) expect(e.weight).toBe(0.5);
    expect(idsOf(bankAt(r, 3))).toEqual(["s0_1", "s0_2", "s2_1", "m0_1"]);
    expect(r.events.some((e) => e.type === "reweight")).toBe(false); // re-citing changes nothing without labels
    for (const req of r.evolver.requests) {
      const text = textOf(req, 1);
      expect(text).toMatch(/### trajectory /);
      expect(text).not.toMatch(/ r [+-]\d|category|best r first|sorted by reward/);
    }
    const round1 = textOf(evolverRequests(r, 1)[0]!, 1);
    expect(round1.indexOf(`trajectory ${st(1, 0)} `)).toBeGreaterThan(0);
    expect(round1.indexOf(`trajectory ${st(1, 0)} `)).toBeLessThan(round1.indexOf(`trajectory ${st(1, 1)} `));
    expect(textOf(evolverRequests(r, 0)[0]!, 1)).toMatch(/^The runs below: [^\n]*\n\nCompare the successful runs with the failed runs/);
    // The actor's block shows the flat weights too.
    const sys = textOf(r.actor.requests.at(-1)!, 0);
    expect(sys).toMatch(/\[(Strategy|Lesson): Skill R2-N\] .* \(weight 0\.50\)/);
  });
});

describe("iterative replacement whose old and new entries together exceed the caps", () => {
  it("re-distils into an empty bank: the replaced entries do not count against the caps", async () => {
    const r = await play({
      init: "off2on",
      update: "replacement",
      evolver: [...standard0, ...distilAnswers(1, st(1, 0), st(1, 1)), ...distilAnswers(2, st(2, 2), st(2, 3)), ...distilAnswers(3, st(3, 4), st(3, 5))],
      updates: ["distil", "replace", "replace", "replace"],
      calls: [2, 2, 2, 2],
      sees: [true, true, true],
    });
    for (const k of [1, 2, 3]) {
      const old = [`s${k - 1}_1`, `s${k - 1}_2`, `s${k - 1}_3`, `m${k - 1}_1`];
      expect(r.events.filter((e) => e.round === k).map(project)).toEqual([
        ...old.map((id) => ["prune", id, "replaced"]),
        ...[`s${k}_1`, `s${k}_2`, `s${k}_3`, `m${k}_1`].map((id) => ["add", id, expect.any(Number)]),
      ]);
      expect(idsOf(bankAt(r, k))).toEqual([`s${k}_1`, `s${k}_2`, `s${k}_3`, `m${k}_1`]);
    }
  });
});
