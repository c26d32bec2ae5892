import type { ContactEvent } from "../world/contacts.ts";

/** The first `limit` distinct objects `name` began touching, with the step of the first touch. */
export const firstContactsOf = (log: readonly ContactEvent[], name: string, limit: number) => {
  const seen = new Map<string, number>();
  for (const e of log) {
    if (e.event !== "begin" || (e.a !== name && e.b !== name)) continue;
    const other = e.a === name ? e.b : e.a;
    if (!seen.has(other)) seen.set(other, e.step);
    if (seen.size >= limit) break;
  }
  return [...seen].map(([object, step]) => ({ object, step }));
};
