/**
 * What the host allows a trainer (docs/trainer-protocol.md, "What the host checks"): the longest line it reads
 * and how long a job may run when no wall-clock budget is given.
 */

/** The longest line (stdout or stderr) the host reads from a trainer: 16 MiB. A result is a few hundred kB. */
export const MAX_TRAINER_LINE_BYTES = 16 * 1024 * 1024;

/** A job's default deadline is this floor (start-up, evaluation) … */
export const DEADLINE_FLOOR_MS = 10 * 60_000;
/** … plus this much per env step: 20 steps/s, well below the slowest measured training (126 steps/s, MuJoCo on a loaded machine). */
export const DEADLINE_MS_PER_STEP = 50;

/** How a job's deadline is worked out when no wall-clock budget is given. */
export interface DeadlineRule {
  floorMs: number;
  msPerStep: number;
}

export const DEFAULT_DEADLINE: DeadlineRule = { floorMs: DEADLINE_FLOOR_MS, msPerStep: DEADLINE_MS_PER_STEP };

export const deadlineMs = (steps: number, rule: DeadlineRule = DEFAULT_DEADLINE): number => rule.floorMs + steps * rule.msPerStep;

/** setTimeout's longest delay (about 24.8 days); a longer deadline is waited this long. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
