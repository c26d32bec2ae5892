import type { Skill } from "../../../src/store/bank.ts";
import type { HeuristicSynthesis, HeuristicSynthesisRequest } from "../../../src/family/capabilities.ts";
import { regionOf } from "./evolver.ts";
import { type BuildTransferred, synthesiseMapped, transferredBase, type TransferMapping } from "../../../agents/heuristic-synthesiser.ts";

/**
 * The Interphyre heuristic transfer synthesiser (docs/spec/method.md §6, no LLM): a source skill whose region is relative to
 * an object the target scene also has (green_ball, say) becomes a target skill with the same region. Its
 * primitive is the direction of the region from that object ("above-left of green_ball"), which the peers it
 * cites share (agents/heuristic-synthesiser.ts). The text carries no numbers (they belong
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

/** The bank cap M_max (docs/spec/method.md §3); mistakes are not transferred. */
const CAPS = { skill: 10, mistake: 0 };
/** Words, not numbers, for the radius: the source's radii are not the target's, but small vs large is a mechanism (a large ball pushes harder). */
const sizeOf = (r?: readonly [number, number]) =>
  !r ? "a red ball" : mid(r) < 0.5 ? "a small red ball" : mid(r) < 1 ? "a medium red ball" : "a large red ball";

interface Mapped extends TransferMapping {
  region: NonNullable<ReturnType<typeof regionOf>>;
}

/** A source skill whose region is relative to an object of the target scene; its primitive is the region's direction from that object. */
const mapRegion = (level: string, entry: Skill, targetObjects: readonly string[]): Mapped[] => {
  const region = regionOf(entry);
  // A region in world coordinates is another scene's coordinates: it does not transfer.
  if (!region || !targetObjects.includes(region.relativeTo)) return [];
  return [{ level, entry, region, primitive: `${sectorOf(region.dx, region.dy)} ${region.relativeTo}`, key: JSON.stringify(region) }];
};

const placeRegion =
  (target: string): BuildTransferred<Mapped> =>
  (m, id, peers) => {
    const also = peers.length ? ` The same direction also worked on ${peers.map((p) => p.level).join(", ")}.` : "";
    const where = m.primitive;
    return {
      kind: "skill",
      ...transferredBase(id, m),
      payload: { region: m.region, primitive: m.primitive },
      sourceType: "transfer",
      title: `Place ${sizeOf(m.region.radius)} ${where} (transferred from ${m.level})`,
      principle: `On ${m.level} ${sizeOf(m.region.radius)} placed ${where} solved the level.${also} ${target} has ${m.region.relativeTo} too, so the same offset from its initial centre is a candidate here; it is untested on this level.`,
      whenToApply: `${target}: measure from ${m.region.relativeTo}'s initial centre, try this offset early and verify it by simulation.`,
    };
  };

export const synthesiseRegions = (o: HeuristicSynthesisRequest & { targetObjects: readonly string[] }): HeuristicSynthesis =>
  synthesiseMapped(
    o.sources.flatMap((s) => s.bank.skills.flatMap((entry) => mapRegion(s.level, entry, o.targetObjects))),
    { caps: CAPS, build: placeRegion(o.target) },
  );
