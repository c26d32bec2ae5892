import { afterEach, describe, expect, it } from "vitest";
import type { RewardBatchInput } from "../task.ts";
import { ModelOutputError } from "../../../src/errors.ts";
import { cleanSource, compileReward, RewardCodeError, rewardLayout, type RewardFault, type RewardLayout, type SandboxedReward } from "./reward-sandbox.ts";

const pendulum: RewardLayout = { observation: ["theta", "omega"], actionNames: ["torque"], actionKind: "continuous", info: ["x_position"] };
const cartpole: RewardLayout = { observation: ["x", "theta"], actionNames: ["left", "right"], actionKind: "discrete", info: ["alive"] };

/** Three envs of the pendulum layout; rows are envs. */
const pendulumBatch = (): RewardBatchInput => ({
  n: 3,
  obs: new Float64Array([0, 1, 0.5, 2, 1, 3]),
  action: new Float64Array([1, -2, 3]),
  nextObs: new Float64Array([0.1, 1.1, 0.6, 2.1, 1.1, 3.1]),
  info: { x_position: new Float64Array([7, 8, 9]) },
});

const cartpoleBatch = (): RewardBatchInput => ({
  n: 4,
  obs: new Float64Array([0, 0.1, 1, 0.2, 2, 0.3, 3, 0.4]),
  action: new Float64Array([0, 1, 1, 0]),
  nextObs: new Float64Array([0.5, 0.1, 1.5, 0.2, 2.5, 0.3, 3.5, 0.4]),
  info: { alive: new Float64Array([1, 1, 0, 1]) },
});

const programs: SandboxedReward[] = [];
const compile = async (code: string, layout: RewardLayout = pendulum, limits?: Parameters<typeof compileReward>[2]) => {
  const p = await compileReward(code, layout, limits);
  programs.push(p);
  return p;
};
afterEach(() => {
  for (const p of programs.splice(0)) p.dispose();
});

/** The fault thrown by `f` (sync or async); fails the test when nothing or something else is thrown. */
async function faultOf(f: () => unknown): Promise<{ fault: RewardFault; message: string }> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(RewardCodeError);
    expect(e).toBeInstanceOf(ModelOutputError);
    const err = e as RewardCodeError;
    return { fault: err.fault, message: err.message };
  }
  throw new Error("expected a RewardCodeError, nothing was thrown");
}

const faultOfRun = async (code: string, layout = pendulum, batch = pendulumBatch(), limits?: Parameters<typeof compileReward>[2]) => {
  const p = await compile(code, layout, limits);
  return faultOf(() => p.evaluate(batch));
};

const ok = (body: string) => `function reward(obs, action, nextObs, info) { ${body} }`;

