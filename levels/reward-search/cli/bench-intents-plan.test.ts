import { describe, expect, it } from "vitest";
import { intentsPlan } from "./bench-intents.ts";

/** `hexa bench intents`'s flags as each case's `hexa search` gets them. */
describe("intentsPlan", () => {
  const base = { "judge-model": "j", cases: "f-hopper" };

  it("sends every case's trainings to the queue --backend names", () => {
    expect(intentsPlan({ ...base, backend: "redis://10.0.0.5:6379" }).backend).toBe("redis://10.0.0.5:6379");
    expect(intentsPlan(base).backend).toBeUndefined();
  });

  it("refuses --processes with --backend before any case runs, as hexa search does", () => {
    expect(() => intentsPlan({ ...base, backend: "redis://10.0.0.5:6379", processes: 2 })).toThrow(/^--processes: with --backend the workers train/);
  });
});
