import { runActorEpisode, type EpisodePorts, type EpisodeSpec } from "../actor.ts";
import type { Trajectory } from "../../src/store/trajectory.ts";
import { DIRECT_TURNS } from "../episode-budget.ts";

export const runDirect = (spec: Omit<EpisodeSpec, "agent" | "skillPrefix" | "reflections" | "protocol">, ports: EpisodePorts): Promise<Trajectory> =>
  runActorEpisode(
    {
      ...spec,
      config: { ...spec.config, maxTurns: DIRECT_TURNS },
      agent: "direct",
      protocol: "Protocol for this run: look at the scene with one information tool, then commit your answer with finish on the second turn.",
    },
    ports,
  );
