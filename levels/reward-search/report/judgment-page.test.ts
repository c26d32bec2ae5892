import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JudgmentFile } from "../cli/judge-file.ts";
import { parseCriteria } from "../judging/criteria.ts";
import { tinyRecord } from "../judging/fixtures/tiny-record.ts";
import { judgeTrajectory, makeJudge } from "../judging/judge.ts";
import { readJudgmentPage } from "./judgment-page-read.ts";
import { renderJudgmentPage } from "./judgment-page.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-judgment-page-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const leaf = (id: string, extra: object = {}) => ({ id, name: `leaf ${id}`, metric: "m", threshold: "t", partial: "p", ...extra });
/** Sequential: leaf 1 fails under half its weight, so leaf 2 is gated (SKIP); leaf 1's note is hostile HTML. */
const tree = parseCriteria({ order: "sequential", children: [leaf("1", { name: "<b>up</b>" }), leaf("2")] });
const code = `function judge(traj) {
  return [{ id: "1", value: 0.2, score: 0.2, passed: false, note: "<img src=x onerror=alert(1)>" }, { id: "2", value: 1, score: 1, passed: true, note: "" }];
}`;
const judge = makeJudge("j", { intent: "stand </script><script>alert(1)</script>", tree, code });

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

const fileWith = async (extra: (f: JudgmentFile) => unknown = (f) => f): Promise<unknown> => {
  const judgment = await judgeTrajectory(judge, "trajectory-1.bin", tinyRecord());
  const synthesis = { kind: "single" as const, judge: "code" as const, score: judgment.score, passed: false, rule: "code judge alone: <its> score stands" };
  const picks = (["p10", "median", "p90"] as const).map((pick) => ({ pick, seed: 1, score: judgment.score, synthesis, judgment, frames: "frames/1" }));
  const file: JudgmentFile = {
    schemaVersion: 1,
    task: "hopper",
    policy: "/somewhere/policy.json",
    intent: judge.intent,
    judge: { kind: "code", id: judge.id, version: 1, hash: judge.hash, label: "code judge j v1" },
    episodes: [{ seed: 1, trajectory: "trajectory-1.bin", steps: 10, fitness: 0.5, score: judgment.score }],
    picks,
    notes: ["a <note>"],
  };
  return extra(file);
};

const folder = (name: string, content: unknown): string => {
  const dir = join(root, name);
  mkdirSync(join(dir, "frames", "1"), { recursive: true });
  writeFileSync(join(dir, "judgment.json"), JSON.stringify(content));
  return dir;
};

describe("hexa inspect of a judgment folder", () => {
  it("shows the frames and the trail as moving pictures, the tree with PASS / FAIL / SKIP, the synthesis rule, everything escaped", async () => {
    const dir = folder("plain", await fileWith());
    for (let i = 0; i < 3; i++) writeFileSync(join(dir, "frames", "1", `frame-000${i}.png`), PNG);
    writeFileSync(join(dir, "frames", "1", "trail-0000.png"), PNG);
    const input = readJudgmentPage(dir);
    expect(input.pictures.get("median")!.frames).toHaveLength(3);
    expect(input.pictures.get("median")!.trail).toHaveLength(1);
    expect(input.pictures.get("median")!.criteria).toBeUndefined();
    const html = renderJudgmentPage(input);
    expect(html).toContain("frames (3 frames)");
    expect(html).toContain("motion trail (1 frames)");
    expect(html).toContain(`src="data:image/png;base64,${PNG.toString("base64")}"`);
    expect(html).toContain('<td class="bad"><b>FAIL</b>');
    expect(html).toContain('<td class="muted"><b>SKIP</b>');
    expect(html).toContain("gated by 1");
    expect(html).toContain("code judge alone: &lt;its&gt; score stands");
    expect(html).toContain("1 &lt;b&gt;up&lt;/b&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("</script><script>alert");
    expect(html).not.toContain("Vision criteria");
  });

  it("shows a vision judge's criteria with their verdicts where a pick has them", async () => {
    const raw = (await fileWith()) as { picks: Array<Record<string, unknown>> };
    raw.picks[0]!.vision = {
      kind: "verdict",
      model: "vlm",
      score: 0.6,
      criteria: [{ criterion: "lands <upright>", status: "partially_met", assessment: "wobbles" }],
      diagnosis: "lands late",
      failureTags: [],
      criteriaSource: "asked",
      reviewRounds: 0,
      sent: { frames: 1, of: 1, trail: 0, video: false, times: [0] },
    };
    const input = readJudgmentPage(folder("vision", raw));
    expect(input.pictures.get("p10")!.criteria).toEqual([{ criterion: "lands <upright>", verdict: "partially_met", assessment: "wobbles" }]);
    const html = renderJudgmentPage(input);
    expect(html).toContain("<td>lands &lt;upright&gt;</td><td><b>partially_met</b></td><td>wobbles</td>");
  });

  it("says a disagreement nothing settled is neither passed nor failed", async () => {
    const raw = (await fileWith()) as { picks: Array<Record<string, unknown>> };
    raw.picks[0]!.synthesis = { kind: "disagree", reason: "gap", code: 0.9, vision: 0.3, rule: "disagree: <no judge model>" };
    const html = renderJudgmentPage(readJudgmentPage(folder("disagree", raw)));
    expect(html).toContain('<span class="muted">not settled</span> — synthesis (disagree): disagree: &lt;no judge model&gt;');
  });

  it("reads frames only as plain PNG files of the folder: a link, a file that is no PNG and an absolute frames path are left out or refused", async () => {
    const dir = folder("hostile", await fileWith());
    writeFileSync(join(root, "secret.png"), PNG);
    symlinkSync(join(root, "secret.png"), join(dir, "frames", "1", "frame-0000.png"));
    writeFileSync(join(dir, "frames", "1", "trail-0000.png"), "not a png");
    const pictures = readJudgmentPage(dir).pictures.get("p90")!;
    expect(pictures.frames).toEqual([]);
    expect(pictures.trail).toEqual([]);
    expect(pictures.notes).toEqual([
      "frame: frame-0000.png is not a plain file; the series stops before it",
      "trail: trail-0000.png is not a PNG; the series stops before it",
    ]);
    const outside = await fileWith((f) => ({ ...f, picks: f.picks.map((p) => ({ ...p, frames: "/etc" })) }));
    expect(() => readJudgmentPage(folder("outside", outside))).toThrow('picks[0].frames: "/etc" is not frames/1');
    expect(() => readJudgmentPage(folder("unknown", { ...(outside as object), extra: 1 }))).toThrow(/judgment\.json: \(root\): Unrecognized key: "extra"/);
  });
});
