/** The LLM roles a run config names (src/llm/config.ts `Role`), without zod: `hexa doctor --role`'s choices. */
export const ROLES = ["actor", "evolver", "synthesiser", "judge", "vision"] as const;
