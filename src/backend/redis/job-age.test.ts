import { describe, expect, it } from "vitest";
import { jobAgeProblem, MAX_CLOCK_SKEW_MS } from "./job-age.ts";

const NOW = Date.parse("2026-06-01T12:00:00.000Z");
const HOUR = 3600_000;
const at = (ms: number) => ({ signedAt: new Date(NOW + ms).toISOString() });

describe("a signed job's age", () => {
  it("takes a job signed within the maximum age, or a little ahead of this clock (two machines' clocks differ)", () => {
    expect(jobAgeProblem("j", at(-23 * HOUR), 24 * HOUR, NOW)).toBeNull();
    expect(jobAgeProblem("j", at(MAX_CLOCK_SKEW_MS - 1000), 24 * HOUR, NOW)).toBeNull();
  });

  it("refuses a job signed longer ago than the maximum", () => {
    expect(jobAgeProblem("j", at(-25 * HOUR), 24 * HOUR, NOW)).toMatch(/signedAt: the job was signed 25\.0 h ago, older than this worker's maximum/);
  });

  it("refuses a job dated in the future beyond the clock skew: it would stay young past the maximum age", () => {
    expect(jobAgeProblem("j", at(MAX_CLOCK_SKEW_MS + 60_000), 24 * HOUR, NOW)).toMatch(
      /signedAt: the job says it was signed 6 min in the future, beyond the 5 min/,
    );
    expect(jobAgeProblem("j", { signedAt: "2099-01-01T00:00:00.000Z" }, 24 * HOUR, NOW)).toMatch(/in the future/);
  });

  it("reads signedAt only as the signer writes it", () => {
    for (const signedAt of ["2026-06-01", "June 1, 2026 12:00", "2026-06-01T12:00:00Z ", 1_780_000_000_000, null])
      expect(jobAgeProblem("j", { signedAt }, 24 * HOUR, NOW), String(signedAt)).toMatch(/signedAt: the job carries no signing time/);
  });
});
