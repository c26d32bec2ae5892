import { mersenne } from "pure-rand/generator/mersenne";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { ConfigError } from "../errors.ts";

/**
 * hexa's seeded random sources, all integer arithmetic so a seed gives the same numbers on every platform. Three
 * algorithms, each kept because stored results depend on its exact stream (a seed must keep giving the numbers
 * it gave): `createRng` (Mersenne Twister from pure-rand) for levels, heuristics, envs and searches;
 * `xoshiro128ss` for the PPO trainer, whose hot loop draws millions of numbers; `mulberry32` for the bootstrap of
 * `hexa compare`. The reward sandbox's own Math.random (sfc32) is guest code evaluated inside QuickJS, so it
 * stays in levels/reward-search/sandbox/reward-sandbox.ts.
 */

/** Method names follow numpy's Generator, which Interphyre's level code calls (docs/spec/interphyre.md §3.1). */
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

/** Mersenne Twister (pure-rand). */
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

/** The trainer's random numbers: weight init, sampling, shuffles. */
export interface FastRng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller, the second value of each pair kept for the next call). */
  normal(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

/** xoshiro128** seeded by splitmix32 (only the low 32 bits of the seed count). */
export const xoshiro128ss = (seed: number): FastRng => {
  let x = seed >>> 0;
  const split = (): number => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(),
    b = split(),
    c = split(),
    d = split();
  const u32 = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r;
  };
  const next = (): number => (u32() * 2 ** 21 + (u32() >>> 11)) / 2 ** 53;
  let spare: number | null = null;
  return {
    next,
    normal() {
      if (spare !== null) {
        const s = spare;
        spare = null;
        return s;
      }
      let u = 0;
      while (u === 0) u = next();
      const r = Math.sqrt(-2 * Math.log(u));
      const th = 2 * Math.PI * next();
      spare = r * Math.sin(th);
      return r * Math.cos(th);
    },
    int: (n) => Math.floor(next() * n),
  };
};

const rotl = (v: number, k: number): number => ((v << k) | (v >>> (32 - k))) >>> 0;

/** mulberry32: uniform in [0, 1) (only the low 32 bits of the seed count). */
export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
