import { interphyreFamily } from "../../families/interphyre/family.ts";
import { rewardSearchFamily } from "../../families/reward-search/family.ts";
import type { RewardSearchConfig } from "../../families/reward-search/config.ts";
import { createTrainerPool, type TrainerPool } from "../../families/reward-search/trainer/pool.ts";
import { ConfigError, InvariantError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import { readCertified } from "../../families/interphyre/certified-seeds.ts";

/** Trainer processes on this machine, as a reward-search config asks for them. */
export const localTrainerPool = (c: RewardSearchConfig): TrainerPool =>
  createTrainerPool({
    ...(c.trainer.command ? { command: c.trainer.command } : {}),
    ...(c.trainer.processes ? { size: c.trainer.processes } : {}),
    startTimeoutMs: c.trainer.startTimeoutMs,
    jobsDir: c.jobsDir,
    cacheDir: c.cacheDir,
    budget: { ...(c.trainer.wallMs ? { wallMs: c.trainer.wallMs } : {}), ...(c.trainer.maxSteps ? { maxSteps: c.trainer.maxSteps } : {}) },
  });

let trainerFor: (c: RewardSearchConfig) => TrainerPool = localTrainerPool;

/** Routes the trainings of every family built from now on (a worker sends them to its Redis trainings queue). */
export const routeTrainings = (make: (c: RewardSearchConfig) => TrainerPool): void => {
  if (built.size) throw new InvariantError("routeTrainings: a family was built already; route trainings before the first getFamily");
  trainerFor = make;
};

/** Every level family hexa ships, built with the store's readers: the CLI's only way to a family (docs/spec/style.md §1: adapters are built here). */
const builders: Record<string, () => LevelFamily> = {
  interphyre: () => interphyreFamily((level) => readCertified(level)?.seeds.map((s) => s.seed) ?? []),
  "reward-search": () => rewardSearchFamily((c) => trainerFor(c)),
};

const built = new Map<string, LevelFamily>();

export const familyIds = (): string[] => Object.keys(builders);

export const getFamily = (id: string): LevelFamily => {
  const make = builders[id];
  if (!make) throw new ConfigError(`unknown family '${id}'; known: ${familyIds().join(", ")}`);
  if (!built.has(id)) built.set(id, make());
  return built.get(id)!;
};

/** All families (for composing RunConfig with every family's slice). */
export const allFamilies = (): LevelFamily[] => familyIds().map(getFamily);

/** Stops what the families started (trainer processes); every command that played calls it before it returns. */
export const closeFamilies = async (): Promise<void> => {
  await Promise.all([...built.values()].map((f) => f.close?.()));
};
