/** k of n as a percentage for the commands' tables; "–" when n is 0. */
export const percent = (k: number, n: number, digits = 0): string => (n === 0 ? "–" : `${((100 * k) / n).toFixed(digits)}%`);
