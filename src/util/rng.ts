import { mersenne } from "pure-rand/generator/mersenne";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { ConfigError } from "../errors.ts";

/**
 * The seeded random source of level generators and searches: Mersenne Twister from pure-rand, integer
 * arithmetic only, so a seed gives the same numbers on every platform. Method names follow numpy's
 * Generator, which Interphyre's level code calls (docs/spec/interphyre.md §3.1).
 */
export interface Rng {
  /** Uniform in [0, 1). */
  random(): number;
  /** Uniform in [low, high). */
  uniform(low: number, high: number): number;
  /** Integer in [low, high), like numpy's integers(low, high). */
  integers(low: number, high: number): number;
  /** One element, uniformly. */
  choice<T>(items: readonly T[]): T;
  /** Standard normal (Box–Muller). */
  normal(mean?: number, std?: number): number;
}

export const createRng = (seed: number): Rng => {
  if (!Number.isSafeInteger(seed)) throw new ConfigError(`seed must be an integer (got ${seed})`);
  const gen = mersenne(seed);
  const random = () => uniformFloat64(gen);
  return {
    random,
    uniform: (low, high) => low + (high - low) * random(),
    integers: (low, high) => uniformInt(gen, low, high - 1),
    choice: (items) => items[uniformInt(gen, 0, items.length - 1)]!,
    normal: (mean = 0, std = 1) => {
      const u = 1 - random();
      const v = random();
      return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
  };
};
