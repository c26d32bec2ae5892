import { getTask } from "../tasks/index.ts";
import { libraryTerms } from "./term-library.ts";

/**
 * The heuristic reward designer's library (docs/spec/reward-search.md §9): per task, reward terms a practitioner would reach for
 * (alive bonus, angle / position / velocity penalties, progress toward the goal, action cost), each a JavaScript
 * expression over obs / action / nextObs / info with a default weight and the range the search may use.
 * A design is term → weight; `composeReward` turns it into code in the sandbox's contract.
 */
export interface Term {
  name: string;
  /** A JavaScript expression, evaluated inside `reward(obs, action, nextObs, info)`. */
  expr: string;
  weight: number;
  range: readonly [number, number];
  /** In the first design tried when no bank says otherwise. */
  base: boolean;
}

const t = (name: string, expr: string, weight: number, range: readonly [number, number], base = true): Term => ({ name, expr, weight, range, base });

const cartpole = (target: number): Term[] => [
  t("alive", "(info.fell || info.out_of_bounds) ? 0 : 1", 1, [0.5, 2]),
  t("upright", "-((nextObs.theta / 0.2094) ** 2)", 0.5, [0, 1]),
  t("centre", `-(((nextObs.x - ${target}) / 2.4) ** 2)`, target === 0 ? 0.1 : 1, [0, 2], target !== 0),
  t("calm", "-(nextObs.theta_dot ** 2)", 0.05, [0, 0.2], false),
  t("fail", "(info.fell || info.out_of_bounds) ? -1 : 0", 5, [0, 20], false),
];

const lander: Term[] = [
  t("near", "-info.distance_to_pad", 0.5, [0, 2]),
  t("soft", "-Math.hypot(nextObs.vx, nextObs.vy)", 0.5, [0, 2]),
  t("level", "-Math.abs(nextObs.angle)", 1, [0, 3]),
  t("legs", "nextObs.left_leg_contact + nextObs.right_leg_contact", 0.5, [0, 2], false),
  t("land", "info.landed ? 1 : 0", 50, [0, 200]),
  t("crash", "(info.crashed || info.out_of_bounds) ? -1 : 0", 50, [0, 200]),
  t("fuel", "-(info.main_engine + 0.1 * info.side_engine)", 0.1, [0, 0.5], false),
];

const TERMS: Record<string, readonly Term[]> = {
  cartpole: cartpole(0),
  cartpole_hold_x1: cartpole(1),
  mountain_car_continuous: [
    t("goal", "info.reached_goal ? 1 : 0", 10, [1, 100]),
    t(
      "energy",
      "(0.0025 * Math.sin(3 * nextObs.position) / 3 + 0.5 * nextObs.velocity ** 2) - (0.0025 * Math.sin(3 * obs.position) / 3 + 0.5 * obs.velocity ** 2)",
      200,
      [0, 1000],
    ),
    t("effort", "-(action.force ** 2)", 0.01, [0, 0.1]),
    t("speed", "Math.abs(nextObs.velocity)", 1, [0, 10], false),
    t("height", "info.height", 0.1, [0, 1], false),
  ],
  acrobot: [
    t("step", "info.reached ? 0 : -1", 1, [0.2, 1]),
    t("height", "info.tip_height", 0.2, [0, 1]),
    t("goal", "info.reached ? 1 : 0", 10, [0, 50], false),
    t("swing", "Math.abs(nextObs.theta1_dot) + Math.abs(nextObs.theta2_dot)", 0.02, [0, 0.1], false),
  ],
  lander,
  lander_left_half: [...lander, t("left", "(info.on_pad && nextObs.x < 0) ? 1 : 0", 1, [0, 5])],
  walker: [
    t("forward", "info.forward_velocity", 1, [0.3, 3]),
    t("alive", "info.fell ? 0 : 1", 0.2, [0, 1]),
    t("upright", "-(nextObs.torso_angle ** 2)", 0.5, [0, 2]),
    t("effort", "-(action.back_hip ** 2 + action.back_knee ** 2 + action.front_hip ** 2 + action.front_knee ** 2)", 0.05, [0, 0.2], false),
    t("fall", "info.fell ? -1 : 0", 10, [0, 50], false),
  ],
};

export type Design = Record<string, number>;

/**
 * Tasks whose hand-picked terms were copies of their hand-written reward (pendulum's Gymnasium cost, the MuJoCo
 * tasks' Gymnasium rewards): the designer reads the generic library for them (term-library.ts), as the
 * heuristic proposer does for every task.
 */
const FROM_LIBRARY = new Set([
  "pendulum",
  "hopper",
  "walker2d",
  "half_cheetah",
  "half_cheetah_backward",
  "ant",
  "ant_along_y",
  "humanoid",
  "inverted_pendulum",
  "hopper_front_flip",
]);
const fromLibrary = new Map<string, readonly Term[]>();

export const termsOf = (task: string): readonly Term[] => {
  if (!FROM_LIBRARY.has(task)) return TERMS[task] ?? [];
  let terms = fromLibrary.get(task);
  if (!terms) fromLibrary.set(task, (terms = libraryTerms(getTask(task))));
  return terms;
};

/** The first design from a term list: its base terms at their default weights. */
export const baseOf = (terms: readonly Term[]): Design => Object.fromEntries(terms.filter((x) => x.base).map((x) => [x.name, x.weight]));

/** The first design without a bank: the library's base terms at their default weights. */
export const baseDesign = (task: string): Design => baseOf(termsOf(task));

const fmt = (w: number) => Number(w.toPrecision(4)).toString();

/** Reward code for a design over a term list: one component per term, total = their sum. Unknown term names are ignored. */
export const composeTerms = (label: string, library: readonly Term[], design: Design): string => {
  const terms = library.filter((x) => design[x.name] !== undefined);
  return [
    `// heuristic design for ${label}: ${terms.map((x) => `${x.name} ${fmt(design[x.name]!)}`).join(", ")}`,
    "function reward(obs, action, nextObs, info) {",
    ...terms.map((x) => `  const ${x.name} = ${fmt(design[x.name]!)} * (${x.expr});`),
    `  return { total: ${terms.map((x) => x.name).join(" + ") || "0"}, components: { ${terms.map((x) => x.name).join(", ")} } };`,
    "}",
  ].join("\n");
};

/** Reward code for a design of the task's own terms (the heuristic designer's). */
export const composeReward = (task: string, design: Design): string => composeTerms(task, termsOf(task), design);