describe("reward sandbox: the contract", () => {
  it("continuous layout: named obs, action, nextObs and info fields, per env", async () => {
    const p = await compile(`function reward(obs, action, nextObs, info) {
      const up = Math.cos(obs.theta);
      const effort = -0.1 * action.torque * action.torque;
      return { total: up + effort + info.x_position, components: { up, effort, spin: nextObs.omega } };
    }`);
    const out = p.evaluate(pendulumBatch());
    expect(p.form).toBe("perEnv");
    expect(p.componentNames).toEqual(["up", "effort", "spin"]);
    expect([...out.components.up!]).toEqual([Math.cos(0), Math.cos(0.5), Math.cos(1)]);
    expect([...out.components.effort!]).toEqual([1, -2, 3].map((t) => -0.1 * t * t));
    expect([...out.components.spin!]).toEqual([1.1, 2.1, 3.1]);
    expect([...out.total]).toEqual([0, 1, 2].map((i) => out.components.up![i]! + out.components.effort![i]! + [7, 8, 9][i]!));
  });

  it("discrete layout: action is the chosen index", async () => {
    const p = await compile(
      `function reward(obs, action, nextObs, info) {
      return { total: action === 1 ? 1 : -1, components: { a: action, alive: info.alive, dx: nextObs.x - obs.x } };
    }`,
      cartpole,
    );
    const out = p.evaluate(cartpoleBatch());
    expect([...out.total]).toEqual([-1, 1, 1, -1]);
    expect([...out.components.a!]).toEqual([0, 1, 1, 0]);
    expect([...out.components.alive!]).toEqual([1, 1, 0, 1]);
    expect([...out.components.dx!]).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it("batched form: rewardBatch(batch) with one Float64Array per named field", async () => {
    const p = await compile(`function rewardBatch(b) {
      const total = [], up = new Float64Array(b.n);
      for (let i = 0; i < b.n; i++) { up[i] = Math.cos(b.obs.theta[i]); total.push(up[i] + b.action.torque[i] + b.info.x_position[i] + b.nextObs.omega[i]); }
      return { total, components: { up, n: new Array(b.n).fill(b.n) } };
    }`);
    expect(p.form).toBe("batched");
    const out = p.evaluate(pendulumBatch());
    expect([...out.components.up!]).toEqual([Math.cos(0), Math.cos(0.5), Math.cos(1)]);
    expect([...out.components.n!]).toEqual([3, 3, 3]);
    expect([...out.total]).toEqual([0, 1, 2].map((i) => Math.cos([0, 0.5, 1][i]!) + [1, -2, 3][i]! + [7, 8, 9][i]! + [1.1, 2.1, 3.1][i]!));
  });

  it("batched form, discrete: batch.action is a Float64Array of indices", async () => {
    const p = await compile(
      `function rewardBatch(b) {
      return { total: Array.from(b.action, (a) => a * 10), components: { isTyped: new Array(b.n).fill(b.action instanceof Float64Array ? 1 : 0) } };
    }`,
      cartpole,
    );
    const out = p.evaluate(cartpoleBatch());
    expect([...out.total]).toEqual([0, 10, 10, 0]);
    expect([...out.components.isTyped!]).toEqual([1, 1, 1, 1]);
  });

  it("rewardLayout takes the names from the task and the kind from the action space", () => {
    const task = { observation: ["x"], actionNames: ["left", "right"], info: ["alive"] };
    expect(rewardLayout(task, { kind: "discrete", n: 2 })).toEqual({
      observation: ["x"],
      actionNames: ["left", "right"],
      actionKind: "discrete",
      info: ["alive"],
    });
  });

  it("rewardBatch wins when the code defines both", async () => {
    const p = await compile(`${ok("return { total: 1, components: {} };")}
      function rewardBatch(b) { return { total: new Array(b.n).fill(2), components: {} }; }`);
    expect(p.form).toBe("batched");
    expect([...p.evaluate(pendulumBatch()).total]).toEqual([2, 2, 2]);
  });

  it("accepts const/arrow definitions, export and markdown fences, keeping line numbers", async () => {
    const p = await compile("```js\nexport const reward = (obs) => ({ total: obs.theta, components: {} });\n```");
    expect([...p.evaluate(pendulumBatch()).total]).toEqual([0, 0.5, 1]);
    expect(cleanSource("```js\nexport function reward() {}\nexport { reward };\n```")).toBe("\nfunction reward() {}\n\n");
  });

  it("total need not equal the sum of components (total is the reward)", async () => {
    const p = await compile(ok("return { total: 5, components: { a: 1, b: 1 } };"));
    const out = p.evaluate(pendulumBatch());
    expect([...out.total]).toEqual([5, 5, 5]);
  });

  it("an empty batch gives empty arrays without running the code", async () => {
    const p = await compile(ok("while (true) {}"), pendulum, { cpuMsPerCall: 10 });
    const out = p.evaluate({
      n: 0,
      obs: new Float64Array(0),
      action: new Float64Array(0),
      nextObs: new Float64Array(0),
      info: { x_position: new Float64Array(0) },
    });
    expect(out.total.length).toBe(0);
  });

  it("state kept by the code persists across calls of one program", async () => {
    const p = await compile(`let calls = 0;\n${ok("calls++; return { total: calls, components: {} };")}`);
    expect([...p.evaluate(pendulumBatch()).total]).toEqual([1, 2, 3]);
    expect([...p.evaluate(pendulumBatch()).total]).toEqual([4, 5, 6]);
  });

  it("two programs compiled concurrently from different code give their own results", async () => {
    const [a, b] = await Promise.all([
      compile(`var k = 1;\n${ok("return { total: k * obs.theta, components: { which: 1 } };")}`),
      compile(`var k = 100;\n${ok("return { total: k * obs.theta, components: { other: 2 } };")}`),
    ]);
    const ra = a!.evaluate(pendulumBatch());
    const rb = b!.evaluate(pendulumBatch());
    expect([...ra.total]).toEqual([0, 0.5, 1]);
    expect([...rb.total]).toEqual([0, 50, 100]);
    expect(Object.keys(ra.components)).toEqual(["which"]);
    expect(Object.keys(rb.components)).toEqual(["other"]);
  });
});

describe("reward sandbox: determinism", () => {
  const randomCode = ok("return { total: Math.random(), components: { r2: Math.random() } };");
  const draw = async (seed: number) => {
    const p = await compile(randomCode, pendulum, { seed });
    const a = p.evaluate(pendulumBatch());
    return [...a.total, ...a.components.r2!];
  };

  it("Math.random is seeded: same seed same values, different seed different values", async () => {
    const a = await draw(7);
    const b = await draw(7);
    const c = await draw(8);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    for (const x of [...a, ...c]) expect(x >= 0 && x < 1).toBe(true);
    expect(new Set(a).size).toBe(a.length);
  });

  it("there is no clock: Date.now() is 0 and new Date() is an explained exception", async () => {
    const p = await compile(ok("return { total: Date.now(), components: {} };"));
    expect([...p.evaluate(pendulumBatch()).total]).toEqual([0, 0, 0]);
    const f = await faultOfRun(ok("return { total: new Date().getTime(), components: {} };"));
    expect(f.fault.kind).toBe("exception");
    expect(f.message).toMatch(/Date is not available/);
  });
});

describe("reward sandbox: isolation", () => {
  it("the builtins wrapped for CPU polling still behave as specified", async () => {
    const p = await compile(
      ok(`
      const t = new Float64Array(4); t.fill(2, 1); t.set([5], 0);
      const checks = [
        [3, 1, 2].sort().join() === "1,2,3",
        [1, 2, 3].indexOf(3) === 2 && [1, 2].includes(2) && [1, 2].concat([3], 4).length === 4,
        "ab".repeat(2) === "abab" && "x".padStart(3, "-") === "--x" && "a,b".split(",").length === 2,
        Array.from({ length: 3 }, (_, i) => i * 2).join() === "0,2,4" && Array.from(new Set([1, 1, 2])).length === 2,
        JSON.parse(JSON.stringify({ a: [1, { b: 2 }] })).a[1].b === 2 && JSON.stringify(undefined) === undefined,
        Object.keys({ a: 1, b: 2 }).join() === "a,b" && Object.entries({ a: 1 })[0][1] === 1,
        Math.max.apply(null, [1, 5, 3]) === 5,
        t.join() === "5,2,2,2" && Float64Array.from([1, 2]).length === 2 && t.slice(1).length === 3,
        [1, 2, 3].slice(1).length === 2 && [3, 2, 1].toSorted().join() === "1,2,3" && [1, 2].reverse()[0] === 2,
        "Hello".toUpperCase() === "HELLO" && "a-b".replace("-", "+") === "a+b" && " x ".trim() === "x",
      ];
      return { total: checks.filter(Boolean).length, components: { n: checks.length } };`),
    );
    const out = p.evaluate(pendulumBatch());
    expect(out.total[0]).toBe(out.components.n![0]);
  });

  it("an infinite loop is stopped by the CPU limit as a timeout fault", async () => {
    const t0 = performance.now();
    const f = await faultOfRun(`function reward(obs) {\n  let s = 0;\n  while (true) { s += obs.theta; }\n}`, pendulum, pendulumBatch(), { cpuMsPerCall: 30 });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(f.fault.kind).toBe("timeout");
    expect(f.message).toMatch(/longer than 30 ms of CPU time on 3 envs/);
    expect(f.message).toMatch(/inside function reward/);
  });

  it("a loop over large native builtins is stopped too (the builtins let the CPU check run)", async () => {
    for (const body of [
      "const a = new Array(1e6).fill(0); while (true) a.indexOf(1);",
      "const s = 'x'.repeat(1e6); while (true) s.indexOf('y');",
      "const t = new Float64Array(1e6); while (true) t.fill(1);",
    ]) {
      const t0 = performance.now();
      const f = await faultOfRun(ok(body), pendulum, pendulumBatch(), { cpuMsPerCall: 30 });
      expect(f.fault.kind).toBe("timeout");
      expect(performance.now() - t0).toBeLessThan(5000);
    }
  });

  it("a timeout cannot be swallowed by try/catch/finally", async () => {
    const f = await faultOfRun(ok("for (;;) { try { while (true) {} } catch (e) {} finally { continue; } }"), pendulum, pendulumBatch(), { cpuMsPerCall: 30 });
    expect(f.fault.kind).toBe("timeout");
  });

  it("an endless top-level loop is a timeout at compile time", async () => {
    const f = await faultOf(() => compileReward("while (true) {}\nfunction reward() {}", pendulum, { cpuMsPerCall: 5 }));
    expect(f.fault.kind).toBe("timeout");
    expect(f.message).toMatch(/top-level code/);
  });

  it("a memory bomb is a memory fault, and the program still disposes", async () => {
    const p = await compile(`function reward(obs) {\n  const a = [];\n  while (true) a.push(new Array(100000).fill(obs.theta));\n}`, pendulum, {
      memoryBytes: 8 << 20,
      cpuMsPerCall: 20_000,
    });
    const f = await faultOf(() => p.evaluate(pendulumBatch()));
    expect(f.fault.kind).toBe("memory");
    expect(f.fault.line).toBe(3);
    expect(f.message).toMatch(/memory limit of 8 MiB/);
    // still usable for a second call (same fault), then disposed cleanly
    expect((await faultOf(() => p.evaluate(pendulumBatch()))).fault.kind).toBe("memory");
    expect(() => p.dispose()).not.toThrow();
  });

  it("string, typed-array and small-object bombs are memory faults", async () => {
    for (const body of [
      "let s = 'x'; while (true) s = s + s;",
      "const a = []; while (true) a.push(new Float64Array(1 << 16));",
      "const a = []; while (true) a.push({ x: a.length });",
    ]) {
      const f = await faultOfRun(ok(body), pendulum, pendulumBatch(), { memoryBytes: 8 << 20, cpuMsPerCall: 20_000 });
      expect(f.fault.kind).toBe("memory");
    }
  });

  it("unbounded recursion is an exception, not a host crash", async () => {
    const f = await faultOfRun(`function deep(k) { return deep(k + 1) + 1; }\n${ok("return deep(0);")}`);
    expect(f.fault.kind).toBe("exception");
    expect(f.message).toMatch(/stack overflow/);
    expect(f.message).toMatch(/recursion/);
  });

  it("process.exit(1) is an exception inside the sandbox; the host keeps running", async () => {
    const f = await faultOfRun(ok("process.exit(1); return { total: 0, components: {} };"));
    expect(f.fault.kind).toBe("exception");
    expect(f.fault.message).toMatch(/process.*not defined/);
    expect(f.message).toMatch(/no modules, files, network, process/);
  });

  it("require('fs') is not available", async () => {
    const f = await faultOfRun(ok("const fs = require('fs'); return { total: fs.readFileSync('/etc/passwd').length, components: {} };"));
    expect(f.fault.kind).toBe("exception");
    expect(f.fault.message).toMatch(/require.*not defined/);
  });

  it("import('fs') gives no module: a Promise that is a shape fault", async () => {
    const f = await faultOfRun(ok("return import('fs');"));
    expect(f.fault.kind).toBe("shape");
    expect(f.message).toMatch(/Promise/);
    const g = await faultOf(() => compileReward("import fs from 'fs';\nfunction reward() {}", pendulum));
    expect(g.fault.kind).toBe("syntax");
  });

  it("fetch, setTimeout, globalThis.process are absent", async () => {
    const f = await faultOfRun(ok("fetch('http://example.com'); return { total: 0, components: {} };"));
    expect(f.fault.kind).toBe("exception");
    expect(f.fault.message).toMatch(/fetch.*not defined/);
    const p = await compile(
      ok(`return { total: 0, components: {
      fetch: typeof fetch === "undefined" ? 1 : 0, setTimeout: typeof setTimeout === "undefined" ? 1 : 0,
      process: typeof globalThis.process === "undefined" ? 1 : 0, require: typeof require === "undefined" ? 1 : 0 } };`),
    );
    const out = p.evaluate(pendulumBatch());
    for (const name of ["fetch", "setTimeout", "process", "require"]) expect(out.components[name]![0]).toBe(1);
  });

  it("constructor chains reach only the sandbox's own global object", async () => {
    const p = await compile(
      ok(`
      const g1 = (function () {}).constructor("return this")();
      const g2 = this.constructor.constructor("return this")();
      const g3 = obs.constructor.constructor("return globalThis")();
      const g4 = Object.getPrototypeOf(async function () {}).constructor;
      const hostish = (g) => ["process", "require", "Buffer", "module", "global", "fetch", "setImmediate"].filter((k) => typeof g[k] !== "undefined").length;
      return { total: 0, components: { h1: hostish(g1), h2: hostish(g2), h3: hostish(g3), same: g1 === globalThis && g2 === globalThis && g3 === globalThis ? 1 : 0, g4: typeof g4 === "function" ? 1 : 0 } };`),
    );
    const out = p.evaluate(pendulumBatch());
    expect(out.components.h1![0]).toBe(0);
    expect(out.components.h2![0]).toBe(0);
    expect(out.components.h3![0]).toBe(0);
    expect(out.components.same![0]).toBe(1);
  });

  it("prototype pollution inside does not reach host objects", async () => {
    const p = await compile(
      `Object.prototype.polluted = 1;\nArray.prototype.push = function () { return 42; };\nFloat64Array.prototype.fill = null;\nJSON.stringify = () => "hacked";\nMath.cos = () => 99;\n${ok("return { total: Math.cos(0), components: { p: ({}).polluted } };")}`,
    );
    const out = p.evaluate(pendulumBatch());
    expect([...out.total]).toEqual([99, 99, 99]);
    expect([...out.components.p!]).toEqual([1, 1, 1]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Math.cos(0)).toBe(1);
    const arr: number[] = [];
    expect(arr.push(1)).toBe(1);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    expect(new Float64Array(2).fill(3)[1]).toBe(3);
  });

  it("redefining the builtins the driver uses changes nothing for the host", async () => {
    const p = await compile(`
      const TA = Object.getPrototypeOf(Float64Array.prototype);
      Object.defineProperty(TA, "buffer", { get() { return "not a buffer"; } });
      Float64Array = function () { return {}; };
      Object.keys = () => ["evil"];
      JSON.stringify = () => "{";
      Function.prototype.call = () => 0;
      Array.isArray = () => true;
      ${ok("return { total: obs.theta, components: { a: 1 } };")}`);
    const out = p.evaluate(pendulumBatch());
    expect([...out.total]).toEqual([0, 0.5, 1]);
    expect(Object.keys(out.components)).toEqual(["a"]);
  });

  it("a component named __proto__ is an ordinary entry on the host", async () => {
    const p = await compile(ok('return { total: 1, components: { ["__proto__"]: 2, b: 3 } };'));
    const out = p.evaluate(pendulumBatch());
    expect(Object.keys(out.components)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(out.components)).toBe(Object.prototype);
    expect([...Object.getOwnPropertyDescriptor(out.components, "__proto__")!.value]).toEqual([2, 2, 2]);
  });

  it("deep native recursion (JSON of a deeply nested array) is a clean exception", async () => {
    const exitCode = process.exitCode;
    const f = await faultOfRun(ok("let a = []; for (let i = 0; i < 200000; i++) a = [a]; return JSON.stringify(a).length;"), pendulum, pendulumBatch(), {
      cpuMsPerCall: 5000,
    });
    expect(["exception", "memory"]).toContain(f.fault.kind);
    expect(f.fault.message).toMatch(/stack overflow|out of memory/);
    for (const p of programs.splice(0)) p.dispose();
    expect(process.exitCode).toBe(exitCode);
  });

  it("a program keeps working after an exception, and evaluate after dispose is a hexa bug", async () => {
    const p = await compileReward(ok("if (obs.theta > 0.7) throw new Error('big'); return { total: obs.theta, components: {} };"), pendulum);
    expect((await faultOf(() => p.evaluate(pendulumBatch()))).fault.kind).toBe("exception");
    const small = {
      n: 1,
      obs: new Float64Array([0.2, 0]),
      action: new Float64Array([0]),
      nextObs: new Float64Array([0, 0]),
      info: { x_position: new Float64Array([0]) },
    };
    expect([...p.evaluate(small).total]).toEqual([0.2]);
    p.dispose();
    p.dispose();
    expect(() => p.evaluate(small)).toThrow(/after dispose/);
  });
});

describe("reward sandbox: faults written for the model", () => {
  it("a syntax error names its line and the source there", async () => {
    const f = await faultOf(() => compileReward("function reward(obs) {\n  let x = 1;\n  x = = 2;\n}", pendulum));
    expect(f.fault).toMatchObject({ kind: "syntax", line: 3 });
    expect(f.message).toMatch(/SyntaxError/);
    expect(f.message).toMatch(/line 3 \(`x = = 2;`\)/);
  });

  it("an exception names its line, the message and the fields that exist", async () => {
    const f = await faultOfRun("function reward(obs, action) {\n  const v = obs.velocity;\n  return { total: v.x, components: {} };\n}");
    expect(f.fault).toMatchObject({ kind: "exception", line: 3 });
    expect(f.fault.message).toMatch(/TypeError/);
    expect(f.message).toMatch(/line 3/);
    expect(f.message).toMatch(/\.theta, \.omega/);
    expect(f.message).toMatch(/action has \.torque/);
  });

  it("an exception thrown at top level is reported at compile time with its line", async () => {
    const f = await faultOf(() => compileReward("const a = 1;\nnull.x;\nfunction reward() {}", pendulum));
    expect(f.fault).toMatchObject({ kind: "exception", line: 2 });
  });

  it("a thrown non-Error value is an exception", async () => {
    const f = await faultOfRun(ok("throw { message: { get x() { while (true) {} } } };"));
    expect(f.fault.kind).toBe("exception");
  });

  it("missing reward function", async () => {
    const f = await faultOf(() => compileReward("function rewardFn() { return 1; }", pendulum));
    expect(f.fault.kind).toBe("missing");
    expect(f.message).toMatch(/function reward\(obs, action, nextObs, info\)/);
    const g = await faultOf(() => compileReward("var reward = 3;", pendulum));
    expect(g.fault.kind).toBe("missing");
    expect(g.fault.message).toMatch(/not a function/);
  });

  it("NaN in a component is a nan fault naming the component, the env and its inputs", async () => {
    const f = await faultOfRun(ok("return { total: 1, components: { ok: 1, logTheta: Math.log(obs.theta - 0.7) } };"));
    expect(f.fault.kind).toBe("nan");
    expect(f.fault.message).toBe('component "logTheta" is NaN for env 0');
    expect(f.message).toMatch(/obs\.theta=0/);
    expect(f.message).toMatch(/guard/);
  });

  it("a component called total is named as a component", async () => {
    const f = await faultOfRun(ok("return { total: 1, components: { total: NaN } };"));
    expect(f.fault.message).toBe('component "total" is NaN for env 0');
  });

  it("Infinity in total is a nan fault", async () => {
    const f = await faultOfRun(ok("return { total: 1 / (obs.theta - 0.5), components: {} };"));
    expect(f.fault.kind).toBe("nan");
    expect(f.fault.message).toBe("total is Infinity for env 1");
  });

  it("NaN in the batched form", async () => {
    const f = await faultOfRun("function rewardBatch(b) { return { total: [1, NaN, 1], components: { c: [0, 0, 0] } }; }");
    expect(f.fault).toMatchObject({ kind: "nan", message: "total is NaN for env 1" });
  });

  it("a string return is a shape fault", async () => {
    const f = await faultOfRun(ok("return 'high reward';"));
    expect(f.fault.kind).toBe("shape");
    expect(f.fault.message).toMatch(/"high reward"/);
    expect(f.message).toMatch(/must return \{ total: <number>, components/);
  });

  it("a plain number return, a non-number total or component, missing components are shape faults", async () => {
    for (const [body, what] of [
      ["return 1;", /got 1/],
      ["return { total: '1', components: {} };", /total is "1"/],
      ["return { total: 1, components: { a: 'x' } };", /component "a" is "x"/],
      ["return { total: 1 };", /components is undefined/],
      ["return { total: 1, components: { a: true } };", /component "a" is true/],
    ] as const) {
      const f = await faultOfRun(ok(body));
      expect(f.fault.kind).toBe("shape");
      expect(f.fault.message).toMatch(what);
    }
  });

  it("component names are fixed by the first call: other names later are a shape fault", async () => {
    const p = await compile(ok("return { total: 1, components: obs.theta > 0.7 ? { a: 1, b: 2 } : { a: 1 } };"));
    const small = {
      n: 1,
      obs: new Float64Array([0.2, 0]),
      action: new Float64Array([0]),
      nextObs: new Float64Array([0, 0]),
      info: { x_position: new Float64Array([0]) },
    };
    expect(Object.keys(p.evaluate(small).components)).toEqual(["a"]);
    const f = await faultOf(() => p.evaluate({ ...small, obs: new Float64Array([0.9, 0]) }));
    expect(f.fault.kind).toBe("shape");
    expect(f.fault.message).toMatch(/\[a, b\] but the first call returned \[a\]/);
    const q = await compile(ok("return { total: 1, components: obs.theta > 0.7 ? { b: 2 } : { a: 1 } };"));
    const g = await faultOf(() => q.evaluate(pendulumBatch()));
    expect(g.fault.message).toMatch(/components for env 2 are \[b\]/);
  });

  it("batched form: wrong lengths and non-arrays are shape faults", async () => {
    const f = await faultOfRun("function rewardBatch(b) { return { total: [1, 2], components: {} }; }");
    expect(f.fault).toMatchObject({ kind: "shape" });
    expect(f.fault.message).toMatch(/length 2, not n = 3/);
    const g = await faultOfRun("function rewardBatch(b) { return { total: 3, components: {} }; }");
    expect(g.fault.message).toMatch(/total is 3, not an array/);
  });
});
