import { distil, evolve, replace, type Labelled } from "../../agents/evolver.ts";
import { event } from "../../agents/evolver-labels.ts";
import { InvariantError } from "../errors.ts";
import type { RoleModel } from "../llm/ask.ts";
import { EMPTY_BANK, type Bank, type BankEvent } from "../store/bank.ts";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "./run-config.ts";

export interface UpdateRequest {
  config: RunConfig;
  family: LevelFamily;
  level: string;
  /** 0: the initial distillation from offline trajectories; r ≥ 1: after round r. */
  round: number;
  bank: Bank;
  labelled: readonly Labelled[];
  evolverModel?: RoleModel;
}

const isEmpty = (b: Bank) => b.skills.length === 0 && b.mistakes.length === 0;

/**
 * Whether round `round` updates the bank (docs/spec/method.md §5): Offline / Off2On distil at round 0; Online starts
 * empty, so its first update is a distillation of round 1. A static bank is frozen after its first distillation
 * (for Online × Static: after round 1).
 */
export const updatesAt = (c: RunConfig, round: number): boolean => {
  if (c.agent !== "hexa" && c.agent !== "heuristic") return false;
  if (round === 0) return c.init !== "online";
  return c.update !== "static" || (c.init === "online" && round === 1);
};

const heuristicUpdate = (u: UpdateRequest): BankEvent[] => {
  const evolveHeuristic = u.family.heuristics?.evolve;
  if (!evolveHeuristic) throw new InvariantError(`family ${u.family.id} has no heuristic evolver; the config check should have refused evolver: heuristic`);
  const caps = { skills: u.config.bank.maxSkills, mistakes: u.config.bank.maxMistakes };
  if (u.config.update !== "replacement" || isEmpty(u.bank))
    return evolveHeuristic({ round: u.round, level: u.level, bank: u.bank, labelled: u.labelled, caps });
  const prunes = [...u.bank.skills, ...u.bank.mistakes].map((e) =>
    event({ schemaVersion: 1, type: "prune", round: u.round, id: e.id, why: "replaced", reason: "iterative replacement: re-distilled from the last round" }),
  );
  return [...prunes, ...evolveHeuristic({ round: u.round, level: u.level, bank: EMPTY_BANK, labelled: u.labelled, caps })];
};

/** One bank update's events: distil into an empty bank, else evolve or replace; caps are enforced by the evolvers. */
export const updateBank = async (u: UpdateRequest): Promise<BankEvent[]> => {
  if (!updatesAt(u.config, u.round) || u.labelled.length === 0) return [];
  if (u.config.evolver === "heuristic") return heuristicUpdate(u);
  if (!u.evolverModel) throw new InvariantError("evolver: llm without an evolver model; the CLI should have built one");
  const common = {
    model: u.evolverModel,
    words: u.family.words,
    round: u.round,
    level: u.level,
    description: u.family.describe(u.level),
    labelled: u.labelled,
    mode: u.config.bank.rewardLabels ? ("labelled" as const) : ("no_reward" as const),
    caps: { skills: u.config.bank.maxSkills, mistakes: u.config.bank.maxMistakes },
  };
  if (isEmpty(u.bank)) return distil(common);
  return u.config.update === "replacement" ? replace({ ...common, bank: u.bank }) : evolve({ ...common, bank: u.bank });
};
