/** Direct (docs/spec/method.md §7): peek once, then commit — two turns at most. */
export const DIRECT_TURNS = 2;

/** Reflexion (docs/spec/method.md §7): K trials per seed, a reflection after each failed trial, nothing across seeds. */
export const REFLEXION = { trials: 2, turnsPerTrial: 12, maxSentences: 5, maxReflections: 3 } as const;

/** The turn budget an agent enforces: Direct and Reflexion have their own (docs/spec/method.md §7). */
export const budgetOf = (agent: string, maxTurns: number): number =>
  agent === "direct" ? DIRECT_TURNS : agent === "reflexion" ? REFLEXION.trials * REFLEXION.turnsPerTrial : maxTurns;
