import { placementOf } from "../action.ts";
import type { LevelInstance } from "../instance.ts";
import { NO_EVIDENCE } from "../../../src/store/bank-weights.ts";
import type { Bank, BankEntry, BankEvent, Evidence, Mistake, Skill } from "../../../src/store/bank.ts";
import { DEFAULT_CAPS, event, idMaker, seedsOf, weigh, withCaps, type BankCaps, type Labelled } from "../../../agents/evolver-labels.ts";
import type { HeuristicHint } from "./hints.ts";
import { Region } from "./region.ts";
import type { Trajectory } from "../../../src/store/trajectory.ts";

/**
 * The heuristic (non-LLM) evolver: same contract as agents/evolver.ts (bank and labelled trajectories in,
 * BankEvent[] out), but its entries are placement regions relative to the first goal object's initial centre.
 * A skill is a region where final actions solved seeds; a mistake is one where committed actions failed.
 * The machine-readable region is the entry's typed `payload.region`, so its text stays sentences a model can
 * read; banks written before the family seam carried it as `hint: {json}` at the end of `example` / `correction`,
 * which `regionOf` still reads.
 */

/** Half-widths of an observed region (m): a skill is "near this placement", a mistake only "at it". */
const SKILL_HALF = 0.4;
const MISTAKE_HALF = 0.25;
const RADIUS_HALF = 0.15;
/** Prune threshold for entries not re-observed this round (docs/spec/method.md §4). */
const LOW_WEIGHT = 0.3;

/** The version-1 encoding inside the text (still read, never written). */
const MARK = "hint: ";

