import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeEndpoint, type FakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { hexa, spawnHexa } from "../../../test/support/hexa-cli.ts";
import { firstDifference } from "../../../src/verify/compare-values.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";

/**
 * An intent search (`hexa search --env hopper --intent …`, p2p, scripted judges) killed with SIGKILL in its first
 * iteration, once a checkpoint's judgment is on disk but before the iteration ends, then `--resume`d: its search
 * folder is the uninterrupted search's file for file (paths and the clock aside), and `hexa verify` says identical
 * with the server stopped.
 */
const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-intent-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const suite = existsSync(CHROMIUM) ? describe : describe.skip;

const INTENT = "stay alive for a long time";
const TREE = { order: "independent", children: [{ id: "1", name: "alive", metric: "seconds recorded", threshold: ">= 100 s", partial: "time / 100 s" }] };
const CODE = `function judge(traj) {
  const time = traj.steps * traj.dt;
  return [{ id: "1", value: time, score: Math.min(1, time / 100), passed: time >= 100, note: "seconds" }];
}`;
const CRITERIA = ["The hopper stays upright", "It keeps its balance", "It does not fall over", "It hops forward", "It lands on its foot"];
const REPLIES: Record<string, string> = {
  judge_decomposition: JSON.stringify({ criteria: TREE }),
  judge_decomposition_review: JSON.stringify({ change: false, findings: "complete" }),
  judge_code: JSON.stringify({ code: CODE }),
  judge_loophole_review: JSON.stringify({ loophole: false, findings: "none" }),
  vision_criteria: JSON.stringify({ criteria: CRITERIA }),
  vision_review: JSON.stringify({ approved: true }),
  vision_verdict: JSON.stringify({
    criteria: CRITERIA.map((criterion) => ({ criterion, assessment: "not seen for long", status: "not_met" })),
    intent_score: 0,
    diagnosis: "It falls.",
    failure_tags: ["falls"],
  }),
};

const server = (): Promise<FakeEndpoint> =>
  startFakeEndpoint({ delayMs: 1, reply: (b) => REPLIES[(b.response_format as { json_schema: { name: string } }).json_schema.name]! });

/** One iteration of two configs on one seed, one trainer process: two trainings, four judged checkpoints. */
const searchArgs = (out: string, cache: string, url: string) => [
  "search",
  "--env",
  "hopper",
  "--intent",
  INTENT,
  "--strategy",
  "p2p",
  "--budget",
  "2",
  "--configs",
  "2",
  "--train-seeds",
  "1",
  "--train-steps",
  "4096",
  "--judged-steps",
  "40",
  "--out",
  out,
  "--trainer-cache",
  cache,
  "--processes",
  "1",
  ...["--judge-model", "judge-m", "--judge-base-url", url, "--vision-model", "vision-m", "--vision-base-url", url, "--vision-max-images", "4"],
];

/**
 * The files a search folder holds, relative; the exchanges and the record of its starts are the clock's and the
 * kill's, not the search's, and report.html is the page drawn from the records at the end (its folder, its time).
 */
const CLOCK_FILES = new Set(["llm-log.jsonl", "search-config.json", "report.html"]);
const filesOf = (root: string, at = root): string[] =>
  readdirSync(at).flatMap((n) => {
    const p = join(at, n);
    if (statSync(p).isDirectory()) return filesOf(root, p);
    return CLOCK_FILES.has(n) ? [] : [relative(root, p)];
  });

/**
 * A file's content as compared: JSON with its folder's own path written as DIR, each trainer job's folder without
 * the trainer process's id (`p2p-it0-c0-s0-<pid>-<n>`) and a training's feedback without its wall time ("4,096 env
 * steps in 8.7 s"), which differ between two processes as a clock does; other files as bytes.
 */
const contentOf = (root: string, file: string): unknown => {
  const buf = readFileSync(join(root, file));
  if (!/\.jsonl?$/.test(file)) return buf.toString("base64");
  const text = buf
    .toString("utf8")
    .replaceAll(root, "DIR")
    .replace(/(\.trainer-jobs\/[^/"]+?)-\d+-\d+\//g, "$1-PID/")
    .replace(/ env steps in [\d.]+ s\b/g, " env steps in T s");
  return file.endsWith(".jsonl")
    ? text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown)
    : (JSON.parse(text) as unknown);
};

const firstJudgment = (out: string) =>
  existsSync(join(out, "judgments")) && readdirSync(join(out, "judgments")).some((d) => existsSync(join(out, "judgments", d, "judgment.json")));

const iterationsOf = (out: string) =>
  existsSync(join(out, "iterations.jsonl")) ? readFileSync(join(out, "iterations.jsonl"), "utf8").trim().split("\n").filter(Boolean).length : 0;

suite("an intent search killed with SIGKILL mid-iteration", () => {
  it("resumes to the uninterrupted search's files, and verifies identical offline", async () => {
    const s = await server();
    const whole = join(dir, "whole");
    const killed = join(dir, "killed");
    try {
      const a = await hexa(searchArgs(whole, join(dir, "cache-whole"), s.url));
      expect(a.status, a.stderr).toBe(0);
      expect(a.stdout).toContain("1 iterations, 2 trainings (2 trained now)");

      const first = spawnHexa(searchArgs(killed, join(dir, "cache-killed"), s.url), { detached: true });
      const started = Date.now();
      while (!firstJudgment(killed) && Date.now() - started < 300_000) await new Promise((r) => setTimeout(r, 20));
      process.kill(-first.child.pid!, "SIGKILL");
      expect((await first.done).signal).toBe("SIGKILL");
      // Killed inside the first iteration: a checkpoint judged, the iteration not finished.
      expect(firstJudgment(killed)).toBe(true);
      expect(iterationsOf(killed)).toBe(0);

      const b = await hexa(["search", "--resume", killed, "--processes", "1"]);
      expect(b.status, b.stderr).toBe(0);
      expect(b.stdout).toContain("1 iterations, 2 trainings");
    } finally {
      await s.close();
    }
    const files = filesOf(whole).sort();
    expect(filesOf(killed).sort()).toEqual(files);
    // Field by field, the clock's fields (wall times, timestamps) aside as hexa verify leaves them.
    for (const f of files) expect(firstDifference(contentOf(whole, f), contentOf(killed, f)), f).toBeUndefined();

    const verified = await hexa(["verify", killed, "--trainer-cache", join(dir, "cache-killed")]);
    expect(verified.stdout, verified.stderr).toMatch(/^identical: /);
  }, 900_000);
});
