import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeEndpoint, type FakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { TrainingRecord } from "../../../src/search/p2p-log.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";

/**
 * `hexa search --env hopper --intent …` end to end against a scripted OpenAI-compatible server answering both
 * model roles: the code judge authored once before any training, the vision criteria fixed once, every judged
 * checkpoint of every training rolled out from its kept policy and scored by the code judge, the vision judge and
 * the agreement rule; exactly the training budget; then `hexa verify` with the server stopped.
 */
const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-intent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const suite = existsSync(CHROMIUM) ? describe : describe.skip;

const INTENT = "stay alive for a long time";
const CORRECTION = "land softer";
const TREE = { order: "independent", children: [{ id: "1", name: "alive", metric: "seconds recorded", threshold: ">= 100 s", partial: "time / 100 s" }] };
const CODE = `function judge(traj) {
  const time = traj.steps * traj.dt;
  return [{ id: "1", value: time, score: Math.min(1, time / 100), passed: time >= 100, note: "seconds" }];
}`;
const CRITERIA = ["The hopper stays upright", "It keeps its balance", "It does not fall over"];
const verdict = JSON.stringify({
  criteria: CRITERIA.map((criterion) => ({ criterion, assessment: "not seen for long", status: "not_met" })),
  intent_score: 0,
  diagnosis: "It falls.",
  failure_tags: ["falls"],
});

const server = (): Promise<FakeEndpoint> => {
  const replies: Record<string, string> = {
    judge_decomposition: JSON.stringify({ criteria: TREE }),
    judge_decomposition_review: JSON.stringify({ change: false, findings: "complete" }),
    judge_code: JSON.stringify({ code: CODE }),
    judge_loophole_review: JSON.stringify({ loophole: false, findings: "none" }),
    vision_criteria: JSON.stringify({ criteria: CRITERIA }),
    vision_review: JSON.stringify({ approved: true }),
    vision_verdict: verdict,
  };
  return startFakeEndpoint({ delayMs: 1, reply: (b) => replies[(b.response_format as { json_schema: { name: string } }).json_schema.name]! });
};

const schemaName = (b: Record<string, unknown>) => (b.response_format as { json_schema?: { name: string } } | undefined)?.json_schema?.name;

/** The judge.version of each judgment.json of the search's judged checkpoints whose folder starts with `prefix`. */
const judgedBy = (out: string, prefix: string) =>
  readdirSync(join(out, "judgments"))
    .filter((n) => n.startsWith(prefix))
    .map((n) => JSON.parse(readFileSync(join(out, "judgments", n, "judgment.json"), "utf8")).judge.version);

