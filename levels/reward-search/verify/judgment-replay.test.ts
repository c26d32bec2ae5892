import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { judgePolicy } from "../cli/judge-run.ts";
import { parseCriteria } from "../judging/criteria.ts";
import { CORRECTED_CODE, HOPPER_TREE } from "../judging/fixtures/author-scripted.ts";
import { makeJudge } from "../judging/judge.ts";
import { getTask } from "../tasks/index.ts";
import { initParams, policyLayout, serializePolicy } from "../trainer/policy.ts";
import { replayJudgment } from "./judgment-replay.ts";

/** Judgments made without a model (the fitness judge, a code judge given as a file) replayed in this process. */
const dir = mkdtempSync(join(tmpdir(), "hexa-judgment-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = join(dir, "policy.json");
const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
writeFileSync(
  policy,
  JSON.stringify({
    task: "hopper",
    instance: getTask("hopper").generate(0),
    seed: 0,
    steps: 0,
    policy: serializePolicy(layout, initParams(layout, xoshiro128ss(5)), null),
  }),
);
const judge = makeJudge("hop", { intent: "hop forward 1 m without falling", tree: parseCriteria(HOPPER_TREE), code: CORRECTED_CODE });
const judgeFile = join(dir, "hop.json");
writeFileSync(judgeFile, JSON.stringify(judge));

const noModel = () => undefined;
const replay = (judgmentDir: string) => replayJudgment({ judgmentDir, workDir: mkdtempSync(join(dir, "work-")), model: noModel });

describe("replaying a judgment made without a model", () => {
  it("the fitness judge: identical; a changed score is named by its field", async () => {
    const out = join(dir, "fitness");
    await judgePolicy({ task: "hopper", policy, episodes: 2, maxSteps: 20, out });
    expect(await replay(out)).toEqual({ episodes: 2 });
    const file = JSON.parse(readFileSync(join(out, "judgment.json"), "utf8"));
    file.episodes[0].score = file.episodes[0].score === 0 ? 0.5 : 0;
    writeFileSync(join(out, "judgment.json"), `${JSON.stringify(file, null, 2)}\n`);
    expect((await replay(out)).divergence).toMatchObject({ what: "judgment.json", field: "episodes[0].score" });
  }, 60_000);

  it("a code judge given as a file: cannot until the folder keeps it, then identical; a judge of other content is refused", async () => {
    const out = join(dir, "code");
    await judgePolicy({ task: "hopper", policy, episodes: 2, maxSteps: 20, out, judge: judgeFile });
    await expect(replay(out)).rejects.toThrow(/judge: code judge hop v1: its code is neither authored in llm-log\.jsonl .* nor kept in judges\/hop\/v1\.json/);
    mkdirSync(join(out, "judges", "hop"), { recursive: true });
    const other = makeJudge("hop", { intent: judge.intent, tree: judge.tree, code: CORRECTED_CODE.replace("travel >= 1", "travel >= 2") });
    writeFileSync(join(out, "judges", "hop", "v1.json"), JSON.stringify(other));
    await expect(replay(out)).rejects.toThrow(`hash: ${other.hash} is not judgment.json's judge.hash ${judge.hash}`);
    writeFileSync(join(out, "judges", "hop", "v1.json"), JSON.stringify(judge));
    expect(await replay(out)).toEqual({ episodes: 2 });
  }, 60_000);
});
