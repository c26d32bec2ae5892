/** The trainer's seeded random numbers (xoshiro128** seeded by splitmix32): weight init, sampling, shuffles. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
}

export const makeRng = (seed: number): Rng => {
  let x = seed >>> 0;
  const split = (): number => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  const u32 = (): number => {
    const r = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a; d ^= b; b ^= c; a ^= d; c ^= t;
    d = rotl(d, 11);
    return r;
  };
  const next = (): number => (u32() * 2 ** 21 + (u32() >>> 11)) / 2 ** 53;
  let spare: number | null = null;
  return {
    next,
    normal() {
      if (spare !== null) { const s = spare; spare = null; return s; }
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
