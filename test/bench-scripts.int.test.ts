import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { llmSizedSteps, padTo } from "../bench/inspect-fixture.ts";
import { ROOT } from "../bench/page.ts";

/** The CLI-driving bench scripts (docs/benchmarks/README.md) refuse a bad flag before running anything. */
const bench = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench", script), ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });

describe("bench scripts that drive the CLI: their flags", () => {
  it.each([
    ["shipped-bank.ts", ["--round", "1"], /unknown argument "--round" \(known: --rounds, --write-page\)/],
    ["shipped-bank.ts", ["--rounds", "0"], /--rounds must be a whole number ≥ 1 \(got "0"\)/],
    ["compare-quickstart.ts", ["--parallel"], /--parallel needs a value/],
    ["compare-quickstart.ts", ["--runs", "2.5"], /--runs must be a whole number ≥ 1 \(got "2\.5"\)/],
    ["transfer.ts", ["--sections", "interphyre,box2d"], /--sections: unknown "box2d" \(one of: interphyre, reward, mujoco\)/],
    ["inspect.ts", ["--repeats", "-1"], /--repeats must be a whole number ≥ 1 \(got "-1"\)/],
    ["fidelity.ts", ["--engines", "ode"], /--engines: unknown "ode" \(one of: planck, box2d-wasm\)/],
    ["certify.ts", ["--levels", "catapult,nowhere"], /--levels: unknown "nowhere"/],
    ["certify.ts", ["stray"], /unknown argument "stray"/],
    ["quickstart-workers.ts", ["--pairs", "0"], /--pairs must be a whole number ≥ 1 \(got "0"\)/],
  ])("%s %j exits 2 naming the flag", (script, args, message) => {
    const r = bench(script, ...args);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  });
});

describe("bench/inspect.ts's LLM-sized episodes", () => {
  it("pads an observation by repeating it, to exactly the size asked", () => {
    expect(padTo("abc", 10)).toBe("abc\nabc\nab");
    expect(padTo("", 3)).toBe(".\n.");
    expect(padTo("x".repeat(50), 20)).toBe("x".repeat(20));
  });

  it("cycles the steps to the turns asked, renumbered, every observation padded", () => {
    const steps = [
      { turn: 1, tool: "a", observation: "one" },
      { turn: 2, tool: "b", observation: "two" },
    ];
    const out = llmSizedSteps(steps, 5, 8);
    expect(out.map((s) => [s.turn, s.tool])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "a"],
      [4, "b"],
      [5, "a"],
    ]);
    expect(out.every((s) => s.observation.length === 8)).toBe(true);
    expect(out[1]!.observation).toBe("two\ntwo\n");
    expect(llmSizedSteps([], 5, 8)).toEqual([]);
  });
});
