import { runActorEpisode, type EpisodePorts, type EpisodeSpec } from "../actor.ts";
import type { Trajectory } from "../../src/store/trajectory.ts";

/** ReAct (docs/spec/method.md §7): the plain tool loop, no memory; every seed is independent. */
export const runReact = (spec: Omit<EpisodeSpec, "agent" | "skillPrefix" | "reflections">, ports: EpisodePorts): Promise<Trajectory> =>
  runActorEpisode({ ...spec, agent: "react" }, ports);
