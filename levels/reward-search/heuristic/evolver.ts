import { z } from "zod";
import { DEFAULT_CAPS, event, idMaker, seedsOf, weigh, withCaps, type BankCaps, type Labelled } from "../../../agents/evolver-labels.ts";
import { NO_EVIDENCE } from "../../../src/store/bank-weights.ts";
import type { Bank, BankEntry, BankEvent, Evidence } from "../../../src/store/bank.ts";
import { rewardActionOf } from "../action.ts";
import type { DesignHint } from "./designer.ts";
import type { Design } from "./terms.ts";

/**
 * The heuristic evolver of the reward-search family (docs/spec/reward-search.md §9): same contract as agents/evolver.ts. A skill is
 * a term set with weights that solved seeds (its weights the evidence-weighted mean of the solving designs); a
 * mistake is a committed design that failed. The design rides in the entry's typed `payload.design`; the text
 * says it in sentences.
 */
const DesignSchema = z.record(z.string(), z.number());
/** A bank entry's payload in this family (LevelFamily.heuristics?.payload): the design, and the transfer synthesiser's primitive. */
export const RewardBankPayload = z.looseObject({ design: DesignSchema.optional(), primitive: z.string().optional() });
const LOW_WEIGHT = 0.3;

export const designOf = (e: BankEntry): Design | undefined => {
  const p = DesignSchema.safeParse(e.payload?.design);
  return p.success ? p.data : undefined;
};

const terms = (d: Design) => Object.keys(d).sort().join("+");
const fmt = (d: Design) =>
  Object.entries(d)
    .map(([k, w]) => `${k} ${Number(w.toPrecision(3))}`)
    .join(", ");
const mean = (ds: readonly { d: Design; mass: number }[]): Design => {
  const total = ds.reduce((s, x) => s + x.mass, 0);
  return Object.fromEntries(Object.keys(ds[0]!.d).map((k) => [k, Number((ds.reduce((s, x) => s + x.d[k]! * x.mass, 0) / total).toPrecision(4))]));
};

export interface RewardEvolveOptions {
  round: number;
  level: string;
  bank: Bank;
  labelled: readonly Labelled[];
  caps?: BankCaps;
}

export const evolveRewardHeuristic = (o: RewardEvolveOptions): BankEvent[] => {
  const base = { schemaVersion: 1 as const, round: o.round };
  const nextId = { skill: idMaker(o.bank, "s", o.round), mistake: idMaker(o.bank, "m", o.round) };
  const designed = o.labelled.flatMap((l) => {
    const a = rewardActionOf(l.trajectory.action);
    return a?.design ? [{ l, design: a.design }] : [];
  });
  const events: BankEvent[] = [];
  const groups = (success: boolean, entries: readonly BankEntry[]) => {
    const byTerms = new Map<string, { existing: BankEntry[]; observed: typeof designed }>();
    const at = (k: string) => byTerms.get(k) ?? byTerms.set(k, { existing: [], observed: [] }).get(k)!;
    for (const e of entries) {
      const d = designOf(e);
      if (d) at(terms(d)).existing.push(e);
    }
    for (const x of designed.filter((x) => x.l.trajectory.success === success)) at(terms(x.design)).observed.push(x);
    return [...byTerms.values()];
  };
  const update = (kind: "skill" | "mistake") => (g: { existing: BankEntry[]; observed: typeof designed }) => {
    const sources = g.observed.map((x) => x.l);
    const [only] = g.existing;
    if (!sources.length) {
      for (const e of g.existing) {
        if (e.weight < LOW_WEIGHT)
          events.push(
            event({ ...base, type: "prune", id: e.id, why: "low_weight", reason: `weight ${e.weight.toFixed(2)} < ${LOW_WEIGHT} and not re-observed` }),
          );
      }
      return;
    }
    const prior: Evidence = g.existing.reduce((s, e) => ({ sumR: s.sumR + e.evidence.sumR, count: s.count + e.evidence.count }), NO_EVIDENCE);
    const w = weigh(prior, sources, o.labelled, { kind, mode: "labelled" });
    const design = mean([
      ...g.existing.map((e) => ({ d: designOf(e)!, mass: Math.max(1, e.evidence.count) })),
      ...g.observed.map((x) => ({ d: x.design, mass: 1 })),
    ]);
    const scores = sources.flatMap((s) => (s.trajectory.score === undefined ? [] : [s.trajectory.score.toFixed(1)]));
    const text =
      kind === "skill"
        ? {
            kind,
            sourceType: g.existing.length ? ("evolved" as const) : ("contrastive" as const),
            title: `Start from the terms ${Object.keys(design).sort().join(", ")} (${o.level})`,
            principle: `On ${w.evidence.count} solved seed(s) a reward of the terms ${fmt(design)} (weight × term, summed) trained a policy that reached the solved fitness${scores.length ? ` (F ${scores.join(", ")})` : ""}. Its weights are the evidence-weighted mean of the designs that solved.`,
            whenToApply: `Any seed of ${o.level}: train this design first, then adjust one weight at a time.`,
            example: `Weights: ${fmt(design)}.`,
          }
        : {
            kind,
            description: `The reward design ${fmt(design)} was committed and did not reach the solved fitness on ${w.evidence.count} seed(s)${scores.length ? ` (F ${scores.join(", ")})` : ""}.`,
            rootCause: "Assumed these terms at these weights teach the task; the trainings showed they do not.",
            correction: "Do not commit this design again; change the term set or the weights that dominate it.",
          };
    const entry = {
      ...text,
      id: g.existing.length === 1 && only ? only.id : nextId[kind](),
      sourceSeeds: seedsOf(
        sources,
        g.existing.flatMap((e) => e.sourceSeeds),
      ),
      generation: o.round,
      weight: w.weight,
      parents: g.existing.map((e) => e.id),
      evidence: w.evidence,
      payload: { design },
    } as BankEntry;
    const ids = sources.map((s) => s.id);
    if (!g.existing.length) events.push(event({ ...base, type: "add", entry, evidence: ids, reason: `new ${kind === "skill" ? "solving" : "failed"} design` }));
    else if (g.existing.length === 1) events.push(event({ ...base, type: "revise", entry, evidence: ids, reason: "design re-observed; weights re-averaged" }));
    else events.push(event({ ...base, type: "merge", from: g.existing.map((e) => e.id), entry, evidence: ids, reason: "same term set" }));
  };
  groups(true, o.bank.skills).forEach(update("skill"));
  groups(false, o.bank.mistakes).forEach(update("mistake"));
  return withCaps(o.bank, events, o.caps ?? DEFAULT_CAPS, o.round);
};

/** Start hints from skills and avoid hints from mistakes, weighted like the entries. */
export const designHintsFromBank = (bank: Bank): DesignHint[] =>
  [...bank.skills, ...bank.mistakes].flatMap((e): DesignHint[] => {
    const design = designOf(e);
    return design ? [{ kind: e.kind === "skill" ? "start" : "avoid", design, weight: e.weight }] : [];
  });
