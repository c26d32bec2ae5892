import type { TrajectoryStep } from "../store/trajectory.ts";

/** One step as the evolver reads it (docs/spec/method.md §4): the call, and the lines of its observation that say what came of it. */
export interface StepEvidence {
  /** The call in the family's terms, e.g. "simulate_action x=0.12, y=3.40, radius=0.50". */
  action: string;
  /** The observation's outcome lines: what happened first, the goal's objects (or figures) next; never the whole observation when it is long. */
  outcome: string[];
}

/**
 * A family's domain words for the generic agents' prompts (docs/ARCHITECTURE.md §3): the evolver, Reflexion and the transfer
 * synthesiser speak of the task in these terms, so none of them names a red ball or a reward function itself.
 */
export interface FamilyWords {
  /** What one task is, for sentences: "physics puzzle", "reward-design task". */
  task: string;
  /** What the agent does to solve it: "placing a red ball", "writing a reward function". */
  solvesBy: string;
  /** Which concrete numbers a skill's example may carry: "coordinates, radii", "weights, thresholds". */
  numbers: string;
  /** What the evolver's entries must state instead of platitudes, with examples of it. */
  mechanisms: string;
  /** What a partial skill inside a failed run looks like, as examples. */
  partialExamples: string;
  /** The kind of bridging primitive a transferred entry states, and an example of one. */
  primitive: { kind: string; example: string };
  /** What an entry may name of a level: its objects, or its observation fields and actions. */
  names: string;
  /** The kind of reason a reflection names for a failure: "physical reason". */
  cause: string;
  /** How the actor checks an idea before it relies on it: "by simulation". */
  verifyBy: string;
  /** What changes from one seed of a level to the next (so an example's numbers are a start, not an answer). */
  seedsDiffer: string;
  /** How to read a trajectory's final action, e.g. "x=0.120, y=3.400, radius=0.500" (the evolver sees it). */
  renderAction: (action: unknown) => string;
  /** One line on the scene of `level` at `seed` that the outcomes depend on (the evolver shows it above each trajectory). */
  sceneOf: (level: string, seed: number) => string;
  /** A step of a trajectory of `level` as evidence for the evolver: what only the family can tell is an outcome line. */
  evidenceOf: (level: string, step: TrajectoryStep) => StepEvidence;
}
