import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createInstance } from "../levels/interphyre/instance.ts";
import { readCertified } from "../levels/interphyre/certified-seeds.ts";

const hexa = (...args: string[]) => spawnSync(process.execPath, ["bin/hexa.js", ...args], { encoding: "utf8" });
const tmp = () => mkdtempSync(join(tmpdir(), "hexa-cli-"));

/** A scene file in the fixtures' format, made from our own certified seeds (no Interphyre data needed). */
const ownSceneFile = (level: string, n: number) => {
  const data = readCertified(level)!;
  return {
    level,
    entries: data.seeds.slice(0, n).map((s) => ({ seed: s.seed, scene: createInstance(level, s.seed).scene, solution: s.solution })),
  };
};

describe("hexa levels check-scenes", () => {
  it("prints exactly one JSON object with --json", () => {
    const dir = tmp();
    const a = join(dir, "a.json");
    const b = join(dir, "b.json");
    writeFileSync(a, JSON.stringify(ownSceneFile("two_body_problem", 3)));
    const other = ownSceneFile("down_to_earth", 2);
    other.entries[1]!.solution = [4.5, 4.5, 0.1]; // a corner ball does not solve down_to_earth
    writeFileSync(b, JSON.stringify(other));
    const r = hexa("levels", "check-scenes", a, b, "--json");
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      total: 5,
      reproduced: 4,
      levels: { two_body_problem: { total: 3, reproduced: 3 }, down_to_earth: { total: 2, reproduced: 1 } },
    });
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
  });

  it("names the bad field of a malformed scene, without a stack trace", () => {
    const dir = tmp();
    const f = join(dir, "bad.json");
    const file = ownSceneFile("two_body_problem", 1);
    (file.entries[0]!.scene.green_ball as { radius: number }).radius = -0.5;
    writeFileSync(f, JSON.stringify(file));
    const r = hexa("levels", "check-scenes", f);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/green_ball\.radius: must be > 0 \(got -0\.5\)/);
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("rejects an unknown level and a file that is not JSON", () => {
    const dir = tmp();
    const f = join(dir, "x.json");
    writeFileSync(f, JSON.stringify({ level: "catapults", entries: [] }));
    expect(hexa("levels", "check-scenes", f).stderr).toMatch(/unknown level 'catapults'; known: basket_case/);
    writeFileSync(f, "{not json");
    expect(hexa("levels", "check-scenes", f).stderr).toMatch(/x\.json: not valid JSON/);
  });
});

describe("hexa levels certify", () => {
  it("certifies, then resumes without searching decided seeds again", () => {
    const dir = tmp();
    const run = (n: number, workers = 2, into = dir) =>
      execFileSync(
        process.execPath,
        ["bin/hexa.js", "levels", "certify", "down_to_earth", "--seeds", String(n), "--workers", String(workers), "--dir", into, "--quiet"],
        { encoding: "utf8" },
      );
    expect(run(2)).toMatch(/down_to_earth: \d+ certified/);
    const first = JSON.parse(readFileSync(join(dir, "down_to_earth.json"), "utf8"));
    expect(first.seeds.length).toBeGreaterThanOrEqual(2);
    expect(first.engine).toBe("planck");
    // A certificate holds one engine's seeds: resuming it on another is refused, naming both.
    expect(hexa("levels", "certify", "down_to_earth", "--seeds", "3", "--dir", dir, "--engine", "box2d-wasm").stderr).toMatch(
      /made on planck, not box2d-wasm; use --engine planck or another --dir/,
    );
    run(4);
    const second = JSON.parse(readFileSync(join(dir, "down_to_earth.json"), "utf8"));
    expect(second.seeds.length).toBeGreaterThanOrEqual(4);
    expect(second.seeds.slice(0, first.seeds.length)).toEqual(first.seeds);
    // The same seeds are certified as in the shipped file: the search depends only on (level, seed).
    const shipped = readCertified("down_to_earth")!.seeds;
    expect(second.seeds).toEqual(shipped.filter((s) => second.seeds.some((t: { seed: number }) => t.seed === s.seed)));
    // One worker from scratch leaves the same certificate: what two workers decided past the 4th certified seed is not kept.
    const single = tmp();
    run(4, 1, single);
    expect(second.seeds).toHaveLength(4);
    expect(JSON.parse(readFileSync(join(single, "down_to_earth.json"), "utf8"))).toEqual(second);
  });

  it("rejects a bad --seeds value by name", () => {
    expect(hexa("levels", "certify", "catapult", "--seeds", "1.5").stderr).toMatch(/--seeds must be a positive integer \(got 1\.5\)/);
  });
});
