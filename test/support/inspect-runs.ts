import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { inject } from "vitest";

/** Small runs for the inspect tests: the quickstart's levels, agent and evolver with fewer rounds (a few seconds each). */

export const HEXA = resolve(import.meta.dirname, "..", "..", "bin", "hexa.js");

export const hexa = (args: string[], opts: { cwd?: string } = {}) => {
  const r = spawnSync(process.execPath, [HEXA, ...args], { encoding: "utf8", cwd: opts.cwd ?? resolve(import.meta.dirname, "..", ".."), timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

export interface SmallRun {
  rounds?: number;
  seed?: number;
  init?: "off2on" | "online";
  levels?: string[];
}

/** Runs a small heuristic config into `runsDir` and returns the new run directory. */
export const makeRun = (runsDir: string, o: SmallRun = {}): string => {
  mkdirSync(runsDir, { recursive: true });
  const before = new Set(readdirSync(runsDir));
  const config = join(runsDir, `config-${o.init ?? "off2on"}-${o.seed ?? 0}.yaml`);
  writeFileSync(
    config,
    [
      `levels: [${(o.levels ?? ["catapult", "pass_the_parcel"]).join(", ")}]`,
      "agent: heuristic",
      "evolver: heuristic",
      `init: ${o.init ?? "off2on"}`,
      "update: evolving",
      "seeds:",
      "  offset: 56",
      `rounds: ${o.rounds ?? 3}`,
      "episodesPerRound: 2",
      ...(o.init === "online" ? [] : ["offline:", "  episodes: 3"]),
      `seed: ${o.seed ?? 0}`,
      "",
    ].join("\n"),
  );
  const r = hexa(["run", config, "--runs-dir", runsDir]);
  if (r.code !== 0) throw new Error(`hexa run failed (${r.code}): ${r.stderr}`);
  const made = readdirSync(runsDir).filter((f) => !before.has(f) && !f.endsWith(".yaml"));
  if (made.length !== 1) throw new Error(`expected one new run directory in ${runsDir}, got ${made.join(", ")}`);
  return join(runsDir, made[0]!);
};

/**
 * A copy in `runsDir` of the default small run (makeRun's defaults), made once per `vitest run` in the int tier's
 * shared folder (test/support/shared-fixtures.ts): the files that only read such a run share one, each on its own
 * copy. Two files that make it at once each make one; the first to finish is kept.
 */
export const copyOfSmallRun = (runsDir: string): string => {
  const shared = join(inject("sharedFixtures"), "small-run");
  if (!existsSync(shared)) {
    const mine = `${shared}-${process.pid}`;
    makeRun(mine);
    try {
      renameSync(mine, shared);
    } catch (e) {
      if (!["ENOTEMPTY", "EEXIST"].includes((e as NodeJS.ErrnoException).code ?? "")) throw e;
      rmSync(mine, { recursive: true, force: true });
    }
  }
  const [run] = readdirSync(shared).filter((f) => !f.endsWith(".yaml"));
  if (!run) throw new Error(`${shared}: no run directory in it`);
  cpSync(join(shared, run), join(runsDir, run), { recursive: true });
  return join(runsDir, run);
};
