import { runActorEpisode } from "../../../agents/actor.ts";
import { evolveHeuristic, hintsFromBank } from "../../../agents/heuristic-evolver.ts";
import { runHeuristicEpisode } from "../../../agents/heuristic.ts";
import { renderSkillBlock, retrieve } from "../../../agents/retriever.ts";
import { runEpisode } from "../../../agents/run-episode.ts";
import { getLevel } from "../../../levels/interphyre/index.ts";
import { createInstance } from "../../../levels/interphyre/instance.ts";
import { ConfigError } from "../../errors.ts";
import { createRng } from "../../sim/rng.ts";
import { toolSet } from "../../../tools/index.ts";
import type { LevelFamily, PlayRequest, Played } from "../family.ts";

const idsOf = (b: { skills: { id: string }[]; mistakes: { id: string }[] }) => [...b.skills, ...b.mistakes].map((e) => e.id);

const play = async (r: PlayRequest): Promise<Played> => {
  const instance = createInstance(r.task.level, r.task.seed);
  const shown = retrieve(r.bank, r.config.retriever);
  switch (r.agent) {
    case "heuristic": {
      const trajectory = runHeuristicEpisode({
        instance,
        maxTurns: r.config.actor.maxTurns,
        horizon: r.config.actor.horizon,
        // Seed 0 gives the heuristic's benchmark stream; another run seed shifts every episode's draws.
        rng: createRng(instance.seed + r.config.seed * 1_000_003),
        now: r.now,
        hints: hintsFromBank(shown, instance),
      });
      trajectory.steps.forEach((s) => r.onStep?.(s));
      return { trajectory, retrieved: idsOf(shown) };
    }
    case "hexa": {
      if (!r.model) throw new ConfigError("agent hexa needs an actor model: set llm.actor (model, baseURL) or use agent: heuristic");
      const skillPrefix = renderSkillBlock(r.bank, r.config.retriever);
      const trajectory = await runActorEpisode(
        { instance, tools: toolSet(r.config.actor.toolSet), config: r.config.actor, agent: "hexa", ...(skillPrefix ? { skillPrefix } : {}) },
        { model: r.model, costOf: r.costOf, now: r.now, ...(r.onStep ? { onStep: r.onStep } : {}) },
      );
      return { trajectory, retrieved: idsOf(shown) };
    }
    default: {
      const trajectory = await runEpisode({
        agent: r.agent,
        instance,
        config: r.config.actor,
        ...(r.model ? { model: r.model } : {}),
        costOf: r.costOf,
        now: r.now,
        ...(r.onStep ? { onStep: r.onStep } : {}),
      });
      return { trajectory, retrieved: [] };
    }
  }
};

/** Interphyre as a level family; `certifiedSeeds` reads a level's certified list (the CLI passes the store's reader). */
export const interphyreFamily = (certifiedSeeds: (level: string) => number[]): LevelFamily => ({
  id: "interphyre",
  checkLevel: (level) => void getLevel(level),
  seedsOf: certifiedSeeds,
  describe: (level) => getLevel(level).description,
  play,
  evolveHeuristic: (o) => evolveHeuristic({ ...o, instanceOf: (t) => createInstance(t.level, t.seed) }),
});
