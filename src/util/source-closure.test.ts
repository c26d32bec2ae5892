import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
    for (const f of [
      "families/reward-search/envs/rl-walker.ts",
      "families/reward-search/envs/rl-lander.ts",
      "families/reward-search/sandbox/reward-sandbox.ts",
      "families/reward-search/sandbox/prelude.js",
      "families/reward-search/tasks/cartpole.ts",
      "families/reward-search/trainer/ppo.ts",
      "src/util/rng.ts",
    ]) {
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

describe("sourceClosure", () => {
  it('follows assets read through new URL("./x", import.meta.url), not directories or URLs without that base', () => {
    const dir = join(temp, "assets");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(
      join(dir, "entry.ts"),
      [
        'const script = readFileSync(new URL("./sub/script.js", import.meta.url), "utf8");',
        'const root = new URL("../", import.meta.url);',
        'const other = new URL("./not-followed.js", "file:///elsewhere/");',
      ].join("\n"),
    );
    writeFileSync(join(dir, "sub/script.js"), "(function () { return 1; })\n");
    writeFileSync(join(dir, "not-followed.js"), "");
    expect(sourceClosure(join(dir, "entry.ts")).map((f) => relative(dir, f))).toEqual(["entry.ts", "sub/script.js"]);
    const before = sourceClosureHash(join(dir, "entry.ts"), dir);
    appendFileSync(join(dir, "sub/script.js"), "// changed\n");
    expect(sourceClosureHash(join(dir, "entry.ts"), dir)).not.toBe(before);
  });
});
