import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { importedPackages, sourceClosure, sourceClosureHash } from "./source-closure.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TRAINER = join(ROOT, "levels/reward-search/trainer/main.ts");
const temp = mkdtempSync(join(tmpdir(), "hexa-closure-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the built-in trainer's source closure (the trainer-cache version)", () => {
  const files = sourceClosure(TRAINER).map((f) => relative(ROOT, f));

  it("reaches the dynamics, the sandbox, the tasks and the shared helpers", () => {
    for (const f of [
      "levels/reward-search/envs/rl-walker.ts",
      "levels/reward-search/envs/rl-lander.ts",
      "levels/reward-search/sandbox/reward-sandbox.ts",
      "levels/reward-search/sandbox/prelude.js",
      "levels/reward-search/tasks/cartpole.ts",
      "levels/reward-search/envs/mujoco/assets/hopper.xml",
      "levels/reward-search/envs/mujoco/assets/walker2d_v5.xml",
      "levels/reward-search/trainer/ppo.ts",
      "levels/reward-search/trainer/ppo-gradient.ts",
      "levels/reward-search/trainer/actor-critic.ts",
      "levels/reward-search/trainer/wasm/kernels.ts",
      "levels/reward-search/trainer/wasm/kernels.as.ts",
      "levels/reward-search/trainer/adam.ts",
      "src/util/rng.ts",
    ]) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.endsWith(".test.ts"))).toBe(false);
  });

  it("names the installed versions of the libraries a training runs on", () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
    const packages = importedPackages(sourceClosure(TRAINER), ROOT);
    for (const name of ["mujoco-js", "quickjs-emscripten"]) expect(packages).toContain(`${name}@${pinned[name]}`);
    // PPO runs on the trainer's own kernels (levels/reward-search/trainer/ppo-gradient.ts), not on tfjs.
    expect(packages.filter((p) => p.startsWith("@tensorflow/"))).toEqual([]);
  });

  it("changes when a dynamics file or a model file changes in a copy of the tree", () => {
    for (const f of files) cpSync(join(ROOT, f), join(temp, f));
    symlinkSync(join(ROOT, "node_modules"), join(temp, "node_modules"));
    const copyEntry = join(temp, "levels/reward-search/trainer/main.ts");
    const before = sourceClosureHash(copyEntry, temp);
    expect(sourceClosureHash(copyEntry, temp)).toBe(before);
    expect(before).toBe(sourceClosureHash(TRAINER, ROOT));
    appendFileSync(join(temp, "levels/reward-search/envs/rl-walker.ts"), "\n// a changed leg\n");
    const afterDynamics = sourceClosureHash(copyEntry, temp);
    expect(afterDynamics).not.toBe(before);
    appendFileSync(join(temp, "levels/reward-search/envs/mujoco/assets/hopper.xml"), "\n<!-- a changed foot -->\n");
    expect(sourceClosureHash(copyEntry, temp)).not.toBe(afterDynamics);
  });
});

describe("sourceClosure", () => {
  it('follows assets read through new URL("./x", import.meta.url) and folders below the file, not folders above or URLs without that base', () => {
    const dir = join(temp, "assets");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(
      join(dir, "entry.ts"),
      [
        'const script = readFileSync(new URL("./sub/script.js", import.meta.url), "utf8");',
        'const root = new URL("../", import.meta.url);',
        'const other = new URL("./not-followed.js", "file:///elsewhere/");',
        'const models = new URL("./models/", import.meta.url);',
        'const table = new URL("./table.csv", import.meta.url);',
        '// as in a comment: new URL("./missing.dat", import.meta.url)',
      ].join("\n"),
    );
    writeFileSync(join(dir, "sub/script.js"), "(function () { return 1; })\n");
    writeFileSync(join(dir, "not-followed.js"), "");
    writeFileSync(join(dir, "table.csv"), "a,b\n");
    mkdirSync(join(dir, "models/deeper"), { recursive: true });
    writeFileSync(join(dir, "models/one.xml"), "<mujoco/>");
    writeFileSync(join(dir, "models/deeper/two.xml"), "<mujoco/>");
    expect(sourceClosure(join(dir, "entry.ts")).map((f) => relative(dir, f))).toEqual([
      "entry.ts",
      "models/deeper/two.xml",
      "models/one.xml",
      "sub/script.js",
      "table.csv",
    ]);
    const before = sourceClosureHash(join(dir, "entry.ts"), dir);
    appendFileSync(join(dir, "sub/script.js"), "// changed\n");
    expect(sourceClosureHash(join(dir, "entry.ts"), dir)).not.toBe(before);
  });
});
