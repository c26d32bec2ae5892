import { createAppContext } from "../src/app/context.ts";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import { checkRunConfig } from "../src/app/run-check.ts";
import { runIdOf } from "../src/app/run-id.ts";
import { HexaError } from "../src/errors.ts";
import { parseRunConfigYaml, runConfigYaml } from "../src/loop/run-config.ts";
import { callInterphyreTool, type DispatchOutcome } from "../levels/interphyre/tools/interphyre-tool.ts";
import { tools } from "../levels/interphyre/tools/index.ts";
import { solvedSession } from "./support/tool-session.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/**
 * Hostile inputs, fuzzed: whatever a user writes in a config file, and whatever a model sends as tool
 * arguments, ends in a run start (the config parsed and checked), a `hexa:` error (exit 2), or an error
 * observation; never a stack trace or an error hexa did not mean to throw. Small run counts keep it to seconds.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VALID = { levels: ["two_body_problem"], agent: "heuristic", evolver: "heuristic", rounds: 2, episodesPerRound: 1, offline: { episodes: 1 } };
const SEED = 20261203; // fixed, so a failure reproduces; fast-check prints the counterexample

/** Values a hostile config holds: wrong types, huge and non-finite numbers, long and odd unicode text, nesting. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(Infinity, -Infinity, NaN, 1e308, -1e308, 2 ** 53 + 1, -0, 0.5, -1, 0, 1e-320),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("a".repeat(5000), "\u0000", "\u202e..\u202d", "🧪".repeat(50), "ﬁ", "../../etc/passwd", "levels", ".inf", "~", "*a", "&a"),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

const KEYS = [
  "name",
  "family",
  "levels",
  "seeds",
  "seeds.offset",
  "rounds",
  "episodesPerRound",
  "agent",
  "evolver",
  "init",
  "update",
  "offline",
  "offline.episodes",
  "offline.banks",
  "offline.trajectories",
  "bank.maxSkills",
  "bank.rewardLabels",
  "retriever.topSkills",
  "actor.maxTurns",
  "llm.actor.model",
  "llm.actor.baseURL",
  "skillIndex.enabled",
  "concurrency",
  "seed",
  "interphyre.horizon",
  "interphyre.toolSet",
  "roundz",
  "actor.maxTurn",
  "__proto__",
  "constructor",
];

const setPath = (obj: Record<string, unknown>, path: string, v: unknown): Record<string, unknown> => {
  const copy = structuredClone(obj);
  const parts = path.split(".");
  let at: Record<string, unknown> = copy;
  for (const p of parts.slice(0, -1)) {
    if (at[p] === null || typeof at[p] !== "object") at[p] = {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts.at(-1)!] = v;
  return copy;
};

/** Values a config may well hold, so that mutations also reach valid configs. */
const plainValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: 1, max: 4 }),
  fc.boolean(),
  fc.constantFrom("heuristic", "static", "offline", "online", "evolving", "two_body_problem", "extended", "q-1"),
);

/** Mutations of a valid config (1–3 keys set to odd or plain values), whole random documents, and raw text. */
const configText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...KEYS), fc.oneof(oddValue, plainValue)), { minLength: 1, maxLength: 3 })
      .map((edits) => toYaml(edits.reduce((c, [k, v]) => setPath(c, k, v), VALID as Record<string, unknown>))),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          "rounds",
          "episodesPerRound",
          "concurrency",
          "seed",
          "actor.maxTurns",
          "bank.maxSkills",
          "offline.episodes",
          "name",
          "update",
          "seeds.offset",
        ),
        plainValue,
      )
      .map(([k, v]) => toYaml(setPath(VALID, k, v))),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => toYaml(v)) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "levels: [two_body_problem]\nrounds: .inf\n",
      "levels: [two_body_problem]\nrounds: .nan\n",
      "a: &a [*a]\n",
      "levels: !!binary AAAA\n",
      "? [a]\n: b\n",
      "levels: [two_body_problem]\nrounds: 0x10\n",
      "{{{{",
      "levels:\n  - two_body_problem\n  -\n",
      "%YAML 9.9\n---\n",
    ),
  },
);

/** What `hexa run` does with a config before it makes a run directory; the written config.yaml must read back as the same config. */
const startCheck = (text: string): "started" => {
  const cfg = parseRunConfigYaml(text, "fuzz.yaml", families.all());
  const family = checkRunConfig(families, cfg, "fuzz.yaml");
  expect(Buffer.byteLength(runIdOf(cfg, family, new Date(0)))).toBeLessThanOrEqual(255);
  const again = parseRunConfigYaml(runConfigYaml(cfg, families.all()), "config.yaml", families.all());
  expect(again, "the run's config.yaml would not read back as the config it started with").toEqual(cfg);
  return "started";
};

