/**
 * bench/ppo-parity.ts's statistics: the mean of a few seeds' values with its 95 % Student-t interval
 * (mean ± t(0.975, n − 1) · sd / √n, sd with n − 1), and whether a value lies inside an interval.
 */

/** t(0.975, df) for df = 1 … 30; beyond, the normal 1.96 is within 2 %. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069,
  2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export interface MeanInterval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/** Mean and 95 % t-interval; with one value the interval is unbounded (nothing can be told from one seed). */
export const meanInterval95 = (xs: readonly number[]): MeanInterval => {
  const n = xs.length;
  if (n === 0) return { mean: Number.NaN, low: Number.NaN, high: Number.NaN, n };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, low: -Infinity, high: Infinity, n };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const half = (T975[n - 2] ?? 1.96) * (sd / Math.sqrt(n));
  return { mean, low: mean - half, high: mean + half, n };
};

export const within = (x: number, i: MeanInterval): boolean => x >= i.low && x <= i.high;
