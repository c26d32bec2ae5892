import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JudgmentFile } from "../cli/judge-file.ts";
import { parseCriteria } from "../judging/criteria.ts";
import { tinyRecord } from "../judging/fixtures/tiny-record.ts";
import { judgeTrajectory, makeJudge } from "../judging/judge.ts";
import type { FamilyHost } from "../../../src/family/host.ts";
import { rewardSearchModule } from "../module.ts";
import { p2pSearch, retireALesson } from "./fixtures/p2p-search.ts";
import { p2pSignature } from "./p2p-folder.ts";
import { p2pPage } from "./p2p-inspect.ts";
import { checkpointJudgmentName } from "../search/p2p-judgment-folder.ts";

/** `hexa inspect` of a p2p search (fixtures/p2p-search.ts: a real heuristic search that branches). */

const root = mkdtempSync(join(tmpdir(), "hexa-p2p-page-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const judgmentOf = async (): Promise<JudgmentFile> => {
  const leaf = { id: "1", name: "balanced", metric: "m", threshold: "t", partial: "p" };
  const judge = makeJudge("j", {
    intent: "balance",
    tree: parseCriteria({ order: "sequential", children: [leaf] }),
    code: 'function judge(t) { return [{ id: "1", value: 1, score: 1, passed: true, note: "up <all along>" }]; }',
  });
  const judgment = await judgeTrajectory(judge, "trajectory-1.bin", tinyRecord());
  const synthesis = { kind: "single" as const, judge: "code" as const, score: judgment.score, passed: true, rule: "code judge alone" };
  return {
    schemaVersion: 1,
    task: "cartpole",
    policy: "policy.json",
    intent: judge.intent,
    judge: { kind: "code", id: judge.id, version: 1, hash: judge.hash, label: "code judge j v1" },
    episodes: [{ seed: 1, trajectory: "trajectory-1.bin", steps: 10, fitness: 300, score: judgment.score }],
    picks: (["p10", "median", "p90"] as const).map((pick) => ({ pick, seed: 1, score: judgment.score, synthesis, judgment })),
    notes: [],
  };
};

let dir = "";
beforeAll(async () => {
  dir = await p2pSearch(root, "plain");
  retireALesson(dir);
});

describe("hexa inspect of a p2p search", () => {
  it("is claimed by the family, with a signature that --serve follows", () => {
    // inspect asks nothing of the host.
    const inspect = rewardSearchModule({} as FamilyHost).inspect!;
    expect(inspect.claims(dir)).toBe(true);
    expect(inspect.claims(root)).toBe(false);
    expect(inspect.signature!(dir)).toBe(p2pSignature(dir));
    expect(inspect.signature!(root)).toBeUndefined();
  });

  it("shows the lineage with the branch and the best marked, the diff, the HP changes, the checkpoint table and the lessons' tiers", async () => {
    const { html, summary } = await p2pPage(dir);
    expect(summary).toBe("p2p search on cartpole: 3 iterations (3 judged, 1 branches), 3 lessons, 0 checkpoint judgments");
    // Iteration 2 is under iteration 0 in the tree, beside iteration 1: a branch after the regression.
    expect(html).toMatch(
      /<li><a href="#it-0">iteration 0<\/a>: score 0\.63 \(config 0, revised\) — <b class="best">★ best<\/b><ul><li><a href="#it-1">iteration 1<\/a>: score 0\.21 [^<]*<\/li><li><a href="#it-2">iteration 2<\/a>: score 0\.42 [^<]*<span class="branch">branch from 0<\/span><\/li><\/ul><\/li>/,
    );
    expect(html).toContain("reward code against iteration 0 (2 lines removed, 2 added)");
    expect(html).toMatch(/<span class="removed">- [^<]+<\/span><span class="added">\+ /);
    expect(html).toMatch(
      /<h4>HP changes from iteration 0<\/h4><table>.*<tr><td>learningRate<\/td><td class="num">0\.00\d+<\/td><td class="num">0\.00\d+<\/td><\/tr>/,
    );
    expect(html).toContain('<th class="num">20 %</th><th class="num">50 %</th><th class="num">70 %</th><th class="num">100 %</th>');
    expect(html).toContain('0.63 ± 0.00<br><span class="muted">0 % pass</span>');
    expect(html).toContain("<b>diagnosis</b>: iteration 0 scored 0.63");
    expect(html).toContain("<td><b>RETIRED</b></td>");
    expect(html).toContain("retired because: contradicted by &lt;b&gt;iteration 2&lt;/b&gt;");
    expect(html).toContain("round 3: STRONG → RETIRED by reviser");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; keep the pole up");
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain("connect-src 'none'");
    expect(html).not.toContain("Judged checkpoints");
    expect((await p2pPage(dir, { live: true })).html).toContain('new EventSource("/events")');
  });

  it("shows a judged checkpoint's judgment with the judgment page's parts where its folder is there", async () => {
    const d = await p2pSearch(root, "judged");
    const t = JSON.parse(readFileSync(join(d, "trainings", "it0-c1-s0.json"), "utf8")) as { judged: { step: number }[] };
    const folder = join(d, checkpointJudgmentName(0, 1, 0, t.judged.at(-1)!.step));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "judgment.json"), JSON.stringify(await judgmentOf()));
    const { html, summary } = await p2pPage(d);
    expect(summary).toContain("1 checkpoint judgments");
    expect(html).toContain(`config 1, seed 0, step ${t.judged.at(-1)!.step}: judged by the code judge j v1`);
    expect(html).toContain("<h4>Code judge</h4>");
    expect(html).toContain("up &lt;all along&gt;");
  });

  it("refuses a lineage file that is a link or over its bound, and leaves out a training that is one, naming it", async () => {
    const d = await p2pSearch(root, "hostile");
    writeFileSync(join(root, "elsewhere.json"), "{}");
    rmSync(join(d, "trainings", "it1-c0-s0.json"));
    symlinkSync(join(root, "elsewhere.json"), join(d, "trainings", "it1-c0-s0.json"));
    truncateSync(join(d, "trainings", "it2-c1-s0.json"), 3 << 20);
    const { html } = await p2pPage(d);
    expect(html).toContain("notice: trainings/it1-c0-s0.json: not a plain file (a link or a folder)");
    expect(html).toContain("trainings/it2-c1-s0.json: 3145728 bytes, more than 1048576");
    expect(html).toContain("checkpoint table: a training file is missing or was refused");
    truncateSync(join(d, "plans.jsonl"), 33 << 20);
    await expect(p2pPage(d)).rejects.toThrow(/plans\.jsonl: plans\.jsonl: 34603008 bytes, more than 33554432/);
    rmSync(join(d, "plans.jsonl"));
    symlinkSync(join(dir, "plans.jsonl"), join(d, "plans.jsonl"));
    await expect(p2pPage(d)).rejects.toThrow(/plans\.jsonl: plans\.jsonl: not a plain file \(a link or a folder\)/);
  });

  it("leaves out a torn last line of a search being written, with a notice", async () => {
    const d = await p2pSearch(root, "torn");
    appendFileSync(join(d, "iterations.jsonl"), '{"schemaVersion":1,"itera');
    const { html } = await p2pPage(d);
    expect(html).toContain("notice: iterations.jsonl: the last line is incomplete");
  });
});
