import { z } from "zod";
import type { CreateEngine } from "./engine.ts";

/**
 * The physics engines a world can run on. planck is the default and the engine the certified seeds were
 * certified with; box2d-wasm is Box2D 2.4.1 compiled to WebAssembly (docs/spec/interphyre.md §1.3c).
 */
export const ENGINES = ["planck", "box2d-wasm"] as const;
export const EngineName = z.enum(ENGINES);
export type EngineName = z.infer<typeof EngineName>;
export const DEFAULT_ENGINE: EngineName = "planck";
/** The config slice's `engine` field (levels/interphyre/config.ts), which `--engine` repeats (levels/interphyre/cli/engine-flag.ts). */
export const ENGINE_FIELD = EngineName.default(DEFAULT_ENGINE).describe(
  "physics engine: planck (default; the certified seeds were certified on it) or box2d-wasm (Box2D 2.4.1 as WebAssembly: faster, 98.0% vs 99.0% of Interphyre's fixture solutions)",
);

/**
 * The engine's factory, imported when first asked for (a command that only names an engine loads none). box2d-wasm's module loads asynchronously, once per process (box2d-wasm.ts awaits it
 * at its top level); after this promise resolves, every world is built and stepped synchronously. Await it
 * once where the engine is chosen (a command, the physics worker, a test's beforeAll) and pass the factory on.
 */
export const loadEngine = async (name: EngineName): Promise<CreateEngine> => {
  switch (name) {
    case "planck":
      return (await import("./planck-engine.ts")).createPlanckEngine;
    case "box2d-wasm":
      return (await import("./box2d-engine.ts")).createBox2DEngine;
  }
};
