import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runInContext, createContext } from "node:vm";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { RewardBatchInput } from "../task.ts";
import { packBatch, type RewardLayout } from "./contract.ts";
import { compileReward } from "./reward-sandbox.ts";

const PRELUDE_FILE = fileURLToPath(new URL("./prelude.js", import.meta.url));

const layout: RewardLayout = { observation: ["x", "theta"], actionNames: ["force"], actionKind: "continuous", info: ["alive"] };
const batch: RewardBatchInput = {
  n: 3,
  obs: new Float64Array([0, 1, 0.5, 2, 1, 3]),
  action: new Float64Array([1, -2, 3]),
  nextObs: new Float64Array([0.1, 1.1, 0.6, 2.1, 1.1, 3.1]),
  info: { alive: new Float64Array([1, 0, 1]) },
};
const PER_ENV = "function reward(o, a, n, i) { const r = Math.random(); return { total: o.x + a.force * r + n.theta, components: { r, alive: i.alive } }; }";
const BATCHED =
  "function rewardBatch(b) { const t = []; for (let i = 0; i < b.n; i++) t.push(b.obs.theta[i] * Math.random() + b.action.force[i]); return { total: t, components: { t } }; }";

interface Driver {
  form: string;
  run(buf: ArrayBuffer): ArrayBuffer | string;
  names(): string;
}

/** The prelude evaluated in a fresh V8 context (not QuickJS), with `code` as the reward code. */
const driverInV8 = (code: string, seed: number): Driver => {
  const ctx = createContext({});
  const prelude = runInContext(readFileSync(PRELUDE_FILE, "utf8"), ctx, { filename: "hexa-prelude.js" }) as (
    layout: string,
    seed: number,
  ) => { makeDriver(found: unknown[]): Driver | string };
  const { makeDriver } = prelude(JSON.stringify(layout), seed);
  runInContext(code, ctx, { filename: "reward.js" });
  const found = runInContext(
    `[typeof rewardBatch === "undefined" ? undefined : rewardBatch, typeof reward === "undefined" ? undefined : reward]`,
    ctx,
  ) as unknown[];
  const driver = makeDriver(found);
  if (typeof driver === "string") throw new Error(driver);
  return driver;
};

describe("prelude.js (the code run in the sandbox before the reward code)", () => {
  it("type-checks as JavaScript under // @ts-check (strict)", () => {
    const program = ts.createProgram([PRELUDE_FILE], {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      strict: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts"],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? `line ${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ""}${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    expect(problems).toEqual([]);
  });

  it.each([
    ["per env", PER_ENV],
    ["batched", BATCHED],
  ])("evaluated in V8 it drives %s reward code to the same numbers as in QuickJS", async (_form, code) => {
    const driver = driverInV8(code, 7);
    const input = packBatch(layout, batch);
    const outs = [driver.run(input.slice().buffer), driver.run(input.slice().buffer)];
    const sandboxed = await compileReward(code, layout, { seed: 7 });
    try {
      for (const out of outs) {
        if (typeof out === "string") throw new Error(out);
        const got = new Float64Array(out);
        const want = sandboxed.evaluate(batch);
        expect([...got.subarray(0, 3)]).toEqual([...want.total]);
        expect(JSON.parse(driver.names())).toEqual(sandboxed.componentNames);
        sandboxed.componentNames!.forEach((name, k) => expect([...got.subarray((k + 1) * 3, (k + 2) * 3)]).toEqual([...want.components[name]!]));
      }
    } finally {
      sandboxed.dispose();
    }
  });
});
