import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CERTIFIED_DIR } from "../levels/interphyre/certified-seed-list.ts";
import { builtinTrainerVersion } from "../levels/reward-search/trainer/main.ts";
import { runnableModule, RUNS_COMPILED } from "../src/util/runnable-module.ts";

/** dist/ as vitest's global setup built it (scripts/build.mjs): what bin/ runs. */
const dist = async <T>(source: string): Promise<T> => (await import(new URL(`../dist/${source.replace(/\.ts$/, ".js")}`, import.meta.url).href)) as T;

describe("the compiled JavaScript in dist/", () => {
  it("reads paths from the source tree: the trainer's source hash and the certified seeds are the sources'", async () => {
    const compiledTrainer = await dist<{ builtinTrainerVersion: () => string }>("levels/reward-search/trainer/main.ts");
    expect(compiledTrainer.builtinTrainerVersion()).toBe(builtinTrainerVersion());
    const compiledSeeds = await dist<{ CERTIFIED_DIR: string }>("levels/interphyre/certified-seed-list.ts");
    expect(compiledSeeds.CERTIFIED_DIR).toBe(CERTIFIED_DIR);
  });

  it("starts workers and child processes on their compiled twins, and the sources on themselves", async () => {
    const source = new URL("../levels/interphyre/physics-worker.ts", import.meta.url);
    expect(RUNS_COMPILED).toBe(false);
    expect(runnableModule(source)).toEqual(source);
    const compiled = await dist<{ RUNS_COMPILED: boolean; runnableModule: (u: URL) => URL }>("src/util/runnable-module.ts");
    expect(compiled.RUNS_COMPILED).toBe(true);
    const twin = fileURLToPath(compiled.runnableModule(source));
    expect(twin).toBe(fileURLToPath(new URL("../dist/levels/interphyre/physics-worker.js", import.meta.url)));
    expect(existsSync(twin)).toBe(true);
  });

  it("lists levels loading only what names them: no validation library, engine or picture code, and yargs as one bundle", () => {
    // A loader hook in the child records every module it loads (src/cli/levels.ts reads FamilyModule.listing).
    const dir = mkdtempSync(join(tmpdir(), "hexa-loads-"));
    writeFileSync(join(dir, "hooks.mjs"), "export async function load(url, c, next) { process.stderr.write(`LOAD ${url}\\n`); return next(url, c); }\n");
    writeFileSync(
      join(dir, "register.mjs"),
      `import { register } from "node:module"; register(${JSON.stringify(new URL(`file://${join(dir, "hooks.mjs")}`).href)});\n`,
    );
    const bin = fileURLToPath(new URL("../bin/hexa.js", import.meta.url));
    const child = spawnSync(process.execPath, ["--import", join(dir, "register.mjs"), bin, "levels", "list"], { encoding: "utf8" });
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/^catapult +green_ball ↔ blue_ball +\d+ /m);
    const loaded = child.stderr.split("\n").flatMap((l) => (l.startsWith("LOAD ") ? [l.slice(5)] : []));
    expect(loaded.some((u) => u.includes("/dist/src/cli/levels.js"))).toBe(true);
    expect(loaded.filter((u) => /node_modules\/(zod|planck|yargs|@resvg)\//.test(u))).toEqual([]);
    expect(loaded.filter((u) => /\/dist\/vendor\/zod\.js$|world\/scene\.js$|pictures\//.test(u))).toEqual([]);
  });

  it("prints its version and its ASCII help without building the Unicode tables that other text needs", () => {
    // Counts the Intl.Segmenter objects built in the child: string-width, bundled with yargs, builds them to measure
    // help text that is not plain ASCII (episode's help cites a § of the spec).
    const dir = mkdtempSync(join(tmpdir(), "hexa-start-"));
    const count = join(dir, "count.mjs");
    writeFileSync(
      count,
      "let made = 0; const S = Intl.Segmenter; Intl.Segmenter = class extends S { constructor(...a) { super(...a); made++; } };\n" +
        "process.on('exit', () => process.stderr.write(`SEGMENTERS ${made}\\n`));\n",
    );
    const bin = fileURLToPath(new URL("../bin/hexa.js", import.meta.url));
    const made = (...args: string[]) => {
      const child = spawnSync(process.execPath, ["--import", count, bin, ...args], { encoding: "utf8" });
      expect(child.status).toBe(0);
      return Number(/SEGMENTERS (\d+)/.exec(child.stderr)?.[1]);
    };
    expect(made("--version")).toBe(0);
    expect(made("--help")).toBe(0);
    expect(made("episode", "--help")).toBeGreaterThan(0);
  });

  it("starts through the README's ./hexa from any directory, with its arguments as given", () => {
    const launcher = fileURLToPath(new URL("../hexa", import.meta.url));
    const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    const child = spawnSync(launcher, ["--version"], { cwd: tmpdir(), encoding: "utf8" });
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe(version);
    const spaced = spawnSync(launcher, ["levels", "show", "no such level", "--seed", "1"], { cwd: tmpdir(), encoding: "utf8" });
    expect(spaced.status).toBe(2);
    expect(spaced.stderr).toContain("unknown level 'no such level'");
  });
});
