import { keyedRegistry } from "../../../src/family/registry.ts";
import type { LevelDef } from "./define-level.ts";
import basket_case from "./basket_case.ts";
import catapult from "./catapult.ts";
import cliffhanger from "./cliffhanger.ts";
import dive_bomb from "./dive_bomb.ts";
import down_to_earth from "./down_to_earth.ts";
import end_of_line from "./end_of_line.ts";
import falling_into_place from "./falling_into_place.ts";
import flagpole_sitta from "./flagpole_sitta.ts";
import just_a_nudge from "./just_a_nudge.ts";
import keyhole from "./keyhole.ts";
import locust_swarm from "./locust_swarm.ts";
import marble_race from "./marble_race.ts";
import mind_the_gap from "./mind_the_gap.ts";
import off_the_rails from "./off_the_rails.ts";
import pass_the_parcel from "./pass_the_parcel.ts";
import pinball_machine from "./pinball_machine.ts";
import seesaw from "./seesaw.ts";
import staircase from "./staircase.ts";
import straight_face from "./straight_face.ts";
import the_cradle from "./the_cradle.ts";
import the_funnel from "./the_funnel.ts";
import tipping_point from "./tipping_point.ts";
import two_body_problem from "./two_body_problem.ts";
import wedge_issue from "./wedge_issue.ts";
import zebra_crossing from "./zebra_crossing.ts";

/** Every Interphyre level, keyed by id. A new level is one file here plus one line below. */
const levels = {
  basket_case,
  catapult,
  cliffhanger,
  dive_bomb,
  down_to_earth,
  end_of_line,
  falling_into_place,
  flagpole_sitta,
  just_a_nudge,
  keyhole,
  locust_swarm,
  marble_race,
  mind_the_gap,
  off_the_rails,
  pass_the_parcel,
  pinball_machine,
  seesaw,
  staircase,
  straight_face,
  the_cradle,
  the_funnel,
  tipping_point,
  two_body_problem,
  wedge_issue,
  zebra_crossing,
} as const satisfies Record<string, LevelDef>;

type LevelId = keyof typeof levels;

const registry = keyedRegistry<LevelDef, LevelId>("level", levels);

export const listLevels = registry.list;

export const getLevel = registry.get;
