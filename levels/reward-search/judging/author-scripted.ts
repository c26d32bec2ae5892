/**
 * Test support for the judge author: a model answered by a script (the same langchain model object a role uses,
 * opening no connection), recording every request, and the hopper trees and code the scripts answer with.
 */
import type { AssistantTurn, Message, OutputRequest } from "../../../src/llm/chat-model.ts";
import { answeredBy, portOf } from "../../../src/llm/openai-chat.ts";

/** One scripted answer: its JSON text (or a function of the request), and optionally reasoning the layer split off. */
export type ScriptedAnswer = string | ((messages: Message[], output: OutputRequest | undefined) => string);

export interface Recorded {
  messages: Message[];
  output: OutputRequest | undefined;
}

/** A judge model that answers `answer(call)` for the call numbered from 0, with `reasoning` beside each answer. */
export const scriptedJudgeModel = (answer: (call: number, output: OutputRequest | undefined) => ScriptedAnswer, reasoning = "") => {
  const requests: Recorded[] = [];
  const model = portOf(
    answeredBy("scripted-judge", async (messages, _tools, output): Promise<AssistantTurn> => {
      requests.push({ messages: structuredClone(messages), output });
      const a = answer(requests.length - 1, output);
      const text = typeof a === "string" ? a : a(messages, output);
      return {
        text,
        toolCalls: [],
        ...(reasoning ? { reasoning } : {}),
        usage: { input: 100, output: 20, cached: 0 },
        model: "scripted-judge",
        latencyMs: 1,
        fromCache: false,
      };
    }),
  );
  return { model, requests };
};

/** Hopper: stay up (must keep), then travel forward 1 m. */
export const HOPPER_TREE = {
  order: "sequential",
  children: [
    { id: "1", name: "stays up", metric: "min torso z over all steps", threshold: "> 0.8 m", partial: "z / 0.8", mustKeep: true },
    { id: "2", name: "moves forward", metric: "torso x travel from reset", threshold: ">= 1 m", partial: "travel / 1 m, 0 when backwards" },
  ],
};

/** The reviewed tree: the same with its definitions written out. */
export const HOPPER_TREE_REVISED = { ...HOPPER_TREE, definitions: "torso z = xpos[3 * torso + 2]; torso x = xpos[3 * torso]" };

const leaves = (travel: string) => `
function judge(traj) {
  const torso = traj.header.bodies.findIndex((b) => b.name === "torso");
  if (torso < 0) throw new Error("no torso body");
  if (traj.steps === 0) return [{ id: "1", value: 0, score: 0, passed: false, note: "no steps" }, { id: "2", value: 0, score: 0, passed: false, note: "no steps" }];
  let minZ = Infinity;
  for (let t = 0; t < traj.steps; t++) minZ = Math.min(minZ, traj.row("xpos", t)[3 * torso + 2]);
  const raw = traj.row("xpos", traj.steps - 1)[3 * torso] - traj.initial.xpos[3 * torso];
  const travel = ${travel};
  return [
    { id: "1", value: minZ, score: minZ > 0.8 ? 1 : Math.max(0, minZ / 0.8), passed: minZ > 0.8, note: "lowest torso z " + minZ.toFixed(3) },
    { id: "2", value: travel, score: travel >= 1 ? 1 : Math.max(0, travel), passed: travel >= 1, note: "travel " + travel.toFixed(4) },
  ];
}`;

/** Forward travel measured without its sign: a hopper going backwards would pass (the loophole). */
export const LOOPHOLE_CODE = leaves("Math.abs(raw)");
/** The corrected code: the signed travel. */
export const CORRECTED_CODE = leaves("raw");
/** Reads a body hopper does not have (walker2d's): fails on a real hopper episode only. */
export const WRONG_BODY_CODE = LOOPHOLE_CODE.replace('b.name === "torso"', 'b.name === "thigh_left"').replace("no torso body", "no thigh_left body");

export const json = (v: unknown) => JSON.stringify(v);
