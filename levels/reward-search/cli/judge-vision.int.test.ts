import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeEndpoint, type FakeEndpoint } from "../../../test/support/fake-endpoint.ts";
import { startFakeOpenAI } from "../../../test/support/fake-openai-server.ts";
import { hexa } from "../../../test/support/hexa-cli.ts";
import { CHROMIUM } from "../pictures/episode-frames.ts";
import { getTask } from "../tasks/index.ts";
import { policyLayout, serializePolicy } from "../trainer/policy.ts";
import { JudgmentFile } from "./judge-file.ts";

/**
 * `hexa judge` on hopper with both model roles, each a local OpenAI-compatible server: llm.judge authors the code
 * judge and settles a disagreement, llm.vision judges 42 rendered frames of each of two 4.24 s episodes. The
 * first episode the vision judge sees agrees with the code judge (no synthesiser call); the second disagrees, and
 * the synthesiser's reask_vision reaches the vision server with the asked window rendered at the source rate.
 * Then `hexa verify` replays all of it from the folder's log.
 */
const dir = mkdtempSync(join(tmpdir(), "hexa-judge-vision-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const suite = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`${CHROMIUM} not found: hexa judge's vision test skipped (apt-get install -y chromium)`);

const INTENT = "stand on one leg without falling for 4 s";
const STEPS = 530;

/**
 * A hopper policy that stands (written once, in the test folder): greedy action tanh(K · obs), a feedback law on the torso angle and the joints,
 * written into the MLP (the first layer passes the observation on, scaled into tanh's linear range).
 */
const standingPolicy = (): string => {
  const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 16, shared: false });
  const K = [
    [0, 0, -1.3, 0, 0, 0, 0, -1.4, -0.1, 0, 0],
    [0, -0.7, 0, 1.6, 0, 0, 0, -1.8, 0, -0.1, 0],
    [0, -0.4, 0, 0, -2.2, 0, 0, -0.2, 0, 0, -0.1],
  ];
  const theta = new Float32Array(layout.size);
  const at = (name: string) => layout.params.find((q) => q.name === name)!.offset;
  const eps = 1e-3;
  for (let i = 0; i < 11; i++) theta[at("pi.w1") + i * 16 + i] = eps;
  for (let j = 0; j < 3; j++) for (let i = 0; i < 11; i++) theta[at("pi.w2") + i * 16 + j] = K[j]![i]! / eps;
  for (let j = 0; j < 3; j++) theta[at("pi.w3") + j * 3 + j] = 1;
  const path = join(dir, "job", "policy.json");
  if (existsSync(path)) return path;
  mkdirSync(join(dir, "job"));
  writeFileSync(
    path,
    JSON.stringify({ task: "hopper", instance: getTask("hopper").generate(0), seed: 0, steps: 0, policy: serializePolicy(layout, theta, null) }),
  );
  return path;
};

const TREE = {
  order: "independent",
  children: [
    { id: "1", name: "stays up", metric: "min torso z over all steps", threshold: "> 0.8 m", partial: "z / 0.8", mustKeep: true },
    { id: "2", name: "lasts 4 s", metric: "steps × dt", threshold: ">= 4 s", partial: "time / 4 s" },
  ],
};
const CODE = `function judge(traj) {
  const torso = traj.header.bodies.findIndex((b) => b.name === "torso");
  let minZ = Infinity;
  for (let t = 0; t < traj.steps; t++) minZ = Math.min(minZ, traj.row("xpos", t)[3 * torso + 2]);
  const time = traj.steps * traj.dt;
  return [
    { id: "1", value: minZ, score: minZ > 0.8 ? 1 : Math.max(0, minZ / 0.8), passed: minZ > 0.8, note: "lowest torso z" },
    { id: "2", value: time, score: Math.min(1, time / 4), passed: time >= 4, note: "seconds up" },
  ];
}`;

const CRITERIA = ["The hopper stays upright", "It stands in place", "It does not fall"];
const verdictReply = (score: number) =>
  JSON.stringify({
    criteria: CRITERIA.map((criterion, i) => ({ criterion, assessment: `seen in frame ${i + 1}`, status: score > 0.5 ? "met" : "not_met" })),
    intent_score: score,
    diagnosis: score > 0.5 ? "It stands." : "It seems to sag.",
    failure_tags: score > 0.5 ? [] : ["sagging"],
  });
