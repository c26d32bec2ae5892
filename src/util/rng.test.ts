import { describe, expect, it } from "vitest";
import { createRng, mulberry32, xoshiro128ss } from "./rng.ts";

// The first numbers of each generator, recorded from the code before the generators moved into this module:
// stored results (certified seeds, heuristic runs, PPO trainings, search candidates, compare intervals) depend on them.
describe("seeded generators keep their streams", () => {
  it.each([0, 42, 2 ** 32 + 5])("createRng (Mersenne Twister), seed %d", (seed) => {
    const m = createRng(seed);
    expect([m.random(), m.random(), m.uniform(-2, 3), m.integers(0, 10), m.choice(["a", "b", "c"]), m.normal(), m.normal(1, 2)]).toEqual(MT[seed]);
  });

  it.each([0, 42, 2 ** 32 + 5])("xoshiro128ss, seed %d", (seed) => {
    const x = xoshiro128ss(seed);
    expect([x.next(), x.next(), x.normal(), x.normal(), x.normal(), x.int(7), x.next()]).toEqual(XO[seed]);
  });

  it.each([0, 42, 2 ** 32 + 5])("mulberry32, seed %d", (seed) => {
    const b = mulberry32(seed);
    expect([b(), b(), b(), b()]).toEqual(MB[seed]);
  });

  it("createRng refuses a seed that is not a safe integer", () => {
    expect(() => createRng(1.5)).toThrow(/seed must be an integer \(got 1.5\)/);
  });
});

const MT: Record<number, unknown[]> = {
  0: [0.12406416194182224, 0.7721193584278794, 0.8842785547867296, 9, "c", -0.25623530836208164, 1.1894549032770525],
  42: [0.9705673231091424, 0.8457159529613436, 2.238060336568349, 2, "a", 2.887331630915506, -1.9200480108831854],
  4294967301: [0.20756297954565084, 0.7268674314393234, -0.8498706639125457, 4, "a", 0.44807072000777154, 1.1654829532526456],
};
const XO: Record<number, unknown[]> = {
  0: [0.886853953884905, 0.01247498944244263, 2.586847581202152, 0.3998596051363225, 0.9512760467729653, 3, 0.7195122185530757],
  42: [0.6606157226783409, 0.11170196412479017, 2.2422637339773477, 0.21493092290364987, 0.20491668346283842, 6, 0.7725575498299859],
  4294967301: [0.8421442608421131, 0.6242912347118219, 0.33112535605984444, -1.179729307325355, -0.4853406597522601, 1, 0.608179976042078],
};
const MB: Record<number, unknown[]> = {
  0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197, 0.1462021479383111],
  42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693],
  4294967301: [0.6897749109193683, 0.7727432732935995, 0.21976301027461886, 0.6231788222212344],
};
