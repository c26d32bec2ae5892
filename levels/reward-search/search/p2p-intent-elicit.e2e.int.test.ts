import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import type { FamilyHost } from "../../../src/family/host.ts";
import { readSearchRecord } from "../../../src/search/search-record.ts";
import { startFakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { runSearchCommand } from "../cli/search-run.ts";
import type { SearchCommandArgs } from "../cli/search.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";

/**
 * `hexa search --env hopper --intent …` at a terminal with no --criteria: the vision judge's proposal is shown, the
 * user adds two lines and confirms; the accepted list is recorded in search-config.json and judged with, and
 * `hexa verify` replays the search identical with the server stopped, asking no one.
 */
const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-intent-elicit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const suite = existsSync(CHROMIUM) ? describe : describe.skip;

const INTENT = "stay alive for a long time";
const TREE = { order: "independent", children: [{ id: "1", name: "alive", metric: "seconds recorded", threshold: ">= 100 s", partial: "time / 100 s" }] };
const CODE = `function judge(traj) {
  const time = traj.steps * traj.dt;
  return [{ id: "1", value: time, score: Math.min(1, time / 100), passed: time >= 100, note: "seconds" }];
}`;
const PROPOSED = ["The hopper stays upright", "It keeps its balance", "It does not fall over"];
const ADDED = ["Its torso stays above its foot", "It is still standing at the end"];
const ACCEPTED = [...PROPOSED, ...ADDED];
const REPLIES: Record<string, string> = {
  judge_decomposition: JSON.stringify({ criteria: TREE }),
  judge_decomposition_review: JSON.stringify({ change: false, findings: "complete" }),
  judge_code: JSON.stringify({ code: CODE }),
  judge_loophole_review: JSON.stringify({ loophole: false, findings: "none" }),
  vision_criteria: JSON.stringify({ criteria: PROPOSED }),
  vision_review: JSON.stringify({ approved: true }),
  vision_verdict: JSON.stringify({
    criteria: ACCEPTED.map((criterion) => ({ criterion, assessment: "not seen for long", status: "not_met" })),
    intent_score: 0,
    diagnosis: "It falls.",
    failure_tags: ["falls"],
  }),
};
const schemaName = (b: Record<string, unknown>) => (b.response_format as { json_schema?: { name: string } } | undefined)?.json_schema?.name;

const host: FamilyHost = {
  codeVersion: async () => ({ version: "test", commit: null }),
  writeReport: async () => "",
  runGrid: async () => {},
  embeddedModels: async () => {
    throw new Error("no embedded model in this test");
  },
  queueBackend: async () => {
    throw new Error("no queue in this test");
  },
};

/** A terminal whose user types `lines`, and everything shown on it. */
const terminal = (lines: readonly string[]) => {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const stdout = Object.assign(new PassThrough(), { isTTY: true });
  let shown = "";
  stdout.setEncoding("utf8").on("data", (d: string) => (shown += d));
  stdin.end(lines.map((l) => `${l}\n`).join(""));
  return { t: { stdin, stdout }, shown: () => shown };
};

suite("an intent search's criteria elicited at a terminal", () => {
  it("records the accepted criteria, judges with them, and verifies offline", async () => {
    const out = join(dir, "search");
    const s = await startFakeEndpoint({ delayMs: 1, reply: (b) => REPLIES[schemaName(b)!]! });
    const user = terminal([...ADDED.map((a) => `a ${a}`), ""]);
    const argv = {
      env: "hopper",
      intent: INTENT,
      method: "p2p",
      proposer: "heuristic",
      budget: 2,
      configs: 2,
      "train-seeds": 1,
      "train-steps": 4096,
      "judged-steps": 40,
      out,
      "trainer-cache": join(dir, "cache"),
      processes: 1,
      "judge-model": "judge-m",
      "judge-base-url": s.url,
      "vision-model": "vision-m",
      "vision-base-url": s.url,
      "vision-max-images": 4,
      _: [],
      $0: "hexa",
    } as unknown as SearchCommandArgs;
    try {
      await runSearchCommand(argv, host, user.t);
    } finally {
      await s.close();
    }
    expect(user.shown()).toContain("   1. The hopper stays upright\n   2. It keeps its balance\n   3. It does not fall over\n> ");
    const intent = readSearchRecord(out)!.settings.intent as Record<string, unknown>;
    expect(intent.criteria).toEqual(ACCEPTED);
    expect(intent.elicited).toBe(true);
    // The proposal asked once, apart; the criteria judged with are the user's.
    expect(readdirSync(join(out, "proposed-criteria", "vision-criteria"))).toHaveLength(1);
    const [stored] = readdirSync(join(out, "vision-criteria"));
    expect(JSON.parse(readFileSync(join(out, "vision-criteria", stored!), "utf8"))).toMatchObject({ criteria: ACCEPTED, byUser: true });
    const verdicts = s.requests.filter((r) => schemaName(r.body) === "vision_verdict");
    expect(verdicts).toHaveLength(4);
    for (const v of verdicts) expect(JSON.stringify(v.body.messages)).toContain(ADDED[1]);

    const verified = await hexa(["verify", out, "--trainer-cache", join(dir, "cache")]);
    expect(verified.stdout, verified.stderr).toMatch(/^identical: /);
  }, 560_000);
});
