import { renderSkillBlock, retrieve } from "../../agents/retriever.ts";
import type { UserMiddleware } from "../../agents/user-middleware.ts";
import type { ToolProgress } from "../family/task-env.ts";
import type { Trajectory, TrajectoryStep } from "../store/trajectory.ts";
import { ConfigError } from "../errors.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import { EMPTY_BANK, type Bank } from "../store/bank.ts";
import type { LevelFamily, Task } from "../family/family.ts";
import type { RunAgent, RunConfig } from "./run-config.ts";

export interface PlayRequest {
  task: Task;
  agent: RunAgent;
  config: RunConfig;
  /** The bank the episode may draw on (the retriever's top-M / top-N is taken from it); empty for baselines. */
  bank: Bank;
  model?: RoleModel;
  /** The user's langchain middleware, after hexa's, in a model-driven episode (src/app/middleware-plugins.ts). */
  middleware?: UserMiddleware;
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
  onToolProgress?: (p: ToolProgress) => void;
}

/** One played episode: its trajectory and the bank entries it was shown (what `EpisodeBackend.play` hands back). */
export interface EpisodeResult {
  trajectory: Trajectory;
  /** Ids of the bank entries put in front of the agent. */
  retrieved: string[];
}

const idsOf = (b: Bank) => [...b.skills, ...b.mistakes, ...(b.lessons ?? [])].map((e) => e.id);

/** One episode of any agent on any family: the loop's and `hexa episode`'s only way to play. */
export const playEpisode = async (family: LevelFamily, r: PlayRequest): Promise<EpisodeResult> => {
  const progress = { ...(r.onStep ? { onStep: r.onStep } : {}), ...(r.onToolProgress ? { onToolProgress: r.onToolProgress } : {}) };
  // The baselines see no bank (docs/spec/method.md §7); hexa and the heuristic see the retriever's top-M / top-N.
  const shown = r.agent === "heuristic" || r.agent === "hexa" ? retrieve(r.bank, r.config.retriever) : EMPTY_BANK;
  if (r.agent === "heuristic") {
    const heuristics = family.heuristics;
    if (!heuristics) throw new ConfigError(`agent: the ${family.id} family has no heuristic agent; use a model-driven agent (hexa, react, direct, reflexion)`);
    const trajectory = await heuristics.play({ task: r.task, config: r.config, shown, now: r.now, ...progress });
    return { trajectory, retrieved: idsOf(shown) };
  }
  if (!r.model) throw new ConfigError(`agent ${r.agent} needs a model: set llm.actor (model, baseURL), or use agent: heuristic, which needs none`);
  const skillPrefix =
    r.agent === "hexa" ? renderSkillBlock(r.bank, r.config.retriever, { seedsDiffer: family.words.seedsDiffer, verifyBy: family.words.verifyBy }) : "";
  // Imported here: the LLM actor's modules (the model layer) are no part of a heuristic run's start.
  const { runLlmEpisode } = await import("../../agents/run-episode.ts");
  const trajectory = await runLlmEpisode(
    {
      agent: r.agent,
      open: (maxTurns) => family.openEnv(r.task, r.config, maxTurns),
      words: family.words,
      config: r.config.actor,
      ...(skillPrefix ? { skillPrefix } : {}),
      ...(r.middleware?.length ? { extraMiddleware: r.middleware } : {}),
    },
    { model: r.model, costOf: r.costOf, now: r.now, ...progress },
  );
  return { trajectory, retrieved: idsOf(shown) };
};
