import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CERTIFIED_DIR } from "../families/interphyre/certified-seeds.ts";
import { builtinTrainerVersion } from "../families/reward-search/trainer/main.ts";
import { runnableModule, RUNS_COMPILED } from "../src/util/runnable-module.ts";

/** dist/ as vitest's global setup built it (scripts/build.mjs): what bin/ runs. */
const dist = async <T>(source: string): Promise<T> => (await import(new URL(`../dist/${source.replace(/\.ts$/, ".js")}`, import.meta.url).href)) as T;

describe("the compiled JavaScript in dist/", () => {
  it("reads paths from the source tree: the trainer's source hash and the certified seeds are the sources'", async () => {
    const compiledTrainer = await dist<{ builtinTrainerVersion: () => string }>("families/reward-search/trainer/main.ts");
    expect(compiledTrainer.builtinTrainerVersion()).toBe(builtinTrainerVersion());
    const compiledSeeds = await dist<{ CERTIFIED_DIR: string }>("families/interphyre/certified-seeds.ts");
    expect(compiledSeeds.CERTIFIED_DIR).toBe(CERTIFIED_DIR);
  });

  it("starts workers and child processes on their compiled twins, and the sources on themselves", async () => {
    const source = new URL("../families/interphyre/physics-worker.ts", import.meta.url);
    expect(RUNS_COMPILED).toBe(false);
    expect(runnableModule(source)).toEqual(source);
    const compiled = await dist<{ RUNS_COMPILED: boolean; runnableModule: (u: URL) => URL }>("src/util/runnable-module.ts");
    expect(compiled.RUNS_COMPILED).toBe(true);
    const twin = fileURLToPath(compiled.runnableModule(source));
    expect(twin).toBe(fileURLToPath(new URL("../dist/families/interphyre/physics-worker.js", import.meta.url)));
    expect(existsSync(twin)).toBe(true);
  });
});
