import type { FamilyWords } from "../../src/family/family-words.ts";
import { familyConfig, type LevelFamily } from "../../src/family/family.ts";
import { PlacementAction, placementOf } from "./action.ts";
import { InterphyreConfig, upgradeInterphyre } from "./config.ts";
import { evolveHeuristic, hintsFromBank } from "./heuristic/evolver.ts";
import { InterphyreBankPayload } from "./heuristic/region.ts";
import { synthesiseRegions } from "./heuristic/synthesiser.ts";
import { getLevel, listLevels } from "./levels/index.ts";
import { createInstance } from "./instance.ts";
import { closePhysicsHost, runHeuristicInWorker } from "./physics-host.ts";
import { interphyreDrawer } from "./pictures/inspect-draw.ts";
import { interphyreEvidence, interphyreScene } from "./evidence.ts";
import { placementProblem } from "./trajectory-check.ts";

const renderAction = (a: unknown): string => {
  const p = placementOf(a);
  return p ? `x=${p.x.toFixed(3)}, y=${p.y.toFixed(3)}, radius=${p.radius.toFixed(3)}` : JSON.stringify(a);
};

export const INTERPHYRE_WORDS: FamilyWords = {
  task: "physics puzzle",
  solvesBy: "placing a red ball",
  numbers: "coordinates, radii",
  mechanisms: "concrete physical mechanisms (what hits what, which way it moves, why it reaches the goal)",
  partialExamples: "a good region abandoned too early, the right mechanism with wrong parameters",
  primitive: { kind: "physical primitive", example: "a falling ball pushes the object it lands on sideways" },
  names: "the objects",
  cause: "physical reason",
  verifyBy: "by simulation",
  seedsDiffer: "object positions and sizes differ from seed to seed",
  renderAction,
  sceneOf: interphyreScene,
  evidenceOf: interphyreEvidence,
};

const slice = { key: "interphyre", schema: InterphyreConfig, upgrade: upgradeInterphyre };

/** Interphyre as a level family; `certifiedSeeds` reads a level's certified list (the CLI passes the store's reader). */
export const interphyreFamily = (certifiedSeeds: (level: string) => number[]): LevelFamily => {
  // The scene of the first certified seed names the level's objects (every seed of a level has the same ones).
  const objectsOf = (level: string) => Object.keys(createInstance(level, certifiedSeeds(level)[0] ?? 0).scene);
  return {
    id: "interphyre",
    title: "Interphyre: 2-D physics puzzles, one red ball per episode",
    listLevels,
    checkLevel: (level) => void getLevel(level),
    seedsOf: certifiedSeeds,
    describe: (level) => getLevel(level).description,
    action: PlacementAction,
    words: INTERPHYRE_WORDS,
    config: slice,
    openEnv: async (task, config, maxTurns) => {
      const c = familyConfig(config, slice);
      // Imported here: the tools are no part of a command that only lists levels.
      const { openInterphyreEnv } = await import("./task-env.ts");
      return openInterphyreEnv({ level: task.level, seed: task.seed, horizon: c.horizon, toolSet: c.toolSet, engine: c.engine, maxTurns });
    },
    heuristics: {
      play: async (r) => {
        // The instance only names the hints' reference objects here; the episode runs in the physics worker (docs/spec/interphyre.md §5.2).
        const instance = createInstance(r.task.level, r.task.seed);
        const c = familyConfig(r.config, slice);
        const trajectory = await runHeuristicInWorker({
          level: instance.level,
          seed: instance.seed,
          maxTurns: r.config.actor.maxTurns,
          horizon: c.horizon,
          engine: c.engine,
          // Seed 0 gives the heuristic's benchmark stream; another run seed shifts every episode's draws.
          rngSeed: instance.seed + r.config.seed * 1_000_003,
          hints: hintsFromBank(r.shown, instance),
        });
        trajectory.steps.forEach((s) => r.onStep?.(s));
        return trajectory;
      },
      evolve: (o) => evolveHeuristic({ ...o, instanceOf: (t) => createInstance(t.level, t.seed) }),
      synthesise: (o) => synthesiseRegions({ ...o, targetObjects: objectsOf(o.target) }),
      payload: InterphyreBankPayload,
    },
    checks: { trajectoryProblem: placementProblem, objectsOf },
    drawer: interphyreDrawer,
    close: closePhysicsHost,
  };
};
