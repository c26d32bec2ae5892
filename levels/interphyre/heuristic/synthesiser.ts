import { NO_EVIDENCE } from "../../../src/store/bank-weights.ts";
import type { Skill } from "../../../src/store/bank.ts";
import type { HeuristicSynthesis, HeuristicSynthesisRequest } from "../../../src/family/family.ts";
import { regionOf } from "./evolver.ts";

/**
 * The Interphyre heuristic transfer synthesiser (docs/spec/method.md §6, no LLM): a source skill whose region is relative to
 * an object the target scene also has (green_ball, say) becomes a target skill with the same region. Its
 * primitive is the direction of the region from that object ("above-left of green_ball"); each entry cites its
 * source and, from every other source bank, the heaviest entry with the same primitive, so the audit's weight
 * rule (≥ 0.7 only with ≥ 2 source banks) reads the shared direction. The text carries no numbers (they belong
 * to the source level); the region rides in `payload.region` for the heuristic agent.
 *
 * Mistakes are not transferred: a region that failed on another level becomes an avoid hint that keeps the
 * agent out of that place in the target on no evidence from it. Catapult's solutions lie right of and above
 * green_ball, where pass_the_parcel's failures are. With them: 7/20 on catapult seeds 60–79; without: 13/20;
 * no bank: 11/20.
 */

const SECTORS = ["right of", "above and right of", "above", "above and left of", "left of", "below and left of", "below", "below and right of"] as const;
const mid = ([lo, hi]: readonly [number, number]) => (lo + hi) / 2;
const sectorOf = (dx: readonly [number, number], dy: readonly [number, number]) => SECTORS[(Math.round(Math.atan2(mid(dy), mid(dx)) / (Math.PI / 4)) + 8) % 8]!;

/** The bank cap M_max (docs/spec/method.md §3). */
const MAX_SKILLS = 10;
/** Words, not numbers, for the radius: the source's radii are not the target's, but small vs large is a mechanism (a large ball pushes harder). */
const sizeOf = (r?: readonly [number, number]) =>
  !r ? "a red ball" : mid(r) < 0.5 ? "a small red ball" : mid(r) < 1 ? "a medium red ball" : "a large red ball";

interface Mapped {
  level: string;
  entry: Skill;
  region: NonNullable<ReturnType<typeof regionOf>>;
  primitive: string;
  where: string;
}

export const synthesiseRegions = (o: HeuristicSynthesisRequest & { targetObjects: readonly string[] }): HeuristicSynthesis => {
  const mapped: Mapped[] = o.sources.flatMap((s) =>
    s.bank.skills.flatMap((entry): Mapped[] => {
      const region = regionOf(entry);
      // A region in world coordinates is another scene's coordinates: it does not transfer.
      if (!region || !o.targetObjects.includes(region.relativeTo)) return [];
      const where = `${sectorOf(region.dx, region.dy)} ${region.relativeTo}`;
      return [{ level: s.level, entry, region, primitive: where, where }];
    }),
  );
  const peersOf = (m: Mapped) =>
    [...new Set(mapped.map((x) => x.level))]
      .filter((l) => l !== m.level)
      .flatMap((l) =>
        mapped
          .filter((x) => x.level === l && x.primitive === m.primitive)
          .sort((a, b) => b.entry.weight - a.entry.weight)
          .slice(0, 1),
      );
  const seen = new Set<string>();
  const entries: Skill[] = [];
  const citations: HeuristicSynthesis["citations"] = {};
  const ordered = [...mapped].sort((a, b) => b.entry.weight - a.entry.weight || a.level.localeCompare(b.level) || a.entry.id.localeCompare(b.entry.id));
  for (const m of ordered) {
    const key = JSON.stringify(m.region);
    if (seen.has(key) || entries.length >= MAX_SKILLS) continue;
    seen.add(key);
    const peers = peersOf(m);
    const also = peers.length ? ` The same direction also worked on ${peers.map((p) => p.level).join(", ")}.` : "";
    const id = `ts${entries.length + 1}`;
    entries.push({
      kind: "skill",
      id,
      sourceSeeds: [],
      generation: 0,
      weight: m.entry.weight,
      parents: [],
      evidence: NO_EVIDENCE,
      payload: { region: m.region, primitive: m.primitive },
      sourceType: "transfer",
      title: `Place ${sizeOf(m.region.radius)} ${m.where} (transferred from ${m.level})`,
      principle: `On ${m.level} ${sizeOf(m.region.radius)} placed ${m.where} solved the level.${also} ${o.target} has ${m.region.relativeTo} too, so the same offset from its initial centre is a candidate here; it is untested on this level.`,
      whenToApply: `${o.target}: measure from ${m.region.relativeTo}'s initial centre, try this offset early and verify it by simulation.`,
    });
    citations[id] = [{ level: m.level, id: m.entry.id }, ...peers.map((p) => ({ level: p.level, id: p.entry.id }))];
  }
  return { entries, citations };
};
