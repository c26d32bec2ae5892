import type { Bank, BankEntry } from "../src/store/bank.ts";
import type { SynthesisSource } from "./synthesiser-prompt.ts";

/**
 * Source entries shown to the synthesiser in one prompt. Above this many, semantic search picks the ones most
 * relevant to the target description (docs/spec/method.md §6): about 40 entries of ~100 tokens each keep the prompt near 5k tokens.
 */
export const PROMPT_ENTRY_LIMIT = 40;

/** Similarity of each source entry to the target description, keyed `level/id` (the CLI's is Chroma's search). */
export type Ranker = (query: string, entries: readonly { level: string; entry: BankEntry }[]) => Promise<Map<string, number>>;

const entryKey = (level: string, id: string) => `${level}/${id}`;

const count = (b: Bank) => b.skills.length + b.mistakes.length;

/**
 * Keeps at most `limit` entries over all sources: every source keeps its most relevant entry (so each level
 * still speaks), then the rest by relevance (ties: weight, then key). Sources under the limit pass unchanged
 * and the ranker is not called.
 */
export const selectSources = async (
  sources: readonly SynthesisSource[],
  query: string,
  rank: Ranker,
  limit = PROMPT_ENTRY_LIMIT,
): Promise<{ sources: SynthesisSource[]; selected: boolean }> => {
  if (sources.reduce((n, s) => n + count(s.bank), 0) <= limit) return { sources: [...sources], selected: false };
  const all = sources.flatMap((s) => [...s.bank.skills, ...s.bank.mistakes].map((entry) => ({ level: s.level, entry })));
  const scores = await rank(query, all);
  const score = (x: (typeof all)[number]) => scores.get(entryKey(x.level, x.entry.id)) ?? -Infinity;
  const ordered = [...all].sort(
    (a, b) => score(b) - score(a) || b.entry.weight - a.entry.weight || entryKey(a.level, a.entry.id).localeCompare(entryKey(b.level, b.entry.id)),
  );
  const keep = new Set<string>();
  for (const s of sources) {
    const best = ordered.find((x) => x.level === s.level);
    if (best && keep.size < limit) keep.add(entryKey(best.level, best.entry.id));
  }
  for (const x of ordered) if (keep.size < limit) keep.add(entryKey(x.level, x.entry.id));
  const kept = (level: string) => (e: BankEntry) => keep.has(entryKey(level, e.id));
  return {
    sources: sources.map((s) => ({ ...s, bank: { skills: s.bank.skills.filter(kept(s.level)), mistakes: s.bank.mistakes.filter(kept(s.level)) } })),
    selected: true,
  };
};
