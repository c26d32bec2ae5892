import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseReference, referenceFromLog } from "../bench/ppo-parity-run.ts";
import { meanInterval95, within } from "../bench/ppo-parity-stats.ts";

describe("bench:ppo-parity's pieces", () => {
  it("gives the mean with its 95 % Student-t interval over seeds", () => {
    const i = meanInterval95([1, 2, 3, 4, 5]);
    // sd = √2.5, t(0.975, 4) = 2.776: half-width 2.776 · 1.5811 / √5 = 1.9629
    expect(i.mean).toBe(3);
    expect(i.low).toBeCloseTo(1.0371, 3);
    expect(i.high).toBeCloseTo(4.9629, 3);
    expect(within(4.9, i)).toBe(true);
    expect(within(5, i)).toBe(false);
    expect(meanInterval95([7])).toMatchObject({ mean: 7, low: -Infinity, high: Infinity });
  });

  it("reads the reference's last window and SPS, the window starting at the row before", () => {
    const out = [
      "torch 1.13.0a0, threads 1, numpy 1.24.2, MuJoCo 222, 14 iterations of 2048 steps",
      "| env steps | return (train episodes) | episodes | SPS | wall s |",
      "| 20480 | 96 | 180 | 1012 | 20.2 |",
      "| 28672 | 214 | 41 | 1020 | 28.1 |",
      "",
      "SPS 1019 (28672 env steps in 28.1 s); rollout 15.0 s (53%), gae 0.1 s (0%), update 13.0 s (46%)",
    ].join("\n");
    expect(parseReference(out, 3)).toEqual({
      side: "reference",
      seed: 3,
      lastReturn: 214,
      episodes: 41,
      window: { fromStep: 20480, toStep: 28672 },
      sps: 1019,
    });
  });

  it("refuses a reference output without its table, naming what is missing", () => {
    expect(() => parseReference("Traceback (most recent call last):\nImportError: torch", 1)).toThrow(/without its table or SPS line/);
  });

  it("reads a window in which no episode ended as no value, not 0", () => {
    const out = "| 2048 | - | 0 | 900 | 2.3 |\nSPS 900 (2048 env steps in 2.3 s)";
    expect(parseReference(out, 1).lastReturn).toBeNaN();
  });

  it("reads a recorded reference log for the seed, refusing one that is missing or trained for other steps", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-parity-logs-"));
    writeFileSync(join(dir, "seed-2.log"), "| 20480 | 96 | 180 | 1012 | 20.2 |\n| 24576 | 150 | 30 | 1000 | 24.5 |\n\nSPS 1000 (24576 env steps in 24.5 s)\n");
    expect(referenceFromLog(dir, 2, 25_000)).toMatchObject({ seed: 2, lastReturn: 150, episodes: 30, window: { fromStep: 20480, toStep: 24576 } });
    expect(() => referenceFromLog(dir, 2, 30_000)).toThrow(/seed-2\.log ends at env step 24576, not 28672/);
    expect(() => referenceFromLog(dir, 3, 25_000)).toThrow(/seed-3\.log is missing/);
  });
});