suite("hexa search with an intent (p2p, scripted judges)", () => {
  it("judges every checkpoint with the code and vision judges, at exactly the budget, re-authors the code judge after a correction, and verifies offline", async () => {
    const out = join(dir, "search");
    const s = await server();
    const args = ["search", "--env", "hopper", "--intent", INTENT, "--strategy", "p2p", "--budget", "4", "--configs", "2", "--train-seeds", "1"];
    const rest = ["--max-iterations", "1", "--train-steps", "4096", "--judged-steps", "60", "--out", out, "--trainer-cache", join(dir, "cache")];
    const models = [
      "--judge-model",
      "judge-m",
      "--judge-base-url",
      s.url,
      "--vision-model",
      "vision-m",
      "--vision-base-url",
      s.url,
      "--vision-max-images",
      "8",
    ];
    let run;
    let corrected;
    let first: Record<string, unknown>[] = [];
    let firstLog = 0;
    try {
      run = await hexa([...args, ...rest, ...models, "--processes", "1"]);
      first = s.requests.map((r) => r.body);
      firstLog = readFileSync(join(out, "llm-log.jsonl"), "utf8").trim().split("\n").length;
      // A correction after iteration 0: iteration 1's judges weigh it, so the code judge is authored again with it.
      corrected = await hexa(["search", "--resume", out, "--correct", CORRECTION, "--processes", "1"]);
    } finally {
      await s.close();
    }
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("1 iterations, 2 trainings (2 trained now)");
    expect(run.stdout).toContain("no final score: a task from words has no F");
    const names = first.map(schemaName);
    // Authored and criteria fixed once, before the trainings; then one verdict per judged checkpoint (2 trainings × 2 checkpoints).
    expect(names.slice(0, 6)).toEqual([
      "judge_decomposition",
      "judge_decomposition_review",
      "judge_code",
      "judge_loophole_review",
      "vision_criteria",
      "vision_review",
    ]);
    expect(names.slice(6)).toEqual(["vision_verdict", "vision_verdict", "vision_verdict", "vision_verdict"]);
    expect(firstLog).toBe(10);
    const files = readdirSync(join(out, "trainings")).sort();
    expect(files).toHaveLength(4);
    for (const f of files) {
      const t = TrainingRecord.parse(JSON.parse(readFileSync(join(out, "trainings", f), "utf8")));
      expect(t.judged.map((j) => j.fraction)).toEqual([0.5, 1]);
      const version = f.startsWith("it1-") ? 2 : 1;
      for (const j of t.judged)
        expect(j.detail).toMatch(
          new RegExp(`^seed \\d+: code 0\\.\\d\\d, vision 0\\.00 → 0\\.\\d\\d \\(agree\\); judgment in judgments/.*; code judge v${version}$`),
        );
      const cps = t.outcome.kind === "result" ? t.outcome.checkpoints : [];
      for (const cp of cps) expect(existsSync(cp.policy!)).toBe(true);
    }
    const seed = files[0]!.match(/-s(\d+)\.json$/)![1];
    expect(
      readdirSync(join(out, "judgments"))
        .filter((n) => n.startsWith(`it0-c0-s${seed}-`))
        .sort(),
    ).toEqual([`it0-c0-s${seed}-step2048`, `it0-c0-s${seed}-step4096`]);

    // After the correction: a second version of the code judge, authored with the correction's words, judges iteration 1.
    expect(corrected.status, corrected.stderr).toBe(0);
    expect(corrected.stdout).toContain("2 iterations, 4 trainings (2 trained now)");
    const id = readdirSync(join(out, "judges"))[0]!;
    expect(readdirSync(join(out, "judges", id)).sort()).toEqual(["v1.authoring.json", "v1.json", "v2.authoring.json", "v2.json"]);
    expect(corrected.stderr).toContain(`iteration 1: authored judge ${id} v2`);
    const system = (b: Record<string, unknown>) => JSON.stringify(b.messages);
    expect(system(first[0]!)).not.toContain(CORRECTION);
    const later = s.requests.slice(first.length).map((r) => r.body);
    expect(later.filter((b) => schemaName(b) === "judge_decomposition").map(system)).toEqual([
      expect.stringContaining(`1. \\"${CORRECTION}\\" (after iteration 0)`),
    ]);
    expect(JSON.parse(readFileSync(join(out, "judges", id, "v2.authoring.json"), "utf8")).corrections).toContain(CORRECTION);
    expect(judgedBy(out, "it0-")).toEqual([1, 1, 1, 1]);
    expect(judgedBy(out, "it1-")).toEqual([2, 2, 2, 2]);
    // Each iteration records the version that scored it; the best is chosen among v2's iterations alone.
    const records = readFileSync(join(out, "iterations.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => [r.judgeVersion, r.newBest])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(corrected.stdout).toMatch(/^best: iteration 1 config 0, score [\d.]+ \(.*; among the iterations scored by code judge v2\); HPs /m);

    // The server is closed: every judge's exchange (both authorings included) is answered from llm-log.jsonl, the
    // trainings (with their PPO diagnostics) from the trainer cache, and the judgments/ folders and the lineage replay identical.
    const verified = await hexa(["verify", out, "--trainer-cache", join(dir, "cache")]);
    expect(verified.stdout, verified.stderr).toMatch(/^identical: /);
    expect(verified.stdout).toContain("18 model exchanges");
    expect(readdirSync(join(out, "judges", id))).toHaveLength(4);
  }, 560_000);
});
