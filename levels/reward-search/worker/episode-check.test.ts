import { describe, expect, it } from "vitest";
import { getTask } from "../tasks/index.ts";
import { remoteEpisodeProblem } from "./episode-check.ts";

/** A reward-search episode a worker hands back (docs/security.md): F inside the task's range, its policy never a path here. */

const task = { level: "cartpole", seed: 0 };
const [, top] = getTask("cartpole").fitness.range;
const code = "function reward() { return { total: 1, components: {} }; }";

describe("remoteEpisodeProblem", () => {
  it("takes a score in the task's F range and a policy on the worker's machine", () => {
    expect(remoteEpisodeProblem(task, { action: { code, policy: "remote:worker-1" }, score: top })).toBeUndefined();
    expect(remoteEpisodeProblem(task, { action: null })).toBeUndefined();
  });

  it("refuses a score outside the task's F range", () => {
    expect(remoteEpisodeProblem(task, { action: { code }, score: 99_999 })).toMatch(/^score: 99999 is outside task cartpole's F range \[0, 500\]/);
    expect(remoteEpisodeProblem(task, { action: { code }, score: -1e308 })).toMatch(/^score: /);
  });

  it("refuses a policy named by a path: hexa inspect would film that file and write beside it", () => {
    expect(remoteEpisodeProblem(task, { action: { code, policy: "/home/me/.ssh/policy.json" } })).toMatch(
      /^action\.policy: "\/home\/me\/\.ssh\/policy\.json" names a file/,
    );
  });
});
