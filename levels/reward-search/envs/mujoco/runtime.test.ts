import { describe, expect, it } from "vitest";
import { InvariantError } from "../../../../src/errors.ts";
import { getTask } from "../../tasks/index.ts";

// This file never prepares a task: vitest gives each test file its own modules, so the wasm module is not loaded here.
describe("a MuJoCo task before prepare()", () => {
  it("makes an env (its shape needs no wasm) but refuses to reset it, naming the fix", () => {
    const task = getTask("ant");
    const env = task.makeEnv(task.generate(0), 2);
    expect(env.obsDim).toBe(105);
    expect(env.action).toMatchObject({ kind: "continuous", dim: 8 });
    expect(() => env.reset(0)).toThrow(InvariantError);
    expect(() => env.reset(0)).toThrow(/mujoco env ant\.xml: MuJoCo's wasm module is not loaded in this thread; await task\.prepare\(\)/);
  });
});
