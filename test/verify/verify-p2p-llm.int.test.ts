import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type ScriptItem } from "../support/fake-openai-server.ts";
import { hexa } from "../support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "../support/temp-files.ts";
import { copyRun, editLine } from "./verify-support.ts";

/**
 * `hexa verify` of a p2p search whose LLM reviser read its lineage with a tool and changed a lesson's tier: every
 * exchange, the tool rounds included, is answered from llm-log.jsonl with the server stopped, and the lineage and
 * the bank events (the tier change among them) replay identical.
 */

const tmp = tempDirs("hexa-verify-p2p-llm-");
let search = "";
let cache = "";
let closedUrl = "";

const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
const json = (x: unknown): ScriptItem => ({ text: JSON.stringify(x) });
const revision = (k: number, basedOn: number) =>
  json({
    diagnosis: "the pole falls early",
    lesson: `Weight alive at ${k}.`,
    basedOn,
    rewardChanges: [`alive ${k}`],
    structural: false,
    noChange: false,
    code: code(k),
    hpChanges: {},
  });
const REASON = "iteration 1 scored no better than iteration 0";

beforeAll(async () => {
  const server = await startFakeOpenAI();
  try {
    const dir = tmp();
    search = join(dir, "search");
    cache = join(dir, "cache");
    server.push(
      json({ thought: "Stay alive.", code: code(1) }),
      revision(2, 0),
      {
        toolCalls: [
          { name: "reward_diff", args: { from: 0, to: 1 } },
          { name: "lessons", args: {} },
        ],
      },
      { toolCalls: [{ name: "set_lesson_tier", args: { id: "l1_1", to: "SOFT", reason: REASON } }] },
      revision(3, 0),
    );
    const args = ["search", "cartpole", "--strategy", "p2p", "--budget", "3", "--configs", "1", "--train-seeds", "1", "--train-steps", "2048"];
    const rest = ["--final-steps", "1024", "--final-trainings", "1", "--processes", "1", "--seed", "2", "--out", search, "--trainer-cache", cache];
    const r = await hexa([...args, ...rest, "--proposer", "llm", "--model", "m", "--base-url", server.url], { env: { OPENAI_API_KEY: "" } });
    expect(r.status, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(5);
    closedUrl = server.url;
  } finally {
    await server.close();
  }
}, 240_000);

describe("hexa verify of a p2p search whose LLM reviser used its tools", () => {
  it("recorded the tier change as a bank event with the reviser's reason, and replays identical with the server stopped", async () => {
    const changed = jsonlOf(join(search, "bank-events.jsonl")).filter((e) => e.type === "lesson_tier_changed");
    expect(changed).toEqual([expect.objectContaining({ round: 2, id: "l1_1", from: "STRONG", to: "SOFT", reason: REASON, by: "p2p reviser" })]);
    expect(jsonlOf(join(search, "plans.jsonl"))[2]!.revision.tierChanges).toEqual([{ id: "l1_1", from: "STRONG", to: "SOFT", reason: REASON }]);
    const r = await hexa(["verify", search, "--trainer-cache", cache], { env: { OPENAI_BASE_URL: closedUrl, OPENAI_API_KEY: "", HEXA_ACTOR_API_KEY: "" } });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^identical: .*5 model exchanges/);
  }, 120_000);

  it("a tier change's reason edited in the plan that carries it is the divergence, naming the file and field", async () => {
    const copy = copyRun(search, tmp());
    editLine(join(copy, "plans.jsonl"), 2, (p) => void (p.revision.tierChanges[0].reason = "an edited reason"));
    const r = await hexa(["verify", copy, "--trainer-cache", cache], { env: { OPENAI_BASE_URL: closedUrl, OPENAI_API_KEY: "", HEXA_ACTOR_API_KEY: "" } });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(1);
    expect(r.stdout).toContain('diverged: plans.jsonl\n  field:    [2].revision.tierChanges[0].reason\n  recorded: "an edited reason"');
  }, 120_000);
});
