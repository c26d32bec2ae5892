import type { BankEntry } from "../../../src/store/bank.ts";
import type { HeuristicSynthesis, HeuristicSynthesisRequest } from "../../../src/family/capabilities.ts";
import { designOf } from "./evolver.ts";
import { termsOf, type Design, type Term } from "./terms.ts";
import { type BuildTransferred, synthesiseMapped, transferredBase, type TransferMapping } from "../../../agents/heuristic-synthesiser.ts";

/**
 * The reward-search heuristic transfer synthesiser (docs/spec/method.md §6, no LLM): a source design's terms that the target
 * task's library also has (same name) become a target design, each weight clamped into the target term's range;
 * terms the target lacks are dropped, and a design with none left is not transferred. The primitive is the
 * term set, which the peers it cites share (agents/heuristic-synthesiser.ts). Numbers stay in `payload.design` (the text names terms only).
 */
const CAPS = { skill: 10, mistake: 4 } as const;

interface Mapped extends TransferMapping {
  design: Design;
}

/** A source design's terms that the target's library has, each weight clamped into the target term's range; none left: nothing. */
const mapDesign = (level: string, entry: BankEntry, library: ReadonlyMap<string, Term>): Mapped[] => {
  const d = designOf(entry);
  if (!d) return [];
  const design: Design = Object.fromEntries(
    Object.entries(d).flatMap(([k, w]) => {
      const t = library.get(k);
      return t ? [[k, Math.min(t.range[1], Math.max(t.range[0], w))]] : [];
    }),
  );
  const names = Object.keys(design).sort();
  const key = JSON.stringify(Object.entries(design).sort());
  return names.length ? [{ level, entry, design, primitive: `${entry.kind}: ${names.join(", ")}`, key }] : [];
};

const startFrom =
  (target: string): BuildTransferred<Mapped> =>
  (m, id, peers) => {
    const terms = Object.keys(m.design).sort().join(", ");
    const also = peers.length ? ` The same terms also worked on ${peers.map((p) => p.level).join(", ")}.` : "";
    const common = {
      ...transferredBase(id, m),
      payload: { design: m.design, primitive: m.primitive },
    };
    return m.entry.kind === "skill"
      ? {
          kind: "skill",
          ...common,
          sourceType: "transfer",
          title: `Start from the terms ${terms} (transferred from ${m.level})`,
          principle: `On ${m.level} a reward of the terms ${terms} trained a policy that reached the solved fitness.${also} ${target} has terms of the same names, so this design is a starting point here; it is untested on this task.`,
          whenToApply: `${target}: train this design first, then adjust one weight at a time.`,
        }
      : {
          kind: "mistake",
          ...common,
          description: `On ${m.level} a reward of the terms ${terms} was committed and did not reach the solved fitness.`,
          rootCause: "Assumed these terms at these weights teach the task; the trainings showed they do not.",
          correction: `Do not commit this design on ${target} untested; change the term set or the weights that dominate it.`,
        };
  };

export const synthesiseDesigns = (o: HeuristicSynthesisRequest): HeuristicSynthesis => {
  const library = new Map(termsOf(o.target).map((t) => [t.name, t] as const));
  return synthesiseMapped(
    o.sources.flatMap((s) => [...s.bank.skills, ...s.bank.mistakes].flatMap((entry) => mapDesign(s.level, entry, library))),
    { caps: CAPS, build: startFrom(o.target) },
  );
};
