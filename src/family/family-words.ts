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
  /** How to read a trajectory's final action, e.g. "x=0.120, y=3.400, radius=0.500" (the evolver sees it). */
  renderAction: (action: unknown) => string;
}
