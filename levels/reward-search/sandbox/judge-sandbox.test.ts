import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { tinyRecord } from "../judging/fixtures/tiny-record.ts";
import { runJudgeCode } from "./judge-sandbox.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-judge-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A judge that measures the torso's forward travel from xpos (body 1's x) and reads the other columns. */
const TRAVEL = `
function judge(traj) {
  const w = traj.width.xpos, last = traj.steps - 1;
  const travel = traj.xpos[last * w + 3] - traj.initial.xpos[3];
  const fwd = traj.term("forward");
  return [
    { id: "1", value: travel, score: Math.min(1, travel / 2), passed: travel >= 2, note: "travel " + travel.toFixed(2) + " m" },
    { id: "2", value: traj.row("qpos", last)[2], score: 1, passed: true, note: "height" },
    { id: "3", value: fwd[last], score: traj.truncated[last], passed: traj.steps === 10 && traj.header.bodies[1].name === "torso", note: "" },
  ];
}`;

const fault = async (code: string, limits = {}) => {
  const r = await runJudgeCode(code, tinyRecord(), limits);
  if (r.ok) throw new Error(`expected a fault, got ${JSON.stringify(r.results)}`);
  return r.fault;
};

describe("runJudgeCode", () => {
  it("gives the judge the trajectory's columns as typed arrays and returns its leaf results", async () => {
    const r = await runJudgeCode(TRAVEL, tinyRecord());
    expect(r).toEqual({
      ok: true,
      results: [
        { id: "1", value: expect.closeTo(1, 9), score: expect.closeTo(0.5, 9), passed: false, note: "travel 1.00 m" },
        { id: "2", value: expect.closeTo(1.09, 9), score: 1, passed: true, note: "height" },
        { id: "3", value: expect.closeTo(0.9, 9), score: 1, passed: true, note: "" },
      ],
    });
  });

  it("carries NaN and Infinity out as numbers, and the leaves' fields only", async () => {
    const r = await runJudgeCode(
      `function judge() { return { leaves: [{ id: 1, score: NaN, passed: "yes", value: -Infinity, extra: 1 }, 7] }; }`,
      tinyRecord(),
    );
    expect(r).toEqual({ ok: true, results: [{ id: 1, score: Number.NaN, passed: null, value: Number.NEGATIVE_INFINITY, note: "" }, {}] });
  });

  it.each([
    ["a throw", `function judge() { throw new Error("no torso"); }`, "error", /threw while judging: Error: no torso at line 1/],
    ["a syntax error", `function judge( {`, "error", /threw while running its top-level code: SyntaxError/],
    ["no judge function", `const x = 1;`, "error", /judge is undefined, not a function/],
    ["a result that is not a list", `function judge() { return 0.7; }`, "shape", /judge returned number; return an array/],
    ["an async judge", `async function judge() { return []; }`, "shape", /a Promise/],
  ])("%s is a fault with its tag, not a crash", async (_what, code, tag, message) => {
    const f = await fault(code);
    expect(f.tag).toBe(tag);
    expect(f.message).toMatch(message);
  });

  describe("hostile code is contained", () => {
    it("an endless loop in the call, and at top level, stops at the CPU limit (timeout)", async () => {
      expect(await fault(`function judge() { for (;;) {} }`, { cpuMs: 100 })).toMatchObject({
        tag: "timeout",
        message: expect.stringMatching(/longer than 100 ms .* while judging/),
      });
      expect((await fault(`while (true) {}`, { cpuMs: 100 })).tag).toBe("timeout");
    });

    it("huge output: 100,000 results is a shape fault; a 4 MB note is cut to 500 characters", async () => {
      expect(await fault(`function judge() { return new Array(1e5).fill(0).map((_, i) => ({ id: String(i), score: 1, passed: true })); }`)).toMatchObject({
        tag: "shape",
        message: expect.stringMatching(/100000 results, more than 128/),
      });
      const r = await runJudgeCode(
        `function judge() { return [{ id: "1", score: 1, passed: true, note: "x".repeat(4e6), value: "y".repeat(1e6) }]; }`,
        tinyRecord(),
      );
      expect(r.ok && [(r.results[0] as { note: string }).note.length, (r.results[0] as { value: string }).value.length]).toEqual([500, 120]);
    });

    it("a memory bomb is a memory fault", async () => {
      const f = await fault(`function judge() { const a = []; for (;;) a.push(new Float64Array(1 << 16)); }`, { memoryBytes: 8 << 20 });
      expect(f.tag).toBe("memory");
    });

    it.each([
      ["require", `require("fs").writeFileSync(${JSON.stringify(join(dir, "canary-require"))}, "x")`],
      ["process", `process.mainModule.require("fs").writeFileSync(${JSON.stringify(join(dir, "canary-process"))}, "x")`],
      ["fetch", `fetch("http://127.0.0.1:9/")`],
      ["a Function escape", `(function(){}).constructor("return process")().exit(1)`],
    ])("%s is not there (error), and writes nothing", async (name, attempt) => {
      const f = await fault(`function judge() { ${attempt}; return []; }`);
      expect(f.tag).toBe("error");
      expect(f.message).toMatch(/ReferenceError|not defined|TypeError/);
      expect(existsSync(join(dir, `canary-${name}`))).toBe(false);
    });

    it("import is refused: static at compile time, dynamic as a Promise", async () => {
      expect((await fault(`import fs from "fs"; function judge() { return []; }`)).tag).toBe("error");
      expect((await fault(`function judge() { return import("fs"); }`)).tag).toBe("shape");
    });

    it("a toJSON on Object.prototype is a shape fault, not a crash; a replaced JSON.stringify is not used", async () => {
      const f = await fault(`Object.prototype.toJSON = function () { return 42; }; function judge() { return [{ id: "1", score: 1, passed: true }]; }`);
      expect(f).toMatchObject({ tag: "shape", message: expect.stringMatching(/do not redefine the sandbox's builtins/) });
      // the driver holds its own JSON.stringify: replacing the global one changes nothing
      expect(await runJudgeCode(`JSON.stringify = () => "{"; function judge() { return [{ id: "1", score: 1, passed: true }]; }`, tinyRecord())).toMatchObject({
        ok: true,
        results: [{ id: "1", score: 1 }],
      });
    });

    it("has no clock and a seeded Math.random", async () => {
      const code = `function judge() { return [{ id: "1", value: Date.now(), score: Math.random(), passed: true }]; }`;
      const [a, b] = [await runJudgeCode(code, tinyRecord()), await runJudgeCode(code, tinyRecord())];
      expect(a).toEqual(b);
      expect(a.ok && (a.results[0] as { value: number }).value).toBe(0);
    });
  });

  it("refuses a record whose columns disagree with its header, or that is over the size bound (ConfigError)", async () => {
    const bad = tinyRecord();
    bad.columns.qpos = new Float64Array(3);
    await expect(runJudgeCode(TRAVEL, bad)).rejects.toThrow(/trajectory\.columns\.qpos: 3 values; expected 10 × 7 = 70/);
    await expect(runJudgeCode(TRAVEL, tinyRecord(), { maxTrajectoryBytes: 1024 })).rejects.toThrow(ConfigError);
  });
});
