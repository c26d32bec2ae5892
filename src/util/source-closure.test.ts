import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { sourceClosure, sourceClosureHash } from "./source-closure.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TRAINER = join(ROOT, "families/reward-search/trainer/main.ts");
const temp = mkdtempSync(join(tmpdir(), "hexa-closure-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the built-in trainer's source closure (the trainer-cache version)", () => {
  const files = sourceClosure(TRAINER).map((f) => relative(ROOT, f));

  it("reaches the dynamics, the sandbox, the tasks and the shared helpers", () => {
    for (const f of ["families/reward-search/envs/rl-walker.ts", "families/reward-search/envs/rl-lander.ts", "families/reward-search/sandbox/reward-sandbox.ts", "families/reward-search/tasks/cartpole.ts", "families/reward-search/trainer/ppo.ts", "src/util/rng.ts"]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.endsWith(".test.ts"))).toBe(false);
  });

  it("changes when a dynamics file changes in a copy of the tree", () => {
    for (const f of files) cpSync(join(ROOT, f), join(temp, f));
    const copyEntry = join(temp, "families/reward-search/trainer/main.ts");
    const before = sourceClosureHash(copyEntry, temp);
    expect(sourceClosureHash(copyEntry, temp)).toBe(before);
    expect(before).toBe(sourceClosureHash(TRAINER, ROOT));
    appendFileSync(join(temp, "families/reward-search/envs/rl-walker.ts"), "\n// a changed leg\n");
    expect(sourceClosureHash(copyEntry, temp)).not.toBe(before);
  });
});
