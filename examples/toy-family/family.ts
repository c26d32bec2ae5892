import { z } from "zod";
import { toolDefiner } from "../../tools/define-tool.ts";
import { callTool } from "../../tools/dispatch.ts";
import { familyConfig, type LevelFamily } from "../../src/family/family.ts";
import type { HeuristicEvolveRequest, HeuristicPlayRequest } from "../../src/family/capabilities.ts";
import type { BankEvent } from "../../src/store/bank.ts";
import { cite, NO_EVIDENCE, weightOf } from "../../src/store/bank-weights.ts";
import type { FamilyModule } from "../../src/family/registry.ts";
import type { TaskEnv } from "../../src/family/task-env.ts";
import { countedTurns, NO_USAGE, TRAJECTORY_SCHEMA_VERSION, type Trajectory, type TrajectoryStep } from "../../src/store/trajectory.ts";
import { ModelOutputError } from "../../src/errors.ts";
import { keyedRegistry } from "../../src/family/registry.ts";

/**
 * A toy third family, added through the registry alone (HEXA_FAMILIES): guess a seeded secret number with
 * probes that answer higher or lower. It exercises the seam as a new family would, with no generic code edited.
 */

const levels = keyedRegistry("toy level", {
  guess_small: { describe: "Find a secret integer in [0, size) with probes that answer higher, lower or found.", span: 1 },
  guess_large: { describe: "Find a secret integer in [0, 4 × size) with probes that answer higher, lower or found.", span: 4 },
});

const ToyConfig = z.strictObject({
  size: z.number().int().min(2).default(64).describe("numbers a small level's secret is drawn from"),
});
const slice = { key: "toy", schema: ToyConfig };

const secretOf = (level: string, seed: number, size: number): number => (seed * 7919 + 13) % (size * levels.get(level).span);

interface Session {
  secret: number;
}

const defineTool = toolDefiner<Session>();
const Guess = z.object({ x: z.number().int().describe("the number to try") });

const probe = defineTool({
  name: "probe",
  description: "Try a number: answers higher, lower or found (found ends the episode with success).",
  input: Guess,
  run: (s, a) => {
    if (a.x < 0) throw new ModelOutputError(`x=${a.x} is below 0; choose x ≥ 0`);
    if (a.x === s.secret) return { observation: "found", result: "found", ends: { reason: "success", success: true, action: { x: a.x } } };
    return { observation: a.x < s.secret ? "higher" : "lower", result: a.x < s.secret ? "higher" : "lower" };
  },
});

const finish = defineTool({
  name: "finish",
  description: "Commit a number as the answer; the episode ends.",
  input: Guess,
  run: (s, a) => ({ observation: a.x === s.secret ? "correct" : "wrong", ends: { reason: "finish", success: a.x === s.secret, action: { x: a.x } } }),
});

const TOOLS = [probe, finish];

/**
 * The heuristic evolver: a level's first success becomes one skill, bisection, citing the probes it took; each
 * later update reweights it by the round's outcomes (its evidence is the running mean of their r).
 */
const evolveToy = ({ round, level, bank, labelled }: HeuristicEvolveRequest): BankEvent[] => {
  const id = `${level}-bisect`;
  const had = bank.skills.find((s) => s.id === id);
  const wins = labelled.filter((l) => l.trajectory.success);
  if (!had && wins.length === 0) return [];
  const evidence = cite(
    had?.evidence ?? NO_EVIDENCE,
    labelled.map((l) => l.r),
  );
  const cited = { schemaVersion: 1 as const, round, evidence: labelled.map((l) => l.id) };
  if (had) return [{ type: "reweight", ...cited, reason: `${wins.length}/${labelled.length} found`, id, weight: weightOf(evidence), evidenceState: evidence }];
  const best = wins.reduce((a, l) => (l.trajectory.steps.length < a.trajectory.steps.length ? l : a));
  const skill = {
    kind: "skill" as const,
    id,
    sourceSeeds: wins.map((l) => l.trajectory.seed),
    generation: round,
    weight: weightOf(evidence),
    parents: [],
    evidence,
    title: "Bisect the range",
    principle: "Probe the middle of the numbers still possible; each answer halves them, so the secret is found in about log2(range) probes.",
    whenToApply: "from the first probe, every time",
    example: `seed ${best.trajectory.seed}: found in ${best.trajectory.steps.length} probes`,
    sourceType: "contrastive" as const,
  };
  return [{ type: "add", ...cited, reason: `${wins.length} episode(s) found the secret by bisection`, entry: skill }];
};

