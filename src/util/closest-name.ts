import { distance } from "fastest-levenshtein";

/**
 * The known name a mistyped one most likely meant (`runsdir` → `runs-dir`, `rn` → `run`, `episodesPerRund` →
 * `episodesPerRound`), or undefined when none is close: at most a third of the name's letters differ (one at least),
 * compared without case, dashes or underscores.
 */
export const closestName = (given: string, known: readonly string[]): string | undefined => {
  const plain = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const want = plain(given);
  const most = Math.max(1, Math.floor(want.length / 3));
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(want, plain(name));
    if (d <= most && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
};