const outcomeOf = (text: string): { kind: "started" } | { kind: "refused"; message: string } => {
  try {
    startCheck(text);
    return { kind: "started" };
  } catch (e) {
    if (e instanceof HexaError) return { kind: "refused", message: e.message };
    throw e;
  }
};

describe("fuzz: config files", () => {
  it("every config ends in a run start or a HexaError (never another error)", () => {
    const seen = { started: 0, refused: 0 };
    fc.assert(
      fc.property(configText, (text) => {
        const o = outcomeOf(text);
        seen[o.kind]++;
        if (o.kind === "refused") expect(o.message.length).toBeLessThan(2000);
      }),
      { numRuns: 200, seed: SEED },
    );
    // The generator reaches both ends, so the property is not vacuous.
    expect(seen.started).toBeGreaterThan(10);
    expect(seen.refused).toBeGreaterThan(100);
  });

  const made: string[] = [];
  afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const hexa = (args: string[]): Promise<{ status: number | null; stderr: string }> =>
    new Promise((ok, fail) => {
      const child = spawn(process.execPath, ["bin/hexa.js", ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      child.once("error", fail);
      child.once("close", (status) => ok({ status, stderr }));
    });

  it("through the real CLI, a few refused ones exit 2 with a hexa: message and no stack trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-fuzz-"));
    made.push(dir);
    const refused = fc.sample(
      configText.filter((t) => outcomeOf(t).kind === "refused"),
      { numRuns: 3, seed: SEED },
    );
    const runs = join(dir, "runs");
    await Promise.all(
      refused.map(async (text, i) => {
        const path = join(dir, `c${i}.yaml`);
        writeFileSync(path, text);
        const r = await hexa(["run", path, "--runs-dir", runs]);
        expect(r.status, `${text}\n${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/^hexa: /m);
        expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
      }),
    );
  }, 60_000);
});

describe("fuzz: tool arguments", () => {
  const all = Object.values(tools);
  const { session } = solvedSession("two_body_problem");
  const number = fc.oneof(fc.double(), fc.constantFrom(Infinity, -Infinity, NaN, 1e308, -0, 0, 0.5, 3, -4.9, 1.5), fc.integer({ min: -3000, max: 3000 }));
  /** Random JSON, and objects with each tool's own field names filled with odd values (closer to what a model sends). */
  const argsFor = (fields: string[]) =>
    fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(undefined, null, "x", [], 1),
      fc.record(
        Object.fromEntries(
          fields.map((f) => [f, fc.oneof(number, fc.string({ maxLength: 12 }), fc.constant(null), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))]),
        ),
        { requiredKeys: [] },
      ),
      fc.record(Object.fromEntries(fields.map((f) => [f, number])), { requiredKeys: [] }),
    );
  const fieldsOf = (input: unknown): string[] => {
    const shape = (input as { shape?: Record<string, unknown> }).shape;
    return shape ? Object.keys(shape) : ["x", "y", "radius"];
  };

  it.each(all.map((t) => [t.name, t] as const))(
    "%s: any arguments give a result or an ERROR observation",
    async (_name, tool) => {
      await fc.assert(
        fc.asyncProperty(argsFor([...fieldsOf(tool.input), "snapshot_id", "object", "objects", "steps", "stop_step"]), async (raw) => {
          let out: DispatchOutcome;
          try {
            out = await Promise.resolve(callInterphyreTool(all, session, tool.name, raw));
          } catch (e) {
            throw new Error(`${tool.name}(${JSON.stringify(raw)}) threw ${(e as Error).name}: ${(e as Error).message}`);
          }
          expect(typeof out.observation).toBe("string");
          if (!out.ok) expect(out.observation.startsWith("ERROR: ")).toBe(true);
        }),
        { numRuns: 20, seed: SEED },
      );
    },
    60_000,
  );

  it("an unknown or odd tool name is an ERROR observation", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 1 }), async (name, raw) => {
        const out = await Promise.resolve(callInterphyreTool(all, session, name, raw));
        if (!all.some((t) => t.name === name)) expect(out.observation).toMatch(/^ERROR: unknown tool/);
      }),
      { numRuns: 50, seed: SEED },
    );
  });
});
