import type { ActorConfig } from "./actor-config.ts";
import { runActorEpisode, type EpisodePorts, type EpisodeSpec } from "./actor.ts";
import { runDirect } from "./baselines/direct.ts";
import { runReact } from "./baselines/react.ts";
import { runReflexion } from "./baselines/reflexion.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import type { Trajectory } from "../src/store/trajectory.ts";

/** The model-driven agents: hexa is the actor with the retrieved bank; the others are the baselines (docs/spec/method.md §7). */
const LLM_AGENTS = ["hexa", "react", "direct", "reflexion"] as const;
export type LlmAgent = (typeof LLM_AGENTS)[number];

export interface LlmEpisodeRequest {
  agent: LlmAgent;
  open: EpisodeSpec["open"];
  words: FamilyWords;
  config: ActorConfig;
  /** The retriever's block (agent hexa only). */
  skillPrefix?: string;
  /** The user's langchain middleware, after hexa's, for every agent (agents/actor.ts EpisodeSpec). */
  extraMiddleware?: EpisodeSpec["extraMiddleware"];
}

/** One episode with a model-driven agent: the single place that maps an agent name to its loop. */
export const runLlmEpisode = (r: LlmEpisodeRequest, ports: EpisodePorts): Promise<Trajectory> => {
  const spec = { open: r.open, config: r.config, ...(r.extraMiddleware ? { extraMiddleware: r.extraMiddleware } : {}) };
  switch (r.agent) {
    case "hexa":
      return runActorEpisode({ ...spec, agent: "hexa", ...(r.skillPrefix ? { skillPrefix: r.skillPrefix } : {}) }, ports);
    case "react":
      return runReact(spec, ports);
    case "direct":
      return runDirect(spec, ports);
    case "reflexion":
      return runReflexion(spec, ports, r.words);
  }
};
