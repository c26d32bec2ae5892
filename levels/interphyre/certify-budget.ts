import { DEFAULT_HORIZON_STEPS, HEXA_HARNESS_HORIZON_STEPS } from "./world/constants.ts";

/** How hard the oracle search (levels/interphyre/certify.ts) tries on one seed. */
export interface CertifyBudget {
  /** Random placements tried first. */
  random: number;
  /** Local refinements around the best near misses. */
  refine: number;
  /** A solution must succeed within this many steps (Interphyre certifies at 1000). */
  horizon: number;
  /** No-action and corner checks run this long, so that no seed solves itself within the HExA harness's 2000. */
  trivialHorizon: number;
}

export const DEFAULT_BUDGET: CertifyBudget = {
  random: 100,
  refine: 100,
  horizon: DEFAULT_HORIZON_STEPS,
  trivialHorizon: HEXA_HARNESS_HORIZON_STEPS,
};
