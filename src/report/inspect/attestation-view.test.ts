import { describe, expect, it } from "vitest";
import { attestationLines, verificationText } from "./attestation-view.ts";
import type { VerificationRecord } from "../../store/run-attestations.ts";

const counts = { episodes: 51, bankEvents: 12, modelExchanges: 0, trainings: 0 };
const base = { verifiedAt: "2026-12-05T22:00:00.000Z", codeVersion: "hexa 0.1.0 at commit 1dbcbd382cf1", counts };

describe("a run's last verification, as inspect says it", () => {
  it("is identical with the date, the code and what was checked", () => {
    expect(verificationText({ ...base, status: "identical" })).toBe(
      "verified identical on 2026-12-05 22:00:00 UTC by hexa 0.1.0 at commit 1dbcbd382cf1: 51 episodes, 12 bank events, 0 model exchanges, 0 trainings checked",
    );
  });

  it("names where it diverged, the field and both values", () => {
    const v: VerificationRecord = {
      ...base,
      status: "diverged",
      divergence: { what: "episode catapult/r3/s61 turn 4", field: "observation", recorded: "hit at x=1.2", replayed: "hit at x=1.3" },
    };
    expect(verificationText(v)).toMatch(
      /^verification on 2026-12-05 22:00:00 UTC by .* diverged at episode catapult\/r3\/s61 turn 4, observation: recorded "hit at x=1\.2", replayed "hit at x=1\.3"/,
    );
  });

  it("says what it could not check, and a run with neither note has no line", () => {
    const v: VerificationRecord = {
      ...base,
      status: "cannot",
      divergence: { what: "llm-log.jsonl holds hashes only", field: "", recorded: null, replayed: null },
    };
    expect(verificationText(v)).toBe("could not be verified on 2026-12-05 22:00:00 UTC by hexa 0.1.0 at commit 1dbcbd382cf1: llm-log.jsonl holds hashes only");
    expect(attestationLines({ run: "r" })).toEqual([]);
  });
});