/** The heuristic agent: bisection of the numbers still possible, one probe per turn. */
const playToy = async (r: HeuristicPlayRequest): Promise<Trajectory> => {
  const size = familyConfig(r.config, slice).size;
  const secret = secretOf(r.task.level, r.task.seed, size);
  const steps: TrajectoryStep[] = [];
  let lo = 0;
  let hi = size * levels.get(r.task.level).span - 1;
  let found: number | undefined;
  for (let turn = 1; turn <= r.config.actor.maxTurns && found === undefined; turn++) {
    const x = Math.floor((lo + hi) / 2);
    const out = await callTool(TOOLS, { secret }, "probe", { x });
    const step: TrajectoryStep = { turn, thought: `bisect [${lo}, ${hi}]`, tool: "probe", args: { x }, observation: out.observation, ok: out.ok, ms: 0 };
    steps.push(step);
    r.onStep?.(step);
    if (out.observation === "found") found = x;
    else if (out.observation === "higher") lo = x + 1;
    else hi = x - 1;
  }
  const success = found !== undefined;
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    level: r.task.level,
    seed: r.task.seed,
    agent: "heuristic (no LLM)",
    model: "none (heuristic)",
    success,
    turns: countedTurns(success, steps.length, r.config.actor.maxTurns),
    maxTurns: r.config.actor.maxTurns,
    action: success ? { x: found } : null,
    steps,
    usage: NO_USAGE,
    wallMs: 0,
    stopReason: success ? "success" : "budget",
  };
};

export const toyFamily = (): LevelFamily => {
  const family: LevelFamily = {
    id: "toy",
    title: "Toy: guess a secret number",
    listLevels: levels.list,
    checkLevel: (level) => void levels.get(level),
    seedsOf: () => Array.from({ length: 200 }, (_, i) => i),
    describe: (level) => levels.get(level).describe,
    action: z.object({ x: z.number().int() }),
    words: {
      task: "guessing task",
      solvesBy: "probing numbers",
      numbers: "numbers",
      mechanisms: "how the answers narrow the range",
      partialExamples: "a probe order that halves the range, abandoned too early",
      primitive: { kind: "search primitive", example: "halving the range with each probe" },
      names: "the range",
      cause: "reason",
      verifyBy: "by probing",
      seedsDiffer: "the secret differs from seed to seed",
      renderAction: (a) => `x=${(a as { x: number }).x}`,
      sceneOf: (level, seed) => `${level} seed ${seed}`,
      evidenceOf: (_level, step) => ({ action: `${step.tool} ${JSON.stringify(step.args)}`, outcome: step.observation.split("\n").slice(0, 1) }),
    },
    config: slice,
    openEnv: async (task, config) => {
      const session = { secret: secretOf(task.level, task.seed, familyConfig(config, slice).size) };
      const env: TaskEnv = {
        level: task.level,
        seed: task.seed,
        tools: TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: z.toJSONSchema(t.input) as Record<string, unknown> })),
        prompt: { noun: "task", role: "You find a secret number.", sections: [], rules: [], task: levels.get(task.level).describe },
        call: async (name, args) => {
          const { tool: _tool, ...out } = await callTool(TOOLS, session, name, args);
          return out;
        },
        close: async () => {},
      };
      return env;
    },
    heuristics: { play: playToy, evolve: evolveToy },
  };
  return family;
};

const toyModule: FamilyModule = {
  id: "toy",
  title: "Toy: guess a secret number",
  build: toyFamily,
  listing: async () => ({
    header: ["level", "span", "description"],
    rows: levels.list().map((id) => [id, String(levels.get(id).span), levels.get(id).describe]),
  }),
};
export default toyModule;