/** The region stored in an entry, or undefined for an entry written by someone else (never throws). */
export const regionOf = (e: BankEntry): Region | undefined => {
  if (e.payload?.region !== undefined) {
    const typed = Region.safeParse(e.payload.region);
    return typed.success ? typed.data : undefined;
  }
  const text = e.kind === "skill" ? (e.example ?? "") : e.correction;
  const at = text.lastIndexOf(MARK);
  if (at < 0) return undefined;
  try {
    const parsed = Region.safeParse(JSON.parse(text.slice(at + MARK.length)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** "+ 0" turns −0 into 0, as the JSON round trip of a stored region does: an in-memory and a resumed bank agree. */
const r2 = (v: number) => Math.round(v * 100) / 100 + 0;
const span = (lo: number, hi: number): [number, number] => [r2(lo), r2(hi)];
const meets = (a: readonly [number, number], b: readonly [number, number]) => a[0] <= b[1] && b[0] <= a[1];
/** Same origin and overlapping in dx, dy and radius: the radius matters because the offset that works scales with it. */
const overlaps = (a: Region, b: Region) =>
  a.relativeTo === b.relativeTo && meets(a.dx, b.dx) && meets(a.dy, b.dy) && (!a.radius || !b.radius || meets(a.radius, b.radius));
/**
 * Two regions as one: centred on their mass-weighted mean, as wide as the wider one. A hull would grow with
 * every merge until its centre, the first hinted placement, lay between the placements that actually worked.
 */
const blend = (a: readonly [number, number], ma: number, b: readonly [number, number], mb: number): [number, number] => {
  const centre = ((a[0] + a[1]) * ma + (b[0] + b[1]) * mb) / (2 * (ma + mb));
  const half = Math.max(a[1] - a[0], b[1] - b[0]) / 2;
  return span(centre - half, centre + half);
};
const union = (a: Region, ma: number, b: Region, mb: number): Region => ({
  relativeTo: a.relativeTo,
  dx: blend(a.dx, ma, b.dx, mb),
  dy: blend(a.dy, ma, b.dy, mb),
  ...(a.radius && b.radius ? { radius: blend(a.radius, ma, b.radius, mb) } : {}),
});
const same = (a: Region, b: Region) => JSON.stringify(a) === JSON.stringify(b);

interface Observation {
  source: Labelled;
  region: Region;
}

/** The committed (or successful) action's offset from the first goal object's initial centre, as a region. */
const observe = (l: Labelled, inst: LevelInstance, half: number): Observation | undefined => {
  const a = placementOf(l.trajectory.action);
  const ref = inst.goal[0];
  const o = inst.scene[ref];
  if (!a || !o) return undefined;
  const [rLo, rHi] = inst.bounds.radius;
  const radius = span(Math.max(rLo, a.radius - RADIUS_HALF), Math.min(rHi, a.radius + RADIUS_HALF));
  return { source: l, region: { relativeTo: ref, dx: span(a.x - o.x - half, a.x - o.x + half), dy: span(a.y - o.y - half, a.y - o.y + half), radius } };
};

interface Cluster {
  region: Region;
  /** Trajectories behind the region so far: its pull when merged. */
  mass: number;
  existing: BankEntry[];
  observed: Observation[];
}

/** Greedy union of overlapping regions: an item joins (and joins together) every cluster it overlaps. */
const cluster = (existing: readonly BankEntry[], observed: readonly Observation[]): Cluster[] => {
  let out: Cluster[] = [];
  const insert = (c: Cluster) => {
    const hit = out.filter((k) => overlaps(k.region, c.region));
    const merged = hit.reduce(
      (acc, k) => ({
        region: union(k.region, k.mass, acc.region, acc.mass),
        mass: k.mass + acc.mass,
        existing: [...k.existing, ...acc.existing],
        observed: [...k.observed, ...acc.observed],
      }),
      c,
    );
    out = [...out.filter((k) => !hit.includes(k)), merged];
  };
  existing.forEach((e) => {
    const region = regionOf(e);
    if (region) insert({ region, mass: Math.max(1, e.evidence.count), existing: [e], observed: [] });
  });
  observed.forEach((o) => insert({ region: o.region, mass: 1, existing: [], observed: [o] }));
  return out;
};

const fmt = (r: Region) =>
  `dx [${r.dx.join(", ")}], dy [${r.dy.join(", ")}] m from ${r.relativeTo}'s initial centre${r.radius ? `, radius [${r.radius.join(", ")}]` : ""}`;

const centre = ([lo, hi]: readonly [number, number]) => r2((lo + hi) / 2);
/** Says where, so that a bank of several regions reads as several skills. */
const skillTitle = (level: string, r: Region): string =>
  `Place the red ball near ${r.relativeTo}, offset (${centre(r.dx)}, ${centre(r.dy)}) m${r.radius ? `, radius ≈ ${centre(r.radius)}` : ""} (${level})`;

type Text = Pick<Skill, "title" | "principle" | "whenToApply" | "example"> | Pick<Mistake, "description" | "rootCause" | "correction">;
const skillText = (level: string, r: Region, n: number): Text => ({
  title: skillTitle(level, r),
  principle: `On ${n} solved seed(s) a red ball at ${fmt(r)} solved the level. The offset is taken from the goal object's initial position, so it transfers across seeds of this level.`,
  whenToApply: `Any seed of ${level}: measure the offset from ${r.relativeTo}'s initial centre and test this region first.`,
  example: `Start at ${r.relativeTo}'s initial centre plus (${centre(r.dx)}, ${centre(r.dy)}) m${r.radius ? ` with radius ${centre(r.radius)}` : ""}.`,
});
const mistakeText = (r: Region, n: number): Text => ({
  description: `A red ball committed at ${fmt(r)} failed on ${n} seed(s).`,
  rootCause: "Assumed that a ball there sets the goal pair in contact; the rollouts showed it does not.",
  correction: "Do not spend turns in this region; test other placements.",
});

interface HeuristicEvolveOptions {
  round: number;
  level: string;
  bank: Bank;
  labelled: readonly Labelled[];
  /** The scene a trajectory was played on (its first goal object is the regions' origin). */
  instanceOf: (t: Trajectory) => LevelInstance;
  caps?: BankCaps;
}

/**
 * One heuristic update (distillation when the bank is empty): overlapping regions merge, a retained region that
 * is re-observed is re-cited (reweight, or revise when it grew), unobserved entries below weight 0.3 are pruned,
 * mistakes overlapping a skill region are pruned as contradicted; weights per docs/spec/method.md §3; caps enforced.
 */
export const evolveHeuristic = (o: HeuristicEvolveOptions): BankEvent[] => {
  const base = { schemaVersion: 1 as const, round: o.round };
  const obs = (success: boolean, half: number) =>
    o.labelled.filter((l) => l.trajectory.success === success).flatMap((l) => observe(l, o.instanceOf(l.trajectory), half) ?? []);
  const skills = cluster(o.bank.skills, obs(true, SKILL_HALF));
  const fails = obs(false, MISTAKE_HALF).filter((f) => !skills.some((s) => overlaps(s.region, f.region)));
  const contradicted = o.bank.mistakes.filter((m) => {
    const r = regionOf(m);
    return r && skills.some((s) => s.observed.length && overlaps(s.region, r));
  });
  const mistakes = cluster(
    o.bank.mistakes.filter((m) => !contradicted.includes(m)),
    fails,
  );
  const nextId = { skill: idMaker(o.bank, "s", o.round), mistake: idMaker(o.bank, "m", o.round) };

  const update =
    (kind: BankEntry["kind"]) =>
    (c: Cluster): BankEvent[] => {
      const sources = c.observed.map((x) => x.source);
      const ids = sources.map((s) => s.id);
      const [only] = c.existing;
      if (!sources.length && only && c.existing.length === 1) {
        return only.weight < LOW_WEIGHT
          ? [event({ ...base, type: "prune", id: only.id, why: "low_weight", reason: `weight ${only.weight.toFixed(2)} < ${LOW_WEIGHT} and not re-observed` })]
          : [];
      }
      const prior: Evidence = c.existing.reduce((s, e) => ({ sumR: s.sumR + e.evidence.sumR, count: s.count + e.evidence.count }), NO_EVIDENCE);
      const w = weigh(prior, sources, o.labelled, { kind, mode: "labelled" });
      if (only && c.existing.length === 1 && same(regionOf(only)!, c.region)) {
        return [event({ ...base, type: "reweight", id: only.id, weight: w.weight, evidenceState: w.evidence, evidence: ids, reason: "region re-observed" })];
      }
      const n = w.evidence.count;
      const entry = {
        ...(kind === "skill"
          ? { kind, sourceType: c.existing.length ? "evolved" : "contrastive", ...skillText(o.level, c.region, n) }
          : { kind, ...mistakeText(c.region, n) }),
        id: c.existing.length === 1 && only ? only.id : nextId[kind](),
        sourceSeeds: seedsOf(
          sources,
          c.existing.flatMap((e) => e.sourceSeeds),
        ),
        generation: o.round,
        weight: w.weight,
        parents: c.existing.map((e) => e.id),
        evidence: w.evidence,
        payload: { region: c.region },
      } as BankEntry;
      if (!c.existing.length) return [event({ ...base, type: "add", entry, evidence: ids, reason: "new region" })];
      if (c.existing.length === 1) return [event({ ...base, type: "revise", entry, evidence: ids, reason: "region grew with new evidence" })];
      return [event({ ...base, type: "merge", from: c.existing.map((e) => e.id), entry, evidence: ids, reason: "overlapping regions" })];
    };

  const events = [
    ...contradicted.map((m) => event({ ...base, type: "prune", id: m.id, why: "contradicted", reason: "a region solved seeds this round" })),
    ...skills.flatMap(update("skill")),
    ...mistakes.flatMap(update("mistake")),
  ];
  return withCaps(o.bank, events, o.caps ?? DEFAULT_CAPS, o.round);
};

/** Region hints from the bank's skills and avoid hints from its mistakes, weighted like the entries. */
export const hintsFromBank = (bank: Bank, instance: LevelInstance): HeuristicHint[] =>
  [...bank.skills, ...bank.mistakes].flatMap((e): HeuristicHint[] => {
    const r = regionOf(e);
    if (!r || (r.relativeTo !== "world" && !instance.scene[r.relativeTo])) return [];
    const weight = Math.max(e.weight, 0.01);
    return e.kind === "skill"
      ? [{ kind: "region", relativeTo: r.relativeTo, dx: r.dx, dy: r.dy, ...(r.radius ? { radius: r.radius } : {}), weight }]
      : [{ kind: "avoid", relativeTo: r.relativeTo, dx: r.dx, dy: r.dy, weight }];
  });