/** The first episode's verdict agrees with the code judge's 1.0; the second's does not. */
const visionServer = (): Promise<FakeEndpoint> => {
  const verdicts = [0.9, 0.3];
  const replies: Record<string, () => string> = {
    vision_criteria: () => JSON.stringify({ criteria: CRITERIA }),
    vision_review: () => JSON.stringify({ approved: true }),
    vision_verdict: () => verdictReply(verdicts.shift()!),
    vision_answer: () => JSON.stringify({ answer: "The torso stays level in every frame of the window." }),
  };
  return startFakeEndpoint({ delayMs: 1, reply: (b) => replies[(b.response_format as { json_schema: { name: string } }).json_schema.name]!() });
};

type Part = { type: string; text?: string };
const partsOf = (body: { messages: Array<Record<string, unknown>> }): Part[] =>
  body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Part[]) : []));
const images = (body: { messages: Array<Record<string, unknown>> }) => partsOf(body).filter((p) => p.type === "image_url").length;
const frameTimes = (body: { messages: Array<Record<string, unknown>> }) =>
  partsOf(body).flatMap((p) => [...(p.text ?? "").matchAll(/Frame \d+ \(t = ([\d.]+) s\)/g)].map((m) => Number(m[1])));
const schemaName = (body: Record<string, unknown>) => (body.response_format as { json_schema?: { name: string } } | undefined)?.json_schema?.name;

/**
 * `hexa verify` of the judged folder, the servers stopped: the authoring, the vision judge (frames read back from
 * frames/<seed>/) and the synthesiser (its reask_vision window rendered again) replayed from llm-log.jsonl; then a
 * copy whose first vision verdict (the agreeing one) was changed in the log diverges, naming the field.
 */
const verifyReplaysVision = async (judgment: string): Promise<void> => {
  const copy = join(dir, "tampered");
  cpSync(judgment, copy, { recursive: true });
  const log = readFileSync(join(copy, "llm-log.jsonl"), "utf8");
  writeFileSync(join(copy, "llm-log.jsonl"), log.replace("It stands.", "It stands still."));
  // Each replay renders frames again: the two run side by side.
  const [same, changed] = await Promise.all([hexa(["verify", judgment]), hexa(["verify", copy])]);
  expect(same.stdout, same.stderr).toContain("identical: 2 trajectories re-judged");
  expect(same.stdout).toContain("11 model exchanges");
  expect(same.status).toBe(0);

  expect(changed.stdout, changed.stderr).toMatch(/diverged: judgment\.json\n {2}field: {4}picks\[0\]\.vision\.diagnosis/);
  expect(changed.status).toBe(1);
};

