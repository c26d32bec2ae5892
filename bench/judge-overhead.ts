/**
 * A judgment's cost with the model's time taken out (docs/benchmarks/judge-overhead.md): `hexa judge`'s work
 * (levels/reward-search/cli/judge-run.ts, in-process) on a hopper policy that stands for most of its 8 s episodes,
 * with both model roles answered at once in-process by the calibration bench's scripted models (the code judge's
 * authoring and the synthesiser: bench/judge-calibration-fixture.ts; the vision judge:
 * bench/judge-calibration-vision-model.ts). What is left is hexa's: recording the episodes, the code judge's
 * sandbox, rendering the picks' frames (480 × 480, 10 fps, written as PNG files), building the vision requests,
 * the synthesis (the agreement rule, or the synthesiser's loop and tools). Then each part alone on one episode.
 * Peak memory: Node's own, and this process with its children (chromium) sampled from /proc.
 * Frames per second alone: bench/frames.ts (docs/benchmarks/frames.md).
 *
 *   npm run bench:judge-overhead -- [--episodes 10] [--repeats 2] [--write-page]   (needs /usr/bin/chromium)
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { judgedSeeds, judgePolicy } from "../levels/reward-search/cli/judge-run.ts";
import { episodeOf } from "../levels/reward-search/cli/judge-vision.ts";
import { synthesise } from "../levels/reward-search/judging/agreement.ts";
import { authorJudge } from "../levels/reward-search/judging/author.ts";
import { breakdownLines } from "../levels/reward-search/judging/breakdown-text.ts";
import { judgeTrajectory } from "../levels/reward-search/judging/judge.ts";
import { synthesiseJudges } from "../levels/reward-search/judging/synthesiser.ts";
import { judgedFrames } from "../levels/reward-search/judging/vision-frames.ts";
import { judgeFrames } from "../levels/reward-search/judging/vision-judge.ts";
import { CHROMIUM, renderEpisodeFrames } from "../levels/reward-search/pictures/episode-frames.ts";
import { loadTask } from "../levels/reward-search/tasks/index.ts";
import { loadPolicy } from "../levels/reward-search/trainer/policy.ts";
import { recordEpisode } from "../levels/reward-search/trajectory/recorder.ts";
import { DEFAULT_MAX_IMAGES } from "../src/llm/config.ts";
import { failFlag, intFlag, parseFlags } from "./flags.ts";
import { scriptedJudgeModel } from "./judge-calibration-fixture.ts";
import { instantScriptedVision } from "./judge-calibration-vision-model.ts";
import { writeStandingHopper } from "./judge-overhead-policy.ts";
import { recordPage } from "./page.ts";
import { cpuSeconds, sampleTreeMemory } from "./process-tree.ts";

recordPage("judge-overhead");

const SCRIPT = "bench/judge-overhead.ts";
const flags = parseFlags(SCRIPT, { episodes: "10", repeats: "2" });
const EPISODES = intFlag(SCRIPT, "episodes", flags.episodes);
const REPEATS = intFlag(SCRIPT, "repeats", flags.repeats);
if (!existsSync(CHROMIUM)) failFlag(`${CHROMIUM} not found: install Debian's chromium`);

const FPS = 10;
const SIZE = 480;
const limits = { maxImages: DEFAULT_MAX_IMAGES, video: false };
const MiB = 1 << 20;
const dir = mkdtempSync(join(tmpdir(), "hexa-judge-overhead-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const hopper = await loadTask("hopper");
await hopper.prepare?.();
const policyFile = join(dir, "policy.json");
const greedy = loadPolicy(writeStandingHopper(hopper, policyFile));
const judgeModel = scriptedJudgeModel("hopper");
const visionModel = instantScriptedVision();

const seconds = async <T>(f: () => Promise<T> | T): Promise<[number, T]> => {
  const t0 = performance.now();
  const out = await f();
  return [(performance.now() - t0) / 1000, out];
};

/** One whole judgment, as `hexa judge --judge-model … --vision-model …` makes it, the models instant. */
const wholeJudgment = async (r: number) => {
  const out = join(dir, `judgment-${r}`);
  const cpu0 = cpuSeconds();
  const [s, j] = await seconds(() =>
    judgePolicy({
      task: "hopper",
      policy: policyFile,
      episodes: EPISODES,
      out,
      author: { model: async () => judgeModel },
      vision: { model: async () => ({ model: visionModel, limits }), trail: false },
    }),
  );
  const picks = j.file.picks;
  const cpu1 = cpuSeconds();
  const children = cpu0.children === null || cpu1.children === null ? null : cpu1.children - cpu0.children;
  return {
    s,
    own: cpu1.own - cpu0.own,
    children,
    steps: j.file.episodes.map((e) => e.steps),
    seeds: new Set(picks.map((p) => p.seed)).size,
    kinds: picks.map((p) => p.synthesis?.kind ?? "none"),
  };
};

