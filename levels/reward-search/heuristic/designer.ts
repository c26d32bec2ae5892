import type { ToolProgress, ToolResult } from "../../../src/family/task-env.ts";
import type { Rng } from "../../../src/util/rng.ts";
import { countedTurns, NO_USAGE, TRAJECTORY_SCHEMA_VERSION, type StopReason, type Trajectory, type TrajectoryStep } from "../../../src/store/trajectory.ts";
import { callRewardTool } from "../tools/reward-tool.ts";
import { trainingsLeft, type RewardSession } from "../tools/session.ts";
import { REWARD_TOOLS } from "../task-env.ts";
import { composeReward, baseDesign, termsOf, type Design, type Term } from "./terms.ts";

export const HEURISTIC_AGENT = "heuristic (no LLM)";
const HEURISTIC_MODEL = "none (heuristic)";

/** What the designer takes from a bank: designs to try first (skills) and designs that failed (mistakes). */
export interface DesignHint {
  kind: "start" | "avoid";
  design: Design;
  weight: number;
}

export interface DesignerOptions {
  session: RewardSession;
  maxTurns: number;
  rng: Rng;
  now: () => number;
  hints?: readonly DesignHint[];
  onToolProgress?: (p: ToolProgress) => void;
  onStep?: (step: TrajectoryStep) => void;
}

const describe = (d: Design) =>
  Object.entries(d)
    .map(([k, w]) => `${k} ${Number(w.toPrecision(3))}`)
    .join(", ");
const key = (d: Design) =>
  JSON.stringify(
    Object.entries(d)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, w]) => [k, Number(w.toPrecision(2))]),
  );

/** Within 25% on every weight of the same term set: the same design for the avoid rule. */
const near = (a: Design, b: Design) => {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.join() === kb.join() && ka.every((k) => Math.abs(a[k]! - b[k]!) <= 0.25 * Math.max(Math.abs(a[k]!), Math.abs(b[k]!), 1e-9));
};

/** One change to a design (RF-Agent's mutations, without a model): rescale a weight, add a term, or drop one. */
export const mutate = (task: string, d: Design, rng: Rng): { design: Design; why: string } => mutateTerms(termsOf(task), d, rng);

/** `mutate` over a term list. */
export const mutateTerms = (terms: readonly Term[], d: Design, rng: Rng): { design: Design; why: string } => {
  const absent = terms.filter((t) => d[t.name] === undefined);
  const present = terms.filter((t) => d[t.name] !== undefined);
  const roll = rng.random();
  if (roll < 0.2 && absent.length) {
    const t = rng.choice(absent);
    return { design: { ...d, [t.name]: t.weight }, why: `add the ${t.name} term` };
  }
  if (roll < 0.3 && present.length > 1) {
    const t = rng.choice(present);
    const { [t.name]: _dropped, ...rest } = d;
    return { design: rest, why: `drop the ${t.name} term` };
  }
  const t = rng.choice(present.length ? present : terms);
  const w = (d[t.name] ?? t.weight) * Math.exp(rng.normal(0, 0.6));
  const clipped = Math.min(t.range[1], Math.max(t.range[0], w));
  return { design: { ...d, [t.name]: clipped }, why: `rescale ${t.name} to ${Number(clipped.toPrecision(3))}` };
};

type Candidate = { design: Design; why: string };
type Ending = { kind: StopReason; success: boolean; design?: Design; score?: number };
type Best = { design: Design; fitness: number };
/** Calls one tool and records it as the episode's next step. */
type StepCall = (thought: string, tool: string, args: Record<string, unknown>) => Promise<ToolResult>;

const NO_ENDING: Ending = { kind: "budget", success: false };

/** Calls tools on the session, recording each call as a trajectory step (and telling `onStep`). */
const stepRecorder = (o: DesignerOptions, steps: TrajectoryStep[]): StepCall => {
  const { now } = o;
  return async (thought, tool, args) => {
    const t0 = now();
    const out = await callRewardTool(REWARD_TOOLS, o.session, tool, args, o.onToolProgress);
    const step = {
      turn: steps.length + 1,
      thought,
      tool,
      args,
      observation: out.observation,
      ok: out.ok,
      ms: now() - t0,
      ...(out.spent ? { spent: out.spent } : {}),
    };
    steps.push(step);
    o.onStep?.(step);
    return out;
  };
};

/** The designs to train next: the bank's start designs by weight (else the base terms), then mutations, never near an avoided one. */
class Candidates {
  private readonly avoid: Design[];
  private readonly queue: Candidate[];
  private readonly tried = new Set<string>();

  constructor(
    private readonly task: string,
    hints: readonly DesignHint[],
    private readonly rng: Rng,
  ) {
    this.avoid = hints.filter((h) => h.kind === "avoid").map((h) => h.design);
    this.queue = hints
      .filter((h) => h.kind === "start")
      .sort((a, b) => b.weight - a.weight)
      .map((h) => ({ design: h.design, why: `the bank's design (weight ${h.weight.toFixed(2)})` }));
    if (this.queue.length === 0) this.queue.push({ design: baseDesign(task), why: "the library's base terms" });
  }

