/** k of n as a percentage for the commands' tables; "–" when n is 0. */
export const percent = (k: number, n: number, digits = 0): string => (n === 0 ? "–" : `${((100 * k) / n).toFixed(digits)}%`);

/** A number with `digits` decimals for tables and reports; "–" for anything that is not a finite number. */
export const fixed = (v: unknown, digits = 2): string => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(digits) : "–");
