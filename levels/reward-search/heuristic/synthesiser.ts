import { NO_EVIDENCE } from "../../../src/store/bank-weights.ts";
import type { BankEntry } from "../../../src/store/bank.ts";
import type { HeuristicSynthesis, HeuristicSynthesisRequest } from "../../../src/family/family.ts";
import { designOf } from "./evolver.ts";
import { termsOf, type Design } from "./terms.ts";

/**
 * The reward-search heuristic transfer synthesiser (docs/spec/method.md §6, no LLM): a source design's terms that the target
 * task's library also has (same name) become a target design, each weight clamped into the target term's range;
 * terms the target lacks are dropped, and a design with none left is not transferred. The primitive is the
 * term set; each entry cites its source and, from every other source bank, the heaviest design with the same
 * term set. Numbers stay in `payload.design` (the text names terms only).
 */
const MAX = { skill: 10, mistake: 4 } as const;

interface Mapped {
  level: string;
  entry: BankEntry;
  design: Design;
  primitive: string;
}

export const synthesiseDesigns = (o: HeuristicSynthesisRequest): HeuristicSynthesis => {
  const library = new Map(termsOf(o.target).map((t) => [t.name, t] as const));
  const mapped: Mapped[] = o.sources.flatMap((s) =>
    [...s.bank.skills, ...s.bank.mistakes].flatMap((entry): Mapped[] => {
      const d = designOf(entry);
      if (!d) return [];
      const design: Design = Object.fromEntries(
        Object.entries(d).flatMap(([k, w]) => {
          const t = library.get(k);
          return t ? [[k, Math.min(t.range[1], Math.max(t.range[0], w))]] : [];
        }),
      );
      const names = Object.keys(design).sort();
      return names.length ? [{ level: s.level, entry, design, primitive: `${entry.kind}: ${names.join(", ")}` }] : [];
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
  const entries: BankEntry[] = [];
  const citations: HeuristicSynthesis["citations"] = {};
  for (const kind of ["skill", "mistake"] as const) {
    const ordered = mapped
      .filter((m) => m.entry.kind === kind)
      .sort((a, b) => b.entry.weight - a.entry.weight || a.level.localeCompare(b.level) || a.entry.id.localeCompare(b.entry.id));
    for (const m of ordered) {
      const key = JSON.stringify(Object.entries(m.design).sort());
      const n = entries.filter((e) => e.kind === kind).length;
      if (seen.has(key) || n >= MAX[kind]) continue;
      seen.add(key);
      const peers = peersOf(m);
      const terms = Object.keys(m.design).sort().join(", ");
      const also = peers.length ? ` The same terms also worked on ${peers.map((p) => p.level).join(", ")}.` : "";
      const id = `${kind === "skill" ? "ts" : "tm"}${n + 1}`;
      const common = {
        id,
        sourceSeeds: [],
        generation: 0,
        weight: m.entry.weight,
        parents: [],
        evidence: NO_EVIDENCE,
        payload: { design: m.design, primitive: m.primitive },
      };
      entries.push(
        kind === "skill"
          ? {
              kind,
              ...common,
              sourceType: "transfer",
              title: `Start from the terms ${terms} (transferred from ${m.level})`,
              principle: `On ${m.level} a reward of the terms ${terms} trained a policy that reached the solved fitness.${also} ${o.target} has terms of the same names, so this design is a starting point here; it is untested on this task.`,
              whenToApply: `${o.target}: train this design first, then adjust one weight at a time.`,
            }
          : {
              kind,
              ...common,
              description: `On ${m.level} a reward of the terms ${terms} was committed and did not reach the solved fitness.`,
              rootCause: "Assumed these terms at these weights teach the task; the trainings showed they do not.",
              correction: `Do not commit this design on ${o.target} untested; change the term set or the weights that dominate it.`,
            },
      );
      citations[id] = [{ level: m.level, id: m.entry.id }, ...peers.map((p) => ({ level: p.level, id: p.entry.id }))];
    }
  }
  return { entries, citations };
};
