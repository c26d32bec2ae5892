/**
 * The skill bank's costs: bank update time (heuristic evolver, LLM-evolver bookkeeping with an instant model,
 * caps, folding event logs), retrieval from a library of 10,000 skills (+2,500 mistakes) across the 25 levels
 * (in-memory rule and Chroma semantic query on an embedded server started here), and the quickstart's wall
 * time split into simulation / agent / bank / the rest. Progress goes to stderr, the tables to stdout.
 * Run: npm run bench:bank [-- --quick]   (--quick: fewer samples, 100 skills per level, a 3-round quickstart)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { distil, evolve } from "../agents/evolver.ts";
import { labelTrajectories, type Labelled } from "../agents/evolver-labels.ts";
import { placementOf } from "../families/interphyre/action.ts";
import { INTERPHYRE_WORDS } from "../families/interphyre/family.ts";
import { runHeuristicEpisode } from "../families/interphyre/heuristic/agent.ts";
import { evolveHeuristic } from "../families/interphyre/heuristic/evolver.ts";
import { renderSkillBlock, retrieve, type RetrieverConfig } from "../agents/retriever.ts";
import type { Trajectory } from "../src/store/trajectory.ts";
import { listLevels } from "../families/interphyre/levels/index.ts";
import { createInstance, type LevelInstance } from "../families/interphyre/instance.ts";
import type { AssistantTurn, ChatModel } from "../src/llm/chat-model.ts";
import { createRng, type Rng } from "../src/util/rng.ts";
import { capEvents, EMPTY_BANK, foldEvents, type Bank, type BankEntry, type BankEvent, type Mistake, type Skill } from "../src/store/bank.ts";
import { readCertified } from "../families/interphyre/certified-seeds.ts";
import { chromaClient, SkillIndex } from "../src/store/chroma-index.ts";
import { startChroma } from "../src/store/chroma-server.ts";
import { localEmbedder } from "../src/store/embedding.ts";

const QUICK = process.argv.includes("--quick");
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LEVEL = "down_to_earth"; // a fast HExA level (one of the CLI tests' shared run, test/fixtures/two-levels.yaml)
const CAPS = { skills: 10, mistakes: 5 };
const RETRIEVER: RetrieverConfig = { topSkills: 6, topMistakes: 4 };
const SKILLS_PER_LEVEL = QUICK ? 100 : 400;
const MISTAKES_PER_LEVEL = SKILLS_PER_LEVEL / 4;
const BATCH = 500;
const N = { update: QUICK ? 40 : 200, micro: QUICK ? 200 : 1000, fold10k: QUICK ? 2 : 3, query: QUICK ? 20 : 100, memory: QUICK ? 50 : 300 };

const note = (s: string) => process.stderr.write(`${s}\n`);

// ---------------------------------------------------------------- timing and the table

interface Row {
  what: string;
  n: number;
  /** Per-call samples (ms); empty for a one-off, which shows `total` only. */
  samples: number[];
  total: number;
  note?: string;
}
const sections: { title: string; rows: Row[] }[] = [];
const section = (title: string) => {
  const s = { title, rows: [] as Row[] };
  sections.push(s);
  return s.rows;
};

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

const sample = (what: string, n: number, fn: () => unknown, extra: { warm?: number; note?: string } = {}): Row => {
  for (let i = 0; i < (extra.warm ?? Math.min(20, n)); i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    samples.push(performance.now() - t0);
  }
  return { what, n, samples, total: samples.reduce((a, b) => a + b, 0), ...(extra.note ? { note: extra.note } : {}) };
};