suite("hexa judge with a judge model and a vision model on hopper", () => {
  it("authors the code judge, judges 42 frames per episode, agrees on one, settles the other with reask_vision", async () => {
    const judgeServer = await startFakeOpenAI();
    const vision = await visionServer();
    try {
      const usage = { prompt: 3000, completion: 400 };
      const json = JSON.stringify;
      judgeServer.push(
        ...[json({ criteria: TREE }), json({ change: false, findings: "complete" }), json({ code: CODE }), json({ loophole: false, findings: "none" })].map(
          (text) => ({ text, usage }),
        ),
        { usage, toolCalls: [{ name: "reask_vision", args: { question: "Does the torso sag between 1 and 1.2 s?", from_s: 1, to_s: 1.2 } }] },
        { usage, text: json({ score: 0.95, passed: true, sided_with: "code", rotation: false, reason: "the closer look shows it standing" }) },
      );
      const args = ["judge", "--task", "hopper", "--policy", standingPolicy(), "--seed", "1", "--seed", "2", "--max-steps", String(STEPS), "--intent", INTENT];
      const models = ["--judge-model", "judge-m", "--judge-base-url", judgeServer.url, "--vision-model", "vlm", "--vision-base-url", vision.url];
      const out = await hexa([...args, ...models, "--vision-max-images", "50"]);
      expect(out.stderr).not.toMatch(/error/i);
      expect(out.status).toBe(0);

      const judgment = join(dir, "job", "judgment");
      const file = JudgmentFile.parse(JSON.parse(readFileSync(join(judgment, "judgment.json"), "utf8")));
      expect(file).toMatchObject({ schemaVersion: 2, intent: INTENT, judge: { kind: "code" }, vision: { model: "vlm", trail: false, maxImages: 50 } });
      expect(file.episodes.map((e) => [e.steps, e.score])).toEqual([
        [STEPS, 1],
        [STEPS, 1],
      ]);
      const [p10, median, p90] = file.picks;
      expect(p10!.seed).not.toBe(median!.seed);
      expect(p10!.synthesis).toMatchObject({ kind: "agree", code: 1, vision: 0.9 });
      expect(p10!.vision).toMatchObject({
        kind: "verdict",
        score: 0.9,
        sent: { frames: 42, of: 42 },
        criteria: CRITERIA.map((criterion) => ({ criterion, status: "met" })),
      });
      for (const p of [median!, p90!]) {
        expect(p.vision).toMatchObject({ kind: "verdict", score: 0.3, failureTags: ["sagging"] });
        expect(p.synthesis).toMatchObject({ kind: "settled", score: 0.95, sidedWith: "code", model: "judge-m" });
        const calls = p.synthesis.kind === "settled" ? p.synthesis.toolCalls : [];
        expect(calls.map((c) => [c.name, c.status])).toEqual([["reask_vision", "ran"]]);
        expect(calls[0]!.result).toMatch(/^The torso stays level in every frame of the window\. \(seen in 26 frames from 1 s to 1\.2 s\)/);
      }

      // Vision: criteria on one frame, its review, a verdict per episode (42 ordered frames), then the re-asked window.
      expect(vision.requests.map((r) => schemaName(r.body))).toEqual(["vision_criteria", "vision_review", "vision_verdict", "vision_verdict", "vision_answer"]);
      expect(images(vision.requests[0]!.body)).toBe(1);
      for (const r of vision.requests.slice(2, 4)) {
        const times = frameTimes(r.body);
        expect(images(r.body)).toBe(42);
        expect(times).toHaveLength(42);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(JSON.stringify(r.body.messages)).toContain("forward direction runs to the right of the picture");
      }
      const window = vision.requests[4]!.body;
      expect(images(window)).toBe(26);
      expect(frameTimes(window).every((t) => t >= 1 && t <= 1.2)).toBe(true);
      expect(JSON.stringify(window.messages)).toContain("Does the torso sag between 1 and 1.2 s?");

      // Judge: four authoring calls, no call for the agreeing episode, two for the disagreement (its tool call, then the verdict).
      expect(judgeServer.requests).toHaveLength(6);
      expect(judgeServer.requests[4]!.body.tools?.map((t) => t.function.name)).toContain("reask_vision");
      const log = readFileSync(join(judgment, "llm-log.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { role: string });
      expect(log.map((l) => l.role).sort()).toEqual([...Array(6).fill("judge"), ...Array(5).fill("vision")]);

      expect(out.stdout).toContain(`${p10!.pick}: seed ${p10!.seed}`);
      expect(out.stdout).toMatch(/agreement rule: agree: code 1 and vision 0\.9/);
      expect(out.stdout).toMatch(/synthesiser \(judge-m\): settled, score 0\.950, passed, sided with code/);
      expect(out.stdout).toMatch(/vision judge \(vlm\): score 0\.3 from 42 of 42 frames/);
      expect(out.stdout).toMatch(/criterion 1 NOT_MET: The hopper stays upright: seen in frame 1/);
      expect(out.stdout).toMatch(/1 stays up PASS/);
      expect(existsSync(join(judgment, "frames", String(p10!.seed), "frame-0041.png"))).toBe(true);
    } finally {
      await judgeServer.close();
      await vision.close();
    }
    await verifyReplaysVision(join(dir, "job", "judgment"));
  }, 300_000);

  it("an intent with the vision judge alone: the picks by F, the vision judge's score stands alone, labelled", async () => {
    const vision = await startFakeEndpoint({
      delayMs: 1,
      reply: (b) =>
        schemaName(b) === "vision_criteria"
          ? JSON.stringify({ criteria: CRITERIA })
          : schemaName(b) === "vision_review"
            ? '{"approved": true}'
            : verdictReply(0.3),
    });
    try {
      const out = join(dir, "alone");
      const args = ["judge", "--task", "hopper", "--policy", standingPolicy(), "--episodes", "1", "--max-steps", "30", "--intent", INTENT, "--out", out];
      const run = await hexa([...args, "--vision-model", "vlm", "--vision-base-url", vision.url]);
      expect(run.status).toBe(0);
      const file = JudgmentFile.parse(JSON.parse(readFileSync(join(out, "judgment.json"), "utf8")));
      expect(file).toMatchObject({ intent: INTENT, judge: { kind: "fitness" }, vision: { model: "vlm" } });
      expect(file.picks[0]!.synthesis).toMatchObject({ kind: "single", judge: "vision", score: 0.3, passed: false });
      expect(run.stdout).toMatch(/agreement rule: single: vision judge alone: its score 0\.3 stands/);
      expect(vision.requests).toHaveLength(3);
    } finally {
      await vision.close();
    }
    // The server stopped, hexa verify replays the vision judge alone from the log: no code judge, the intent the vision judge's.
    const verified = await hexa(["verify", join(dir, "alone")]);
    expect(verified.stdout, verified.stderr).toContain("identical: 1 trajectory re-judged");
    expect(verified.stdout).toContain("3 model exchanges");
  }, 120_000);
});
