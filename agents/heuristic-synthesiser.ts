import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import type { BankEntry } from "../src/store/bank.ts";
import type { HeuristicSynthesis } from "../src/family/capabilities.ts";

/**
 * What the heuristic transfer synthesisers share (docs/spec/method.md §6, no LLM): each family maps the source
 * entries that carry over to the target (a region relative to an object the target has, a design of terms the
 * target has) and names each mapping's primitive; this orders them by weight, keeps one entry per distinct
 * mapping up to the caps, and cites, from every other source bank, the heaviest mapping with the same primitive,
 * so the audit's weight rule (≥ 0.7 only with ≥ 2 source banks) reads the shared primitive.
 */

/** One source entry as the family maps it to the target. */
export interface TransferMapping {
  /** The source level. */
  level: string;
  entry: BankEntry;
  /** What the mapping stands for across levels ("above and right of green_ball", "skill: alive, upright"): peers share it. */
  primitive: string;
  /** Two mappings with the same key are one entry in the target (the first, heaviest, is kept). */
  key: string;
}

/** The family's text of the target entry for `m`, given its fresh id and the peers that cite the same primitive. */
export type BuildTransferred<M extends TransferMapping> = (m: M, id: string, peers: readonly M[]) => BankEntry;

/** What every transferred entry starts from: its id and source weight, no seeds, parents or evidence of its own yet. */
export const transferredBase = (id: string, m: TransferMapping): Pick<BankEntry, "id" | "sourceSeeds" | "generation" | "weight" | "parents" | "evidence"> => ({
  id,
  sourceSeeds: [],
  generation: 0,
  weight: m.entry.weight,
  parents: [],
  evidence: NO_EVIDENCE,
});

/** Fresh transferred ids: ts1, ts2 … for skills, tm1 … for mistakes. */
const ID_PREFIX = { skill: "ts", mistake: "tm" } as const;

/** From every other source level, the heaviest mapping with the same primitive as `m`. */
const peersOf = <M extends TransferMapping>(mapped: readonly M[], m: M): M[] =>
  [...new Set(mapped.map((x) => x.level))]
    .filter((l) => l !== m.level)
    .flatMap((l) =>
      mapped
        .filter((x) => x.level === l && x.primitive === m.primitive)
        .sort((a, b) => b.entry.weight - a.entry.weight)
        .slice(0, 1),
    );

/** Heaviest first; ties by level, then by id, so the synthesis is the same on every machine. */
const byWeight = (a: TransferMapping, b: TransferMapping) =>
  b.entry.weight - a.entry.weight || a.level.localeCompare(b.level) || a.entry.id.localeCompare(b.entry.id);

/** The target bank's entries from the family's mappings: skills first, then mistakes, each kind up to its cap. */
export const synthesiseMapped = <M extends TransferMapping>(
  mapped: readonly M[],
  o: { caps: { skill: number; mistake: number }; build: BuildTransferred<M> },
): HeuristicSynthesis => {
  const seen = new Set<string>();
  const entries: BankEntry[] = [];
  const citations: HeuristicSynthesis["citations"] = {};
  for (const kind of ["skill", "mistake"] as const) {
    let n = 0;
    for (const m of mapped.filter((x) => x.entry.kind === kind).sort(byWeight)) {
      if (seen.has(m.key) || n >= o.caps[kind]) continue;
      seen.add(m.key);
      const peers = peersOf(mapped, m);
      const id = `${ID_PREFIX[kind]}${++n}`;
      entries.push(o.build(m, id, peers));
      citations[id] = [{ level: m.level, id: m.entry.id }, ...peers.map((p) => ({ level: p.level, id: p.entry.id }))];
    }
  }
  return { entries, citations };
};