  next(best: Best | undefined): Candidate {
    const { task, rng } = this;
    for (let attempt = 0; attempt < 20; attempt++) {
      const c = this.queue.shift() ?? (best ? mutate(task, best.design, rng) : mutate(task, baseDesign(task), rng));
      if (!this.tried.has(key(c.design)) && !this.avoid.some((a) => near(a, c.design))) return c;
    }
    return mutate(task, best?.design ?? baseDesign(task), rng);
  }

  markTried(design: Design): void {
    this.tried.add(key(design));
  }
}

/** Commits a design with finish; the episode's ending when finish ended it. */
const commitDesign = async (call: StepCall, task: string, design: Design, solvedAlready: boolean): Promise<Ending> => {
  const why = solvedAlready ? "a quick training already reached the solved F, so commit it" : "last turn, so commit the best design so far";
  const out = await call(
    `${why}: ${describe(design)}.`.replace(/^./, (c) => c.toUpperCase()),
    "finish",
    { code: composeReward(task, design) },
  );
  const r = out.result as { success?: boolean; fitness?: number } | undefined;
  if (out.ok && out.ends) return { kind: "finish", success: r?.success === true, design, ...(r?.fitness === undefined ? {} : { score: r.fitness }) };
  return NO_ENDING;
};

/**
 * The designer's turns: describe the task, check the first candidate, train candidates while turns and
 * trainings last, then commit the best. `left` counts the turns still free.
 */
const designEpisode = async (o: DesignerOptions, call: StepCall, left: () => number): Promise<Ending> => {
  const { session: s } = o;
  const task = s.task.id;
  const candidates = new Candidates(task, o.hints ?? [], o.rng);
  let best: Best | undefined;
  // Trainings this episode may still send (its share of a rounds run's budget); finish needs the last one. With
  // a share the designer spends all of it (the turns for describe_task and check_reward come after that), so a
  // budgeted run trains exactly its budget; without one it commits as soon as a quick training solves the task.
  const turnsNeeded = () => (s.maxTrainings === undefined ? 1 : trainingsLeft(s));
  if (left() > Math.max(1, turnsNeeded())) await call(`Read ${task}: its fields, fitness and budgets.`, "describe_task", {});
  let first = true;
  while (left() > 0 && trainingsLeft(s) > 0) {
    const solvedAlready = s.maxTrainings === undefined && best !== undefined && best.fitness >= s.task.fitness.solved;
    if (left() === 1 || trainingsLeft(s) === 1 || solvedAlready) return commitDesign(call, task, best?.design ?? candidates.next(best).design, solvedAlready);
    const c = candidates.next(best);
    candidates.markTried(c.design);
    const code = composeReward(task, c.design);
    if (first && left() > Math.max(2, turnsNeeded())) {
      first = false;
      const out = await call(`Check ${c.why} on sampled transitions before training: ${describe(c.design)}.`, "check_reward", { code });
      if (!out.ok) continue;
    }
    const out = await call(`Train ${c.why}: ${describe(c.design)}.`, "train_policy", { code });
    const r = out.result as { fitness?: number } | undefined;
    if (out.ends) return { kind: "success", success: true, design: c.design, ...(r?.fitness === undefined ? {} : { score: r.fitness }) };
    if (out.ok && typeof r?.fitness === "number" && (!best || r.fitness > best.fitness)) best = { design: c.design, fitness: r.fitness };
  }
  return NO_ENDING;
};

/**
 * The heuristic reward designer (docs/spec/reward-search.md §9, no LLM): read the task, check the first design on sampled
 * transitions, then train candidates at the quick budget — the bank's designs first, else the library's base
 * terms, then mutations of the best so far — and commit the best with finish on the last turn or with the episode's last training
 * (without a share of a run's budget: as soon as a quick training already reaches the solved F). Deterministic for a session, rng seed and hints.
 */
export const runRewardDesigner = async (o: DesignerOptions): Promise<Trajectory> => {
  const { session: s, maxTurns, now } = o;
  const task = s.task.id;
  const start = now();
  const steps: TrajectoryStep[] = [];
  const ending = await designEpisode(o, stepRecorder(o, steps), () => maxTurns - steps.length);
  const success = ending.success;
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    level: task,
    seed: s.instance.seed,
    agent: HEURISTIC_AGENT,
    model: HEURISTIC_MODEL,
    success,
    turns: countedTurns(success, steps.length, maxTurns),
    maxTurns,
    action: ending.design ? { code: composeReward(task, ending.design), design: ending.design } : null,
    ...(ending.score === undefined ? {} : { score: ending.score }),
    steps,
    usage: NO_USAGE,
    wallMs: now() - start,
    stopReason: ending.kind,
  };
};
