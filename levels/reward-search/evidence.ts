import type { StepEvidence } from "../../src/family/family-words.ts";
import type { TrajectoryStep } from "../../src/store/trajectory.ts";
import { getTask } from "./tasks/index.ts";

/**
 * What the evolver reads of a reward-search trajectory (docs/spec/method.md §4): the task's seed in one line, each
 * call's reward code, and of each observation the reward reflection's figures — F, its curve, episode length,
 * every component's first and last sample, the notes and the hacking alarm — without the timing lines.
 */

/** Characters of a step's reward code shown (head and tail); the committed code is shown whole by renderAction. */
const CODE_CHARS = 900;
const LINE_CHARS = 240;
const MAX_LINES = 16;
/** A series (F over training, a component's samples) longer than this shows its first two and last two samples. */
const SERIES = 4;

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

const cutMiddle = (s: string, max: number) => {
  if (s.length <= max) return s;
  const head = Math.ceil(max * 0.7);
  const tail = max - head;
  return `${s.slice(0, head)}\n… [${s.length - max} characters cut] …\n${s.slice(-tail)}`;
};

export const rewardSearchScene = (level: string, seed: number): string => {
  const task = getTask(level);
  const params = Object.entries(task.generate(seed).params)
    .map(([k, v]) => `${k} ${Number(v.toPrecision(4))}`)
    .join(", ");
  return `${level} seed ${seed} (${params || "default parameters"}): F = ${task.fitness.describe}; solved at F ≥ ${task.fitness.solved}`;
};

/** "a → b → c → d → e" or "a; b; c; d; e": the first two and last two samples, so a trend stays readable. */
const shortSeries = (line: string): string => {
  for (const sep of [" → ", "; "]) {
    const colon = line.indexOf(": ");
    if (colon < 0) continue;
    const items = line.slice(colon + 2).split(sep);
    if (items.length > SERIES) return `${line.slice(0, colon + 2)}${[...items.slice(0, 2), `… (${items.length - 4} more)`, ...items.slice(-2)].join(sep)}`;
  }
  return line;
};

/** Lines that are no outcome: the checkpoint (not the score), the timing, the components' header. */
const NOT_OUTCOME = /^(Best checkpoint|Reward components over training|[\d,]+ env steps in )/;

const codeOf = (args: unknown): string | undefined => {
  const code = (args as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code.trim() : undefined;
};

export const rewardSearchEvidence = (_level: string, step: TrajectoryStep): StepEvidence => {
  const code = codeOf(step.args);
  const steps = (step.args as { steps?: unknown } | null)?.steps;
  const action =
    step.tool === "(none)"
      ? "(no tool call)"
      : `${step.tool}${typeof steps === "number" ? ` steps=${steps}` : ""}${code === undefined ? "" : ` with reward code:\n${cutMiddle(code, CODE_CHARS)}`}`;
  const lines = step.observation.split("\n").filter((l) => l.trim() !== "");
  if (step.tool === "describe_task") return { action, outcome: lines.slice(0, 1).map((l) => cut(l, LINE_CHARS)) };
  const kept = lines.filter((l) => !NOT_OUTCOME.test(l.trim())).map((l) => cut(shortSeries(l.trim()), LINE_CHARS));
  return { action, outcome: kept.length > MAX_LINES ? [...kept.slice(0, MAX_LINES), `… ${kept.length - MAX_LINES} more lines`] : kept };
};