const memory = sampleTreeMemory();
const whole: Awaited<ReturnType<typeof wholeJudgment>>[] = [];
for (let r = 0; r < REPEATS; r++) whole.push(await wholeJudgment(r));
const treePeak = memory.stop();
const nodePeak = process.resourceUsage().maxRSS * 1024;

/** Each part alone on the first judged episode, `REPEATS` times. */
const seed = judgedSeeds({ episodes: 1 }, hopper.generate(0))[0]!;
const instance = hopper.generate(0);
const parts: Record<string, number[]> = {};
const time = async <T>(name: string, f: () => Promise<T> | T): Promise<T> => {
  const [s, out] = await seconds(f);
  (parts[name] ??= []).push(s);
  return out;
};
let frames = 0;
for (let r = 0; r < REPEATS; r++) {
  const record = await time("record the episode (trajectory)", () => recordEpisode({ task: hopper, instance, seed, act: (obs) => greedy.act(obs, 1) }));
  const store = join(dir, `store-${r}`);
  mkdirSync(store);
  const authored = await time("author the code judge (model instant; validation rollout, sandbox)", () =>
    authorJudge({ model: judgeModel, intent: hopper.description, task: hopper, store }),
  );
  if (!authored.ok) throw new Error(`${SCRIPT}: the scripted judge did not author: ${authored.label}`);
  const code = await time("code judge on the episode (sandbox)", () => judgeTrajectory(authored.judge, `seed-${seed}`, record));
  const episode = await episodeOf(record);
  const rendered = await time(`render its frames (${SIZE} × ${SIZE}, ${FPS} fps, browser start included)`, () =>
    renderEpisodeFrames(episode.scene, record, { fps: FPS, size: SIZE, trail: false }),
  );
  frames = rendered.frames.length;
  const request = { intent: hopper.description, ...judgedFrames(rendered), context: episode.context };
  const vision = await time("vision judge, both turns (model instant)", () => judgeFrames(visionModel, request, { limits, dir: join(dir, `criteria-${r}`) }));
  const score = vision.kind === "verdict" ? vision.score : null;
  await time("agreement rule (synthesis arithmetic)", () => synthesise({ code: code.score, vision: score }));
  const judges = {
    intent: hopper.description,
    record,
    code: { score: code.score, breakdown: breakdownLines(code) },
    vision: { score: code.score >= 0.5 ? 0 : 1 },
  };
  await time("synthesiser on a disagreement (model instant; its trajectory check run, reask answered at once)", () =>
    synthesiseJudges(judges, { model: judgeModel, reaskVision: async () => "not asked in this timing" }),
  );
}

/** The middle value, or the mean of the two middle values. */
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f2 = (x: number) => x.toFixed(2);
const ms = (s: number) => (s * 1000 < 1 ? `${(s * 1e6).toFixed(0)} µs` : `${(s * 1000).toFixed(1)} ms`);
const lines = [
  `hopper, a standing policy (bench/judge-overhead-policy.ts), ${EPISODES} episodes judged, p10 / median / p90 picks; both model roles scripted and instant, in-process`,
  `episode steps: ${whole[0]!.steps.join(", ")} (1000 is the 8 s time limit)`,
  "",
  "| whole judgment (hexa judge in-process) | wall s | CPU s, Node | CPU s, chromium |",
  "|---|---:|---:|---:|",
  ...whole.map(
    (w, r) =>
      `| repeat ${r + 1}: ${w.seeds} distinct picks rendered and judged, syntheses ${w.kinds.join(", ")} | ${f2(w.s)} | ${f2(w.own)} | ${w.children === null ? "–" : f2(w.children)} |`,
  ),
  "CPU s: what the work itself cost, which a loaded machine changes less than the wall time; chromium's counts its processes once they ended",
  "",
  `peak memory over the judgments: Node ${(nodePeak / MiB).toFixed(0)} MiB (its own maxRSS); with its children (chromium) ${treePeak === null ? "not measured (no /proc)" : `${(treePeak / MiB).toFixed(0)} MiB`} (sampled every 100 ms)`,
  "",
  `| part, alone, on one episode (seed ${seed}, ${frames} frames) | median of ${REPEATS} | min | max |`,
  "|---|---:|---:|---:|",
  ...Object.entries(parts).map(([name, xs]) => `| ${name} | ${ms(median(xs))} | ${ms(Math.min(...xs))} | ${ms(Math.max(...xs))} |`),
  "",
  `frames/s in that rendering, browser start included: ${(frames / median(parts[`render its frames (${SIZE} × ${SIZE}, ${FPS} fps, browser start included)`]!)).toFixed(2)}; without it: docs/benchmarks/frames.md`,
];
process.stdout.write(`${lines.join("\n")}\n`);
