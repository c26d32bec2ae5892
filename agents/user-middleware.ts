import type { AgentMiddleware } from "langchain";

/** The user's langchain middleware of a process (src/app/middleware-plugins.ts), run after hexa's in every model-driven episode. */
export type UserMiddleware = readonly AgentMiddleware[];

const HOOKS = ["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "wrapToolCall", "afterAgent"] as const;

/** Whether a value is a langchain `AgentMiddleware` (what `createMiddleware` returns): a name and at least one hook. */
const isMiddleware = (v: unknown): v is AgentMiddleware =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as { name?: unknown }).name === "string" &&
  HOOKS.some((h) => typeof (v as Record<string, unknown>)[h] === "function");

/** What a value is, in a few words, for a message that refuses it. */
const described = (v: unknown): string => {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === "object") return `an object with keys ${JSON.stringify(Object.keys(v).slice(0, 8))}`;
  return `a ${typeof v}`;
};

/**
 * The middleware a plugin module exports (its default export, else `middleware`): one `AgentMiddleware` or an array
 * of them; or what was found instead, in words, for the error that refuses it.
 */
export const middlewareOf = (module: Record<string, unknown>): { middleware: AgentMiddleware[] } | { found: string } => {
  const exported = module.default ?? module.middleware;
  const list = Array.isArray(exported) ? (exported as unknown[]) : [exported];
  const bad = list.find((m) => !isMiddleware(m));
  if (exported === undefined) return { found: "no default or `middleware` export" };
  if (list.length === 0) return { found: "an empty array" };
  if (bad !== undefined) return { found: Array.isArray(exported) ? `an array holding ${described(bad)}` : described(bad) };
  return { middleware: list as AgentMiddleware[] };
};
