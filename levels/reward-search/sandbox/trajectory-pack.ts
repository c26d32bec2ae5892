/**
 * How a recorded episode crosses into a judge's sandbox (judge-sandbox.ts): every column, checked against the
 * header's sizes, copied once into one ArrayBuffer of float64s, and a small JSON text of the header and each
 * column's offset, length and width. Inside, judge-driver.js makes a Float64Array view per column over that
 * buffer: no per-step objects, no JSON of the numbers.
 */
import { ConfigError } from "../../../src/errors.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";

/** Per step: the column's name in the record, and its width from the header. */
const STEP_COLUMNS = ["obs", "action", "terms", "qpos", "qvel", "xpos", "xquat", "cvel", "cfrcExt", "terminated", "truncated"] as const;
const INITIAL_COLUMNS = ["obs", "qpos", "qvel", "xpos", "xquat"] as const;

type Header = TrajectoryRecord["header"];

const widthOf = (h: Header, column: (typeof STEP_COLUMNS)[number]): number => {
  switch (column) {
    case "obs":
      return h.obsDim;
    case "action":
      return h.actionDim;
    case "terms":
      return h.terms.length;
    case "qpos":
      return h.nq;
    case "qvel":
      return h.nv;
    case "xpos":
      return h.nbody * 3;
    case "xquat":
      return h.nbody * 4;
    case "cvel":
    case "cfrcExt":
      return h.nbody * 6;
    case "terminated":
    case "truncated":
      return 1;
  }
};

/** Where a column lies in the packed buffer, in float64s. */
interface ColumnSlot {
  offset: number;
  length: number;
  width: number;
}

export interface PackedTrajectory {
  data: Float64Array;
  /** `{ header, steps, columns: { obs: slot, … }, initial: { qpos: slot, … } }` as JSON. */
  layoutJson: string;
  bytes: number;
}

const MAX_HEADER_CHARS = 256 * 1024;

/** Pack a record, refusing one whose columns disagree with its header or that is over `maxBytes`. */
export function packTrajectory(record: TrajectoryRecord, maxBytes: number): PackedTrajectory {
  const { header: h, steps } = record;
  if (!Number.isInteger(steps) || steps < 0) throw new ConfigError(`trajectory.steps: must be an integer ≥ 0 (got ${steps})`);
  const parts: { where: "columns" | "initial"; name: string; values: ArrayLike<number>; width: number; rows: number }[] = [];
  for (const name of STEP_COLUMNS) parts.push({ where: "columns", name, values: record.columns[name], width: widthOf(h, name), rows: steps });
  for (const name of INITIAL_COLUMNS) parts.push({ where: "initial", name, values: record.initial[name], width: widthOf(h, name), rows: 1 });
  const total = parts.reduce((n, p) => n + p.rows * p.width, 0);
  if (total * 8 > maxBytes) {
    throw new ConfigError(
      `trajectory: ${steps} steps take ${total * 8} bytes, more than the judge's maxTrajectoryBytes ${maxBytes}; judge a shorter episode or raise the limit`,
    );
  }
  const data = new Float64Array(total);
  const slots = { columns: {} as Record<string, ColumnSlot>, initial: {} as Record<string, ColumnSlot> };
  let offset = 0;
  for (const p of parts) {
    const want = p.rows * p.width;
    if (p.values?.length !== want) {
      throw new ConfigError(`trajectory.${p.where}.${p.name}: ${p.values?.length ?? "no"} values; expected ${p.rows} × ${p.width} = ${want} from the header`);
    }
    data.set(p.values, offset);
    slots[p.where][p.name] = { offset, length: want, width: p.width };
    offset += want;
  }
  const layoutJson = JSON.stringify({ header: h, steps, ...slots });
  if (layoutJson.length > MAX_HEADER_CHARS) throw new ConfigError(`trajectory.header: ${layoutJson.length} characters of JSON, more than ${MAX_HEADER_CHARS}`);
  return { data, layoutJson, bytes: data.byteLength };
}
