import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { breakdownLines } from "./breakdown-text.ts";
import { parseCriteria } from "./criteria.ts";
import { tinyRecord } from "./fixtures/tiny-record.ts";
import { judgeTrajectory, makeJudge, reviseJudge } from "./judge.ts";
import { loadJudge, loadJudgment, rescore, saveJudge, saveJudgment } from "./judge-store.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-judge-store-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const leaf = (id: string, extra: object = {}) => ({ id, name: `leaf ${id}`, metric: "m", threshold: "t", partial: "p", ...extra });
const tree = parseCriteria({ order: "independent", children: [leaf("1"), leaf("2", { mustKeep: true })] });
/** Travel of the torso over the episode, wanted 2 m (v1) or 1 m (v2); leaf 2: it stayed above 0.5 m. */
const code = (wanted: number) => `function judge(traj) {
  const last = traj.steps - 1, travel = traj.xpos[last * traj.width.xpos + 3] - traj.initial.xpos[3];
  return [{ id: "1", value: travel, score: Math.min(1, travel / ${wanted}), passed: travel >= ${wanted} - 1e-9, note: "" },
          { id: "2", value: traj.xpos[5], score: 1, passed: true, note: "" }];
}`;
const v1 = makeJudge("walk_forward", { intent: "walk forward 2 m", tree, code: code(2) });
const fresh = () => mkdtempSync(join(root, "s-"));

describe("versioned judges", () => {
  it("judges an episode: the code measures leaves, hexa scores the tree", async () => {
    const j = await judgeTrajectory(v1, "ep0", tinyRecord());
    expect(j.score).toBeCloseTo(0.5 * 0.5 + 0.5);
    expect(j.judge).toEqual({ id: "walk_forward", version: 1, hash: v1.hash });
  });

  it("a fault in the judge's code scores 0 with its tag, and the judgment says so", async () => {
    const broken = reviseJudge(v1, { code: "function judge() { for (;;) {} }" });
    const j = await judgeTrajectory(broken, "ep0", tinyRecord(), { cpuMs: 50 });
    expect(j).toMatchObject({ score: 0, fault: { tag: "timeout" } });
    expect(j.nodes.map((n) => n.leaf?.result.tags)).toEqual([["timeout"], ["timeout"]]);
  });

  it("re-scoring with a revised judge writes a new judgment and leaves the old one byte for byte", async () => {
    const dir = fresh();
    const episodes = [{ trajectory: "ep0", record: tinyRecord() }];
    const [old] = await rescore(dir, v1, episodes);
    const oldPath = join(dir, "judgments", "ep0", "walk_forward@v1.json");
    const before = readFileSync(oldPath, "utf8");
    const v2 = reviseJudge(v1, { code: code(1) });
    expect([v2.version, v2.hash === v1.hash]).toEqual([2, false]);
    const [next] = await rescore(dir, v2, episodes);
    expect([old!.score, next!.score]).toEqual([expect.closeTo(0.75, 9), 1]);
    expect(readFileSync(oldPath, "utf8")).toBe(before);
    expect(loadJudgment(dir, "ep0", "walk_forward", 1)).toEqual(old);
    expect(loadJudgment(dir, "ep0", "walk_forward", 2)).toEqual(next);
    expect(loadJudge(dir, "walk_forward", 2)).toEqual(v2);
  });

  it("refuses to store another content under a stored version", () => {
    const dir = fresh();
    saveJudge(dir, v1);
    saveJudge(dir, v1);
    const other = makeJudge("walk_forward", { intent: "walk forward 3 m", tree, code: code(3) });
    expect(() => saveJudge(dir, other)).toThrow(/already stored with another hash; revise it to a new version/);
  });

  it("reads back validated: an edited file (hash) or a broken one (schema) is refused naming the file and field", () => {
    const dir = fresh();
    const path = saveJudge(dir, v1);
    writeFileSync(path, JSON.stringify({ ...v1, code: code(0.1) }));
    expect(() => loadJudge(dir, "walk_forward", 1)).toThrow(/v1\.json: hash .* does not match the judge's intent, tree and code/);
    writeFileSync(path, JSON.stringify({ ...v1, version: "1" }));
    expect(() => loadJudge(dir, "walk_forward", 1)).toThrow(/v1\.json: version: /);
  });

  it("a stored judgment reads back equal; one edited out of range is refused naming the field", async () => {
    const dir = fresh();
    const j = await judgeTrajectory(v1, "ep1", tinyRecord());
    const path = saveJudgment(dir, j);
    expect(loadJudgment(dir, "ep1", "walk_forward", 1)).toEqual(j);
    expect(breakdownLines(loadJudgment(dir, "ep1", "walk_forward", 1))).toEqual([
      "score 0.750 (top level independent)",
      "1 leaf 1 FAIL [0.250/0.500] value 1",
      "2 leaf 2 PASS (must keep) [0.500/0.500] value 1",
    ]);
    writeFileSync(path, JSON.stringify({ ...j, score: 7 }));
    expect(() => loadJudgment(dir, "ep1", "walk_forward", 1)).toThrow(/walk_forward@v1\.json: score: /);
  });

  it("never writes where an id points: a path in a judge id or trajectory name is refused", async () => {
    expect(() => makeJudge("../evil", { intent: "x", tree, code: "x" })).toThrow(/id/);
    await expect(rescore(fresh(), v1, [{ trajectory: "../../etc", record: tinyRecord() }])).rejects.toThrow(/trajectory: "\.\.\/\.\.\/etc" must be/);
  });
});
