import { runActorEpisode, type EpisodePorts, type EpisodeSpec } from "../actor.ts";
import type { Trajectory } from "../../src/store/trajectory.ts";

/** Direct (docs/spec/method.md §7): peek once, then commit — two turns at most. */
export const DIRECT_TURNS = 2;

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
