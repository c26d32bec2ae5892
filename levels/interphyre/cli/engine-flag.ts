import { ENGINE_FIELD, ENGINES, EngineName, loadEngine } from "../world/engines.ts";
import type { CreateEngine } from "../world/engine.ts";

const field = ENGINE_FIELD;

/** `--engine`, derived from the config slice's `engine` field: the same choices, default and description. */
export const engineOption = {
  type: "string",
  choices: [...ENGINES],
  default: field.parse(undefined),
  describe: field.description ?? "physics engine",
} as const;

/** The flag's engine, loaded (a wasm engine loads once, asynchronously: world/engines.ts). */
export const engineOf = (raw: unknown): Promise<CreateEngine> => loadEngine(EngineName.parse(raw));
