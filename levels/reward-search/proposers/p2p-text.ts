import type { HpSet } from "../../../src/search/p2p-ports.ts";

/** A number as the reviser reads it: three significant digits, "n/a" when there is none. */
export const n = (x: number | null | undefined) => (x === null || x === undefined ? "n/a" : Number(x.toPrecision(3)).toString());
/** Hyper-parameters as the reviser reads them: `name value, …`. */
export const hpText = (hp: HpSet) =>
  Object.entries(hp)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
