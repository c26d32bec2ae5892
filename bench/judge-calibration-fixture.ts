/**
 * The scripted judge model of the calibration bench (docs/benchmarks/judge-calibration.md): when no `--judge-model`
 * is given, the code judge is authored by this script instead of a model. Its answers are written here by hand,
 * one decomposition and one leaf code per task, as a model could answer from the task's description; the review
 * rounds accept at once. The same model settles a disagreement with the vision judge (judge-calibration-synthesiser.ts). The numbers it makes measure the harness (authoring, sandbox, tree scoring, synthesis,
 * statistics) and these hand-written judges, never a model: the page labels them so.
 */
import type { AssistantTurn, OutputRequest } from "../src/llm/chat-model.ts";
import type { RoleModel } from "../src/llm/ask.ts";
import { answeredBy } from "../src/llm/openai-chat.ts";
import { scriptedSynthesiserTurn } from "./judge-calibration-synthesiser.ts";

export const SCRIPTED_MODEL = "scripted-judge (bench/judge-calibration-fixture.ts)";

interface ScriptedJudge {
  criteria: unknown;
  code: string;
}

/** The root slide joint's qpos address, read from the header (the judge's code cannot assume it). */
const ROOTX = `const rootx = traj.header.joints.find((j) => j.name === "rootx");
  if (!rootx) throw new Error("no rootx joint");
  const x0 = traj.initial.qpos[rootx.qposAdr];
  const x1 = traj.steps > 0 ? traj.row("qpos", traj.steps - 1)[rootx.qposAdr] : x0;`;

const HOPPER: ScriptedJudge = {
  criteria: {
    order: "independent",
    children: [
      {
        id: "1",
        name: "forward distance",
        metric: "torso x gained over the episode (qpos of rootx, last step minus reset)",
        threshold: ">= 8 m (1 m/s over the 8 s time limit)",
        partial: "distance / 8 m, 0 when backwards",
        weight: 0.7,
      },
      {
        id: "2",
        name: "does not fall",
        metric: "steps before the episode terminated, out of the 1000-step time limit",
        threshold: "all 1000 steps without termination",
        partial: "steps / 1000",
        weight: 0.3,
      },
    ],
    definitions: "rootx = the slide joint along +x; termination = the env's terminated flag (healthy became 0)",
  },
  code: `function judge(traj) {
  ${ROOTX}
  const d = x1 - x0;
  const fell = traj.steps > 0 && traj.terminated[traj.steps - 1] === 1;
  return [
    { id: "1", value: d, score: d >= 8 ? 1 : Math.max(0, d / 8), passed: d >= 8, note: "torso x gained " + d.toFixed(2) + " m" },
    { id: "2", value: traj.steps, score: fell ? traj.steps / 1000 : 1, passed: !fell, note: fell ? "fell after " + traj.steps + " steps" : "did not fall" },
  ];
}`,
};

const HALF_CHEETAH: ScriptedJudge = {
  criteria: {
    order: "independent",
    children: [
      {
        id: "1",
        name: "forward speed",
        metric: "mean forward velocity: torso x gained over the episode / its duration",
        threshold: ">= 1.5 m/s",
        partial: "speed / 1.5, 0 when backwards",
        weight: 0.8,
      },
      {
        id: "2",
        name: "stays right side up",
        metric: "fraction of steps with |rooty| < pi/2 (torso not flipped)",
        threshold: ">= 0.95",
        partial: "the fraction",
        weight: 0.2,
      },
    ],
    definitions: "rootx, rooty = the root's slide joint along +x and hinge about y (pitch)",
  },
  code: `function judge(traj) {
  ${ROOTX}
  const rooty = traj.header.joints.find((j) => j.name === "rooty");
  if (!rooty) throw new Error("no rooty joint");
  const seconds = Math.max(traj.steps, 1) * traj.dt;
  const v = (x1 - x0) / seconds;
  let upright = 0;
  for (let t = 0; t < traj.steps; t++) if (Math.abs(traj.row("qpos", t)[rooty.qposAdr]) < Math.PI / 2) upright++;
  const frac = traj.steps > 0 ? upright / traj.steps : 0;
  return [
    { id: "1", value: v, score: v >= 1.5 ? 1 : Math.max(0, v / 1.5), passed: v >= 1.5, note: "mean forward speed " + v.toFixed(3) + " m/s" },
    { id: "2", value: frac, score: frac >= 0.95 ? 1 : frac, passed: frac >= 0.95, note: "upright on " + upright + " of " + traj.steps + " steps" },
  ];
}`,
};

const INVERTED_PENDULUM: ScriptedJudge = {
  criteria: {
    order: "independent",
    children: [
      {
        id: "1",
        name: "pole balanced for the whole episode",
        metric: "steps with |hinge angle| <= 0.2 rad, out of the 1000-step time limit",
        threshold: ">= 950 steps",
        partial: "steps / 950",
      },
    ],
    definitions: "hinge = the pole's hinge joint; its qpos is the pole angle (0 upright)",
  },
  code: `function judge(traj) {
  const hinge = traj.header.joints.find((j) => j.name === "hinge");
  if (!hinge) throw new Error("no hinge joint");
  let up = 0;
  for (let t = 0; t < traj.steps; t++) if (Math.abs(traj.row("qpos", t)[hinge.qposAdr]) <= 0.2) up++;
  return [{ id: "1", value: up, score: up >= 950 ? 1 : up / 950, passed: up >= 950, note: up + " steps balanced" }];
}`,
};

/** The scripted answers, per task the bench judges. */
export const SCRIPTED_JUDGES: Readonly<Record<string, ScriptedJudge>> = {
  hopper: HOPPER,
  half_cheetah: HALF_CHEETAH,
  inverted_pendulum: INVERTED_PENDULUM,
};

/** The answer to one authoring step (author-answers.ts names each step's schema). */
const answerFor = (j: ScriptedJudge, output: OutputRequest | undefined): unknown => {
  switch (output?.name) {
    case "judge_decomposition":
      return { criteria: j.criteria };
    case "judge_decomposition_review":
      return { change: false, findings: "scripted: the decomposition is kept as written" };
    case "judge_code":
      return { code: j.code };
    case "judge_loophole_review":
      return { loophole: false, findings: "scripted: no review was made" };
    default:
      throw new Error(`bench/judge-calibration-fixture.ts: no scripted answer for the step ${String(output?.name)}`);
  }
};

/** The scripted judge model for `task`: the same model object a role uses, answered by the script above. */
export const scriptedJudgeModel = (task: string): RoleModel => {
  const judge = SCRIPTED_JUDGES[task];
  if (!judge) throw new Error(`bench/judge-calibration-fixture.ts: no scripted judge for ${task} (have ${Object.keys(SCRIPTED_JUDGES).join(", ")})`);
  return answeredBy(
    SCRIPTED_MODEL,
    async (messages, tools, output): Promise<AssistantTurn> => ({
      ...(tools.length > 0 || output?.name === "synthesis_verdict"
        ? scriptedSynthesiserTurn(messages, tools)
        : { text: JSON.stringify(answerFor(judge, output)), toolCalls: [] }),
      usage: { input: 0, output: 0, cached: 0 },
      model: SCRIPTED_MODEL,
      latencyMs: 0,
      fromCache: false,
    }),
  );
};