const sampleAsync = async (what: string, n: number, fn: (i: number) => Promise<unknown>, extra: { warm?: number; note?: string } = {}): Promise<Row> => {
  for (let i = 0; i < (extra.warm ?? Math.min(5, n)); i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return { what, n, samples, total: samples.reduce((a, b) => a + b, 0), ...(extra.note ? { note: extra.note } : {}) };
};

const oneOff = (what: string, total: number, note?: string): Row => ({ what, n: 1, samples: [], total, ...(note ? { note } : {}) });

const printTables = () => {
  const W = Math.max(...sections.flatMap((s) => s.rows.map((r) => r.what.length))) + 2;
  const head = `${"".padEnd(W)}${"n".padStart(6)}${"p50 ms".padStart(11)}${"p95 ms".padStart(11)}${"total ms".padStart(11)}  note`;
  for (const s of sections) {
    console.log(`\n${s.title}`);
    console.log(head);
    for (const r of s.rows) {
      const sorted = [...r.samples].sort((a, b) => a - b);
      const p50 = sorted.length ? ms(pct(sorted, 50)) : "–";
      const p95 = sorted.length ? ms(pct(sorted, 95)) : "–";
      console.log(`${r.what.padEnd(W)}${String(r.n).padStart(6)}${p50.padStart(11)}${p95.padStart(11)}${ms(r.total).padStart(11)}  ${r.note ?? ""}`.trimEnd());
    }
  }
};

// ---------------------------------------------------------------- realistic inputs

/** Three real heuristic episodes on certified seeds: two ordinary ones and one with a 3-turn budget (to get a failure). */
const realTrajectories = (level: string): Trajectory[] => {
  const seeds = readCertified(level)!.seeds.map((s) => s.seed);
  const play = (seed: number, maxTurns?: number) =>
    runHeuristicEpisode({ instance: createInstance(level, seed), rng: createRng(seed), now: () => performance.now(), ...(maxTurns ? { maxTurns } : {}) });
  const ts = [play(seeds[0]!), play(seeds[1]!)];
  for (const seed of seeds.slice(2, 12)) {
    const t = play(seed, 3);
    if (!t.success && t.action) return [...ts, t];
  }
  return [...ts, play(seeds[2]!, 3)];
};

const hint = (inst: LevelInstance, dx: number, dy: number, r: number, half: number) => {
  const [lo, hi] = inst.bounds.radius;
  const r2 = (v: number) => Math.round(v * 100) / 100;
  const region = { relativeTo: inst.goal[0], dx: [r2(dx - half), r2(dx + half)], dy: [r2(dy - half), r2(dy + half)], radius: [r2(Math.max(lo, r - 0.15)), r2(Math.min(hi, r + 0.15))] };
  return `hint: ${JSON.stringify(region)}`;
};

/**
 * A full heuristic-evolver bank (10 skills, 5 mistakes) in the regions format, laid out on a grid around the
 * first success's offset so that the update re-cites, revises and merges; regions never overlap each other.
 */
const fullBank = (inst: LevelInstance, around: { dx: number; dy: number; radius: number }): Bank => {
  const common = (i: number) => ({ sourceSeeds: [100 + i], generation: 1 + (i % 5), parents: [], evidence: { sumR: 0.5 + (i % 4) * 0.6, count: 1 + (i % 4) } });
  const skills: Skill[] = Array.from({ length: 10 }, (_, i) => {
    const dx = around.dx + ((i % 5) - 2) * 1.0;
    const dy = around.dy + (Math.floor(i / 5) - 0.5) * 1.0;
    return {
      kind: "skill",
      id: `s${1 + (i % 5)}_${i + 1}`,
      ...common(i),
      weight: 0.35 + (i % 7) * 0.1,
      title: `Place the red ball near ${inst.goal[0]} (${inst.level})`,
      principle: `On ${1 + (i % 4)} solved seed(s) a red ball near dx ${dx.toFixed(2)}, dy ${dy.toFixed(2)} m from ${inst.goal[0]}'s initial centre solved the level. The offset is taken from the goal object's initial position, so it transfers across seeds of this level.`,
      whenToApply: `Any seed of ${inst.level}: measure the offset from ${inst.goal[0]}'s initial centre and test this region first.`,
      example: hint(inst, dx, dy, around.radius, 0.4),
      sourceType: i < 6 ? "contrastive" : "evolved",
    };
  });
  const mistakes: Mistake[] = Array.from({ length: 5 }, (_, i) => {
    const dx = around.dx + (i - 2) * 1.0;
    const dy = around.dy - 2.5;
    return {
      kind: "mistake",
      id: `m${1 + i}_${i + 1}`,
      ...common(i + 10),
      weight: 0.3 + i * 0.1,
      description: `A red ball committed near dx ${dx.toFixed(2)}, dy ${dy.toFixed(2)} m failed on ${1 + i} seed(s).`,
      rootCause: "Assumed that a ball there sets the goal pair in contact; the rollouts showed it does not.",
      correction: `Do not spend turns in this region; test other placements. ${hint(inst, dx, dy, around.radius, 0.25)}`,
    };
  });
  return { skills, mistakes };
};

/** A bank over the caps (20 skills, 10 mistakes), as after an update that added a lot. */
const overCap = (bank: Bank): Bank => ({
  skills: [...bank.skills, ...bank.skills.map((s, i) => ({ ...s, id: `x${s.id}`, weight: ((i * 37) % 100) / 100 }))],
  mistakes: [...bank.mistakes, ...bank.mistakes.map((m, i) => ({ ...m, id: `x${m.id}`, weight: ((i * 53) % 100) / 100 }))],
});

/** A model port that answers at once, from a queue (model time excluded: only hexa's bookkeeping is timed). */
const instantModel = (answers: unknown[]): ChatModel => {
  const queue = answers.map((a) => JSON.stringify(a));
  return {
    name: "instant",
    invoke: async (): Promise<AssistantTurn> => {
      const text = queue.shift();
      if (text === undefined) throw new Error("bench: instant model ran out of answers");
      return { text, toolCalls: [], usage: { input: 0, output: 0, cached: 0 }, model: "instant", latencyMs: 0, fromCache: false };
    },
  };
};

const skillText = (title: string, sources: string[]) => ({
  title,
  principle: `${title}: the red ball must reach the goal pair with enough momentum; a placement above and slightly left of the target lets gravity do the work.`,
  when_to_apply: "When the goal object rests on a ledge with open space above it.",
  example: "x=-1.2, y=3.4, radius=0.5 solved seed 17",
  sources,
});
const mistakeText = (i: number, sources: string[]) => ({
  description: `Mistake ${i}: the ball lands short of the goal and rolls away.`,
  root_cause: "Assumed the ball keeps its horizontal speed after the first bounce.",
  correction: "Place it higher and closer to the goal object so it arrives with downward speed.",
  sources,
});

/** One evolve answer that accounts for every id: keeps with sources, a revise, a merge, a prune and an add. */
const evolveAnswer = (bank: Bank, ids: string[]) => {
  const [s0, s1, s2, ...restSkills] = bank.skills.map((s) => s.id);
  const [m0, ...restMistakes] = bank.mistakes.map((m) => m.id);
  return {
    ops: [
      { op: "revise", id: s0, entry: { kind: "skill", ...skillText("Drop it from above", ids.slice(0, 2)) }, sources: ids.slice(0, 2), reason: "sharper" },
      { op: "merge", from: [s1, s2], entry: { kind: "skill", ...skillText("Merged ledge skill", [ids[0]!]) }, sources: [ids[0]], reason: "same mechanism" },
      { op: "prune", id: m0, why: "contradicted", reason: "a success placed the ball there" },
      ...restSkills.map((id, i) => ({ op: "keep", id, sources: i % 2 ? [ids[i % ids.length]] : [], reason: "" })),
      ...restMistakes.map((id) => ({ op: "keep", id, sources: [], reason: "" })),
      { op: "add", entry: { kind: "mistake", ...mistakeText(9, [ids[2]!]) }, sources: [ids[2]], reason: "new failure" },
    ],
  };
};

/** A synthetic event log: round 0 adds 15 entries, then every round 20 events (4 add, 1 merge, 3 prune, 8 reweight, 4 revise). */
const eventLog = (rounds: number, rng: Rng, template: Bank): BankEvent[] => {
  const base = (round: number) => ({ schemaVersion: 1 as const, round, evidence: [`e${round}`], reason: "bench" });
  const alive: BankEntry[] = [];
  let next = 0;
  const fresh = (round: number): BankEntry => {
    const t = next % 3 === 0 ? template.mistakes[next % template.mistakes.length]! : template.skills[next % template.skills.length]!;
    return { ...t, id: `e${next++}`, generation: round };
  };
  const take = () => alive.splice(rng.integers(0, alive.length), 1)[0]!;
  const pick = () => alive[rng.integers(0, alive.length)]!;
  const out: BankEvent[] = [];
  const add = (round: number) => {
    const entry = fresh(round);
    alive.push(entry);
    out.push({ ...base(round), type: "add", entry });
  };
  for (let i = 0; i < 15; i++) add(0);
  for (let round = 1; round < rounds; round++) {
    for (let i = 0; i < 4; i++) add(round);
    const kind: BankEntry["kind"] = alive.filter((x) => x.kind === "mistake").length >= 2 && rng.random() < 0.3 ? "mistake" : "skill";
    const pair = alive.filter((x) => x.kind === kind).slice(0, 2);
    pair.forEach((x) => alive.splice(alive.indexOf(x), 1));
    const entry: BankEntry = kind === "skill" ? { ...template.skills[0]!, id: `e${next++}`, generation: round } : { ...template.mistakes[0]!, id: `e${next++}`, generation: round };
    alive.push(entry);
    out.push({ ...base(round), type: "merge", from: pair.map((x) => x.id), entry });
    for (let i = 0; i < 3; i++) out.push({ ...base(round), type: "prune", id: take().id, why: "low_weight" });
    for (let i = 0; i < 8; i++) out.push({ ...base(round), type: "reweight", id: pick().id, weight: rng.random(), evidenceState: { sumR: rng.random(), count: 2 } });
    for (let i = 0; i < 4; i++) {
      const e = pick();
      out.push({ ...base(round), type: "revise", entry: { ...e, generation: round } });
    }
  }
  return out;
};

// ---------------------------------------------------------------- the 25-level library

const WORDS = {
  verb: ["drop", "place", "wedge", "launch", "nudge", "stack", "tip", "roll", "bounce", "balance", "slide", "push"],
  obj: ["green ball", "blue ball", "purple bar", "grey platform", "ramp", "seesaw", "basket", "ledge", "pendulum", "wall", "cradle", "funnel"],
  where: ["just above", "to the left of", "to the right of", "under the edge of", "against", "behind", "on top of", "between the two halves of"],
  why: [
    "so gravity carries it into contact",
    "so the impact tips the bar over",
    "so the bounce sends it across the gap",
    "so it rolls down the ramp and collides",
    "so it shifts the balance point",
    "so the chain of collisions reaches the goal",
  ],
};

const libraryEntry = (level: string, kind: BankEntry["kind"], k: number, rng: Rng): BankEntry => {
  const w = <K extends keyof typeof WORDS>(key: K) => rng.choice(WORDS[key]);
  const common = { id: `${kind[0]}${k}`, sourceSeeds: [rng.integers(0, 1000)], generation: rng.integers(0, 18), weight: Math.round(rng.uniform(0.1, 1) * 1000) / 1000, parents: [], evidence: { sumR: rng.uniform(-2, 4), count: rng.integers(1, 6) } };
  const x = rng.uniform(-4, 4).toFixed(2);
  const y = rng.uniform(-4, 4).toFixed(2);
  const r = rng.uniform(0.2, 1.2).toFixed(2);
  if (kind === "skill") {
    const verb = w("verb");
    const obj = w("obj");
    return {
      kind,
      ...common,
      title: `${verb[0]!.toUpperCase()}${verb.slice(1)} the red ball ${w("where")} the ${obj} (${level})`,
      principle: `A red ball ${w("where")} the ${obj} ${w("why")}. The ${w("obj")} moves first, ${w("why")}.`,
      whenToApply: `When the ${w("obj")} sits ${w("where")} the ${w("obj")} and the goal pair is apart at the start.`,
      example: `x=${x}, y=${y}, radius=${r} solved a seed of ${level}`,
      sourceType: rng.choice(["contrastive", "partial", "evolved", "transfer"] as const),
    };
  }
  return {
    kind,
    ...common,
    description: `A red ball ${w("where")} the ${w("obj")} at x=${x}, y=${y} misses: it ${w("verb")}s the ${w("obj")} the wrong way.`,
    rootCause: `Assumed that ${w("verb")}ing the ${w("obj")} is enough ${w("why")}.`,
    correction: `Move it ${w("where")} the ${w("obj")} instead, ${w("why")}.`,
  };
};

interface Tagged {
  level: string;
  entry: BankEntry;
}

const QUERIES = [
  "the ball falls short of the goal and rolls away",
  "tip the bar so the green ball touches the blue ball",
  "place the red ball above the ledge so gravity drops it onto the target",
  "launch across the gap with a bounce off the ramp",
  "the seesaw needs weight on the left end",
  "push the platform so the basket tilts",
  "a small ball in the corner does nothing",
  "wedge the ball between the wall and the purple bar",
];

// ---------------------------------------------------------------- 3. the quickstart (run first, on a quiet machine)

const runQuickstart = async (tmp: string) => {
  let config = join(ROOT, "configs", "quickstart.yaml");
  if (QUICK) {
    const cfg = parseYaml(readFileSync(config, "utf8")) as Record<string, unknown>;
    config = join(tmp, "quickstart-quick.yaml");
    writeFileSync(config, stringifyYaml({ ...cfg, rounds: 3 }));
  }
  const runsDir = join(tmp, "runs");
  const spawnTimed = (args: string[]) =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`bench: ${args.join(" ")} exited with ${code}:\n${err}`))));
    });
  const startupMs = await spawnTimed([join("bin", "hexa.js"), "--help"]);
  note(`quickstart${QUICK ? " (3 rounds)" : ""} …`);
  const wallMs = await spawnTimed([join("bin", "hexa.js"), "run", config, "--runs-dir", runsDir]);
  const [id] = readdirSync(runsDir);
  const dir = join(runsDir, id!);
  const metrics = JSON.parse(readFileSync(join(dir, "metrics.json"), "utf8")) as { time: { simulationMs: number; agentMs: number; bankMs: number } };
  const lines = readFileSync(join(dir, "bank-events.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { level: string; event?: BankEvent; commit?: { ms: number } });
  const commits = lines.flatMap((l) => (l.commit ? [l.commit.ms] : []));
  const levelLog = lines.filter((l) => l.level === LEVEL && l.event).map((l) => l.event!);
  return { startupMs, wallMs, time: metrics.time, commits, levelLog };
};

// ---------------------------------------------------------------- main

const tmp = mkdtempSync(join(tmpdir(), "hexa-bench-bank-"));
let chroma: { stop(): Promise<void> } | undefined;
try {
  const t0 = performance.now();
  const qs = await runQuickstart(tmp);

  // 1. bank update
  note("bank update …");
  const rows1 = section("1. bank update (one level, caps 10 skills / 5 mistakes)");
  const trajectories = realTrajectories(LEVEL);
  const labelled: Labelled[] = labelTrajectories(trajectories, ["t1", "t2", "t3"]);
  const inst0 = createInstance(LEVEL, trajectories[0]!.seed);
  const a = placementOf(trajectories[0]!.action)!;
  const goalObj = inst0.scene[inst0.goal[0]]!;
  const bank = fullBank(inst0, { dx: a.x - goalObj.x, dy: a.y - goalObj.y, radius: a.radius });
  const outcome = trajectories.map((t) => (t.success ? `ok/${t.steps.length}` : `fail/${t.steps.length}`)).join(", ");
  const instanceOf = (t: Trajectory) => createInstance(t.level, t.seed);
  const heurEvents = evolveHeuristic({ round: 5, level: LEVEL, bank, labelled, instanceOf, caps: CAPS });
  const kinds = (es: BankEvent[]) => Object.entries(es.reduce<Record<string, number>>((m, e) => ({ ...m, [e.type]: (m[e.type] ?? 0) + 1 }), {})).map(([k, v]) => `${v} ${k}`).join(", ");
  rows1.push(sample("heuristic evolver, bank 10+5, 3 trajectories", N.update, () => evolveHeuristic({ round: 5, level: LEVEL, bank, labelled, instanceOf, caps: CAPS }), { note: `episodes ${outcome}; → ${kinds(heurEvents)}` }));
  rows1.push(sample("heuristic evolver, distil into empty bank", N.update, () => evolveHeuristic({ round: 0, level: LEVEL, bank: EMPTY_BANK, labelled, instanceOf, caps: CAPS })));
  rows1.push({ what: "heuristic update inside the quickstart run", n: qs.commits.length, samples: qs.commits, total: qs.commits.reduce((s, x) => s + x, 0), note: "from bank-events.jsonl commits; the slowest is round 0 (cold JIT)" });
  const ids = labelled.map((l) => l.id);
  const evolveOut = await evolve({ words: INTERPHYRE_WORDS, model: instantModel([evolveAnswer(bank, ids)]), round: 5, level: LEVEL, bank, labelled, caps: CAPS });
  if (evolveOut.some((e) => e.type === "evolver_failure")) throw new Error(`bench: the scripted evolve answer was refused: ${JSON.stringify(evolveOut[0])}`);
  rows1.push(await sampleAsync("LLM evolve bookkeeping, instant model", N.update, () => evolve({ words: INTERPHYRE_WORDS, model: instantModel([evolveAnswer(bank, ids)]), round: 5, level: LEVEL, bank, labelled, caps: CAPS }), { note: `prompt + validation + events → ${kinds(evolveOut)}` }));
  const distilAnswers = () => [
    { skills: [1, 2, 3, 4, 5].map((i) => skillText(`Skill ${i}`, ids.slice(0, 1 + (i % 2)))) },
    { mistakes: [1, 2, 3].map((i) => mistakeText(i, [ids[2]!])), partial_skills: [skillText("Partial", [ids[2]!])] },
  ];
  const distilOut = await distil({ words: INTERPHYRE_WORDS, model: instantModel(distilAnswers()), round: 0, level: LEVEL, labelled, caps: CAPS });
  if (distilOut.some((e) => e.type === "evolver_failure")) throw new Error(`bench: the scripted distil answers were refused: ${JSON.stringify(distilOut[0])}`);
  rows1.push(await sampleAsync("LLM distil bookkeeping, instant model", N.update, () => distil({ words: INTERPHYRE_WORDS, model: instantModel(distilAnswers()), round: 0, level: LEVEL, labelled, caps: CAPS }), { note: `2 passes → ${kinds(distilOut)}` }));
  const big = overCap(bank);
  rows1.push(sample("capEvents, 20+10 → 10+5", N.micro, () => capEvents(big, CAPS, 5), { note: `${capEvents(big, CAPS, 5).length} prunes` }));
  const rng = createRng(7);
  rows1.push(sample(`foldEvents, quickstart log (${LEVEL})`, N.micro, () => foldEvents(qs.levelLog), { note: `${qs.levelLog.length} events, real` }));
  const log17 = eventLog(18, rng, bank);
  rows1.push(sample("foldEvents, 17 rounds × 20 events", N.micro, () => foldEvents(log17), { note: `${log17.length} events, ~15 live entries` }));
  const log10k = eventLog(Math.ceil((10_000 - 15) / 20) + 1, rng, bank);
  rows1.push(sample("foldEvents, 10,000 events", N.fold10k * 10, () => foldEvents(log10k), { warm: 2, note: `${log10k.length} events, ~15 live entries` }));
  const adds10k: BankEvent[] = Array.from({ length: 10_000 }, (_, i) => ({ schemaVersion: 1, round: Math.floor(i / 20), evidence: [], reason: "", type: "add", entry: { ...bank.skills[i % 10]!, id: `a${i}` } }));
  rows1.push(sample("foldEvents, 10,000 adds", N.fold10k, () => foldEvents(adds10k), { warm: 1, note: "a 10,000-entry bank: quadratic" }));

  // 2. retrieval
  note("retrieval …");
  const levels = listLevels();
  const lrng = createRng(11);
  const library: Tagged[] = levels.flatMap((level) => [
    ...Array.from({ length: SKILLS_PER_LEVEL }, (_, k) => ({ level, entry: libraryEntry(level, "skill", k, lrng) })),
    ...Array.from({ length: MISTAKES_PER_LEVEL }, (_, k) => ({ level, entry: libraryEntry(level, "mistake", k, lrng) })),
  ]);
  const nSkills = SKILLS_PER_LEVEL * levels.length;
  const size = `${nSkills.toLocaleString("en")} skills + ${(MISTAKES_PER_LEVEL * levels.length).toLocaleString("en")} mistakes, ${levels.length} levels`;
  const rows2 = section(`2. retrieval (${size}; top ${RETRIEVER.topSkills} skills / ${RETRIEVER.topMistakes} mistakes)`);
  const bankOfLevel = (level: string): Bank => {
    const mine = library.filter((t) => t.level === level).map((t) => t.entry);
    return { skills: mine.filter((e): e is Skill => e.kind === "skill"), mistakes: mine.filter((e): e is Mistake => e.kind === "mistake") };
  };
  let q = 0;
  const nextLevel = () => levels[q++ % levels.length]!;
  rows2.push(sample("rule: filter level from flat list + retrieve", N.memory, () => retrieve(bankOfLevel(nextLevel()), RETRIEVER)));
  rows2.push(sample("rule: filter + renderSkillBlock", N.memory, () => renderSkillBlock(bankOfLevel(nextLevel()), RETRIEVER), { note: `${renderSkillBlock(bankOfLevel(LEVEL), RETRIEVER).length} chars` }));
  const perLevel = new Map(levels.map((l) => [l, bankOfLevel(l)] as const));
  rows2.push(sample(`rule: retrieve from one level's bank (${SKILLS_PER_LEVEL + MISTAKES_PER_LEVEL})`, N.memory, () => retrieve(perLevel.get(nextLevel())!, RETRIEVER)));
  rows2.push(sample("rule: retrieve from a full bank (10+5)", N.micro, () => retrieve(bank, RETRIEVER), { note: "what the loop does per episode" }));

  note("chroma: start …");
  let t = performance.now();
  const server = await startChroma({ dataDir: join(tmp, "chroma") });
  chroma = server;
  rows2.push(oneOff("chroma: start the embedded server", performance.now() - t));
  const embedder = localEmbedder(384);
  const index = await SkillIndex.open(chromaClient(server.url), embedder);
  // The embedding share of indexing, measured apart (upsert embeds again inside).
  const texts = library.map((x) => (x.entry.kind === "skill" ? [x.entry.title, x.entry.principle, x.entry.whenToApply, x.entry.example ?? ""].join("\n") : [x.entry.description, x.entry.rootCause, x.entry.correction].join("\n")));
  t = performance.now();
  await embedder.embed(texts);
  const embedMs = performance.now() - t;
  note(`chroma: index ${library.length} entries …`);
  const batchMs: number[] = [];
  t = performance.now();
  for (const level of levels) {
    const mine = library.filter((x) => x.level === level).map((x) => x.entry);
    for (let i = 0; i < mine.length; i += BATCH) {
      const b0 = performance.now();
      await index.upsert(mine.slice(i, i + BATCH), { level, run: "bench", status: "final" });
      batchMs.push(performance.now() - b0);
    }
  }
  const indexMs = performance.now() - t;
  const count = await index.count();
  if (count !== library.length) throw new Error(`bench: chroma holds ${count} entries, expected ${library.length}`);
  rows2.push({ what: `chroma: index ${library.length.toLocaleString("en")} entries (upsert)`, n: batchMs.length, samples: batchMs, total: indexMs, note: `per batch of ≤${BATCH}; local embedder alone ${ms(embedMs)} ms in all` });
  const qtext = (i: number) => `${QUERIES[((i % QUERIES.length) + QUERIES.length) % QUERIES.length]} (${i})`;
  const qlevel = (i: number) => levels[((i * 7) % levels.length + levels.length) % levels.length]!;
  let hits = 0;
  rows2.push(
    await sampleAsync("chroma: query, level filter, limit 6", N.query, async (i) => {
      const r = await index.query(qtext(i), { level: qlevel(i), limit: 6 });
      hits += r.length;
    }, { note: "embed + HTTP + parse hits" }),
  );
  if (hits < 6 * N.query) throw new Error(`bench: level-filtered queries returned ${hits} hits, expected ${6 * N.query}`);
  rows2.push(await sampleAsync("chroma: query, level + kind skill, limit 6", N.query, (i) => index.query(qtext(i), { level: qlevel(i), kind: "skill", limit: 6 })));
  rows2.push(await sampleAsync("chroma: query, unfiltered, limit 6", N.query, (i) => index.query(qtext(i), { limit: 6 })));
  rows2.push(sample("local embedder, one query text", N.micro, () => embedder.embed([qtext(3)])));
  t = performance.now();
  await server.stop();
  chroma = undefined;
  rows2.push(oneOff("chroma: stop", performance.now() - t));

  // 3. quickstart
  const rows3 = section(`3. quickstart wall time (node bin/hexa.js run configs/quickstart.yaml${QUICK ? ", rounds: 3" : ""})`);
  const { simulationMs, agentMs, bankMs } = qs.time;
  const share = (v: number) => `${((100 * v) / qs.wallMs).toFixed(1)}% of wall`;
  rows3.push(oneOff("total wall (spawn → exit)", qs.wallMs, "100%"));
  rows3.push(oneOff("simulation (tool calls)", simulationMs, share(simulationMs)));
  rows3.push(oneOff("agent (episode time outside tools)", agentMs, share(agentMs)));
  rows3.push(oneOff("bank (updates)", bankMs, share(bankMs)));
  const rest = qs.wallMs - simulationMs - agentMs - bankMs;
  rows3.push(oneOff("rest (startup, IO, snapshots, metrics)", rest, share(rest)));
  rows3.push(oneOff("  of which CLI startup (hexa --help)", qs.startupMs, share(qs.startupMs)));

  printTables();
  console.log(`\nbench total ${((performance.now() - t0) / 1000).toFixed(1)} s${QUICK ? " (--quick)" : ""}; ${process.platform}/${process.arch}, node ${process.version}`);
} finally {
  await chroma?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
