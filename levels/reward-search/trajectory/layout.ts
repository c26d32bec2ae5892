import type { TrajectoryHeader, TrajectoryRecord } from "./record.ts";

/**
 * The shape of a record's numbers (docs/spec/trajectory.md): each field's width from the header's sizes, the
 * order fields are stored in, and the bound on a record's size that the recorder, the writer and the reader
 * all keep.
 */

type Sizes = Pick<TrajectoryHeader, "obsDim" | "actionDim" | "nq" | "nv" | "nbody" | "terms">;

/** Per-step fields, in file order. */
export const COLUMN_FIELDS = ["obs", "action", "terms", "qpos", "qvel", "xpos", "xquat", "cvel", "cfrcExt", "terminated", "truncated"] as const;
type ColumnField = (typeof COLUMN_FIELDS)[number];

/** The fields of the state after reset, in file order (before the per-step fields). */
export const INITIAL_FIELDS = ["obs", "qpos", "qvel", "xpos", "xquat"] as const satisfies ReadonlyArray<keyof TrajectoryRecord["initial"]>;

/** Values per step of each field. */
export const columnWidths = (h: Sizes): Record<ColumnField, number> => ({
  obs: h.obsDim,
  action: h.actionDim,
  terms: h.terms.length,
  qpos: h.nq,
  qvel: h.nv,
  xpos: 3 * h.nbody,
  xquat: 4 * h.nbody,
  cvel: 6 * h.nbody,
  cfrcExt: 6 * h.nbody,
  terminated: 1,
  truncated: 1,
});

/**
 * The most bytes a trajectory may take, in memory or on disk: an 8 s Ant episode (the widest shipped task,
 * 1,000 steps) takes about 3.3 MB, so the bound leaves room for longer episodes while a stranger's file
 * cannot make a reader allocate without limit.
 */
export const MAX_TRAJECTORY_BYTES = 64 * 2 ** 20;

/** Bytes of a record's numbers: the initial rows and `steps` rows, 8 bytes a value (the flags too). */
export const numberBytes = (h: Sizes, steps: number): number => {
  const w = columnWidths(h);
  const perStep = COLUMN_FIELDS.reduce((sum, f) => sum + w[f], 0);
  const initial = INITIAL_FIELDS.reduce((sum, f) => sum + w[f], 0);
  return 8 * (initial + steps * perStep);
};
