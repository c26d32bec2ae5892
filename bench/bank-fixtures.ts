/** Inputs of bench/bank.ts: real heuristic trajectories, full banks, scripted evolver answers, event logs and a synthetic skill library. */
import { runHeuristicEpisode } from "../levels/interphyre/heuristic/agent.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";
import { createInstance, type LevelInstance } from "../levels/interphyre/instance.ts";
import type { AssistantTurn } from "../src/llm/chat-model.ts";
import type { RoleModel } from "../src/llm/ask.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import type { Bank, BankEntry, BankEvent, Mistake, Skill } from "../src/store/bank.ts";
import type { Trajectory } from "../src/store/trajectory.ts";
import { createRng, type Rng } from "../src/util/rng.ts";

/** Three real heuristic episodes on certified seeds: two ordinary ones and one with a 3-turn budget (to get a failure). */
export const realTrajectories = (level: string): Trajectory[] => {
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
  const region = {
    relativeTo: inst.goal[0],
    dx: [r2(dx - half), r2(dx + half)],
    dy: [r2(dy - half), r2(dy + half)],
    radius: [r2(Math.max(lo, r - 0.15)), r2(Math.min(hi, r + 0.15))],
  };
  return `hint: ${JSON.stringify(region)}`;
};

/**
 * A full heuristic-evolver bank (10 skills, 5 mistakes) in the regions format, laid out on a grid around the
 * first success's offset so that the update re-cites, revises and merges; regions never overlap each other.
 */
export const fullBank = (inst: LevelInstance, around: { dx: number; dy: number; radius: number }): Bank => {
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
export const overCap = (bank: Bank): Bank => ({
  skills: [...bank.skills, ...bank.skills.map((s, i) => ({ ...s, id: `x${s.id}`, weight: ((i * 37) % 100) / 100 }))],
  mistakes: [...bank.mistakes, ...bank.mistakes.map((m, i) => ({ ...m, id: `x${m.id}`, weight: ((i * 53) % 100) / 100 }))],
});

/** A model that answers at once, from a queue (model time excluded: only hexa's bookkeeping is timed). */
export const instantModel = (answers: unknown[]): RoleModel => {
  const queue = answers.map((a) => JSON.stringify(a));
  return answeredBy("instant", async (): Promise<AssistantTurn> => {
    const text = queue.shift();
    if (text === undefined) throw new Error("bench: instant model ran out of answers");
    return { text, toolCalls: [], usage: { input: 0, output: 0, cached: 0 }, model: "instant", latencyMs: 0, fromCache: false };
  });
};

export const skillText = (title: string, sources: string[]) => ({
  title,
  principle: `${title}: the red ball must reach the goal pair with enough momentum; a placement above and slightly left of the target lets gravity do the work.`,
  when_to_apply: "When the goal object rests on a ledge with open space above it.",
  example: "x=-1.2, y=3.4, radius=0.5 solved seed 17",
  sources,
});
export const mistakeText = (i: number, sources: string[]) => ({
  description: `Mistake ${i}: the ball lands short of the goal and rolls away.`,
  root_cause: "Assumed the ball keeps its horizontal speed after the first bounce.",
  correction: "Place it higher and closer to the goal object so it arrives with downward speed.",
  sources,
});

/** One evolve answer that accounts for every id: keeps with sources, a revise, a merge, a prune and an add. */
export const evolveAnswer = (bank: Bank, ids: string[]) => {
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
export const eventLog = (rounds: number, rng: Rng, template: Bank): BankEvent[] => {
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
    const entry: BankEntry =
      kind === "skill" ? { ...template.skills[0]!, id: `e${next++}`, generation: round } : { ...template.mistakes[0]!, id: `e${next++}`, generation: round };
    alive.push(entry);
    out.push({ ...base(round), type: "merge", from: pair.map((x) => x.id), entry });
    for (let i = 0; i < 3; i++) out.push({ ...base(round), type: "prune", id: take().id, why: "low_weight" });
    for (let i = 0; i < 8; i++)
      out.push({ ...base(round), type: "reweight", id: pick().id, weight: rng.random(), evidenceState: { sumR: rng.random(), count: 2 } });
    for (let i = 0; i < 4; i++) {
      const e = pick();
      out.push({ ...base(round), type: "revise", entry: { ...e, generation: round } });
    }
  }
  return out;
};

// The 25-level library.

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

export const libraryEntry = (level: string, kind: BankEntry["kind"], k: number, rng: Rng): BankEntry => {
  const w = <K extends keyof typeof WORDS>(key: K) => rng.choice(WORDS[key]);
  const common = {
    id: `${kind[0]}${k}`,
    sourceSeeds: [rng.integers(0, 1000)],
    generation: rng.integers(0, 18),
    weight: Math.round(rng.uniform(0.1, 1) * 1000) / 1000,
    parents: [],
    evidence: { sumR: rng.uniform(-2, 4), count: rng.integers(1, 6) },
  };
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

export interface Tagged {
  level: string;
  entry: BankEntry;
}

export const QUERIES = [
  "the ball falls short of the goal and rolls away",
  "tip the bar so the green ball touches the blue ball",
  "place the red ball above the ledge so gravity drops it onto the target",
  "launch across the gap with a bounce off the ramp",
  "the seesaw needs weight on the left end",
  "push the platform so the basket tilts",
  "a small ball in the corner does nothing",
  "wedge the ball between the wall and the purple bar",
];
