/**
 * The lineage of a reward search for `hexa inspect` (docs/spec/reward-search.md §8.2): every candidate of a `candidates.jsonl` as a node
 * of its tree (operator, F of the final policy, the best checkpoint labelled apart, the error of a failed training,
 * the code, thought and feedback), with the edges parent → child and the best candidate marked. Pure; the app
 * reads the files (src/app/inspect-load.ts) and says which candidate is the best (the search's own rule).
 */

/** One line of candidates.jsonl, as far as the view needs it (the record schema is the reward-search family's). */
interface SearchCandidateInput {
  index: number;
  strategy: string;
  iteration: number;
  operator: string;
  parent: number | null;
  related: readonly number[];
  thought: string;
  draftThought?: string;
  code: string;
  design?: Readonly<Record<string, number>>;
  note?: string;
  /** RF-Agent's re-debug: the codes the check refused before this one, with their errors. */
  repairs?: readonly { code: string; error: string }[];
  vSelf?: number;
  vSelfNote?: string;
  trainSeed: number;
  evalSeeds: readonly number[];
  outcome:
    | {
        kind: "result";
        fitness: number;
        perSeed: readonly { seed: number; fitness: number }[];
        bestCheckpoint: { fitness: number; step: number };
        steps: number;
        cached: boolean;
      }
    | { kind: "error"; error: string; message: string };
  feedback: string;
}

/** search.json: what the search was asked to do. */
export interface SearchHeaderInput {
  strategy: string;
  task: string;
  seed: number;
  budget: number;
  trainSteps: number;
  proposer: string;
  options: Readonly<Record<string, unknown>>;
}

/** One search directory as read by the CLI. */
export interface SearchInput {
  /** The directory relative to what `hexa inspect` was given (its own name when it was given itself). */
  name: string;
  path: string;
  /** Absent when search.json is missing (a copied candidates.jsonl). */
  header?: SearchHeaderInput;
  candidates: readonly SearchCandidateInput[];
  /** The best candidate by the final policy's F (the search's `bestOf`), null when none trained. */
  best: number | null;
  notices: readonly string[];
}

interface CandidateNode {
  index: number;
  iteration: number;
  operator: string;
  parent: number | null;
  related: number[];
  children: number[];
  depth: number;
  /** The reported score: the final policy's F on the evaluation seeds; null for a failed training. */
  fitness: number | null;
  perSeed: { seed: number; fitness: number }[];
  /** The best F during training: shown beside the score, never as it. */
  bestCheckpoint?: { fitness: number; step: number };
  steps?: number;
  cached?: boolean;
  /** "kind: message" of a failed training. */
  error?: string;
  vSelf?: number;
  vSelfNote?: string;
  note?: string;
  repairs?: { code: string; error: string }[];
  design?: Record<string, number>;
  thought: string;
  draftThought?: string;
  code: string;
  feedback: string;
  trainSeed: number;
  evalSeeds: number[];
  best: boolean;
  /** On the path from a root to the best candidate. */
  bestPath: boolean;
}

export interface SearchView {
  name: string;
  path: string;
  strategy: string;
  task: string;
  seed: number | null;
  budget: number | null;
  trainSteps: number | null;
  proposer: string;
  options: Record<string, unknown>;
  /** By index. */
  candidates: CandidateNode[];
  /** Candidates with no parent in the log, in index order. */
  roots: number[];
  best: number | null;
  counts: { candidates: number; ok: number; failed: number; cached: number };
  operators: Record<string, number>;
  notices: string[];
}

export const searchView = (s: SearchInput): SearchView => {
  const candidates = [...s.candidates].sort((a, b) => a.index - b.index);
  const byIndex = new Map(candidates.map((c) => [c.index, c] as const));
  const notices = [...s.notices];
  const missing = candidates.filter((c) => c.parent !== null && !byIndex.has(c.parent));
  if (missing.length)
    notices.push(`candidate(s) ${missing.map((c) => `#${c.index} (parent #${c.parent})`).join(", ")}: the parent is not in candidates.jsonl; drawn as roots`);
  const parentOf = (c: { index: number; parent: number | null }) => (c.parent !== null && byIndex.has(c.parent) && c.parent !== c.index ? c.parent : null);
  const depthOf = (c: SearchCandidateInput): number => {
    let d = 0;
    const seen = new Set([c.index]);
    for (let p = parentOf(c); p !== null && !seen.has(p); p = parentOf(byIndex.get(p)!)) {
      seen.add(p);
      d++;
    }
    return d;
  };
  const bestPath = new Set<number>();
  for (let i = s.best; i !== null && !bestPath.has(i) && byIndex.has(i); i = parentOf(byIndex.get(i)!)) bestPath.add(i);
  const nodes: CandidateNode[] = candidates.map((c) => {
    const o = c.outcome;
    return {
      index: c.index,
      iteration: c.iteration,
      operator: c.operator,
      parent: c.parent,
      related: [...c.related],
      children: candidates.filter((x) => parentOf(x) === c.index).map((x) => x.index),
      depth: depthOf(c),
      fitness: o.kind === "result" ? o.fitness : null,
      perSeed: o.kind === "result" ? o.perSeed.map((p) => ({ ...p })) : [],
      ...(o.kind === "result" ? { bestCheckpoint: { ...o.bestCheckpoint }, steps: o.steps, cached: o.cached } : { error: `${o.error}: ${o.message}` }),
      ...(c.vSelf === undefined ? {} : { vSelf: c.vSelf }),
      ...(c.vSelfNote ? { vSelfNote: c.vSelfNote } : {}),
      ...(c.note ? { note: c.note } : {}),
      ...(c.repairs?.length ? { repairs: c.repairs.map((r) => ({ ...r })) } : {}),
      ...(c.design ? { design: { ...c.design } } : {}),
      thought: c.thought,
      ...(c.draftThought !== undefined ? { draftThought: c.draftThought } : {}),
      code: c.code,
      feedback: c.feedback,
      trainSeed: c.trainSeed,
      evalSeeds: [...c.evalSeeds],
      best: c.index === s.best,
      bestPath: bestPath.has(c.index),
    };
  });
  const operators: Record<string, number> = {};
  nodes.forEach((n) => (operators[n.operator] = (operators[n.operator] ?? 0) + 1));
  const h = s.header;
  return {
    name: s.name,
    path: s.path,
    strategy: h?.strategy ?? candidates[0]?.strategy ?? "unknown",
    task: h?.task ?? "unknown (no search.json)",
    seed: h?.seed ?? null,
    budget: h?.budget ?? null,
    trainSteps: h?.trainSteps ?? null,
    proposer: h?.proposer ?? "unknown",
    options: { ...(h?.options ?? {}) },
    candidates: nodes,
    roots: nodes.filter((n) => parentOf(n) === null).map((n) => n.index),
    best: s.best,
    counts: {
      candidates: nodes.length,
      ok: nodes.filter((n) => n.fitness !== null).length,
      failed: nodes.filter((n) => n.fitness === null).length,
      cached: nodes.filter((n) => n.cached).length,
    },
    operators,
    notices,
  };
};
