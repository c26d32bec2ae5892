import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { episodeId, RunDir } from "../store/run-dir.ts";
import { localBackend, type EpisodeBackend, type EpisodeJob, type EpisodeResult } from "./episode-backend.ts";
import { parseRunConfig, runConfigYaml } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";
import { schedule } from "./schedule.ts";

/**
 * Levels advance independently over one pool (docs/ARCHITECTURE.md §4): a fast level runs rounds ahead of a slow
 * one, yet the run's files are those of a sequential run. Episodes play for real (heuristic agent and evolver);
 * each is held back by a fixed delay per level and seed, so they finish out of order, and its clock readings are
 * replaced by that delay, so the files can be compared byte for byte.
 */

const SLOW = "two_body_problem";
const FAST = "down_to_earth";
const LEVELS = [SLOW, FAST];
const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const clock = () => 0;
const cfgOf = (concurrency: number) =>
  parseRunConfig(
    {
      family: "interphyre",
      levels: LEVELS,
      agent: "heuristic",
      evolver: "heuristic",
      init: "off2on",
      update: "evolving",
      rounds: 3,
      episodesPerRound: 3,
      concurrency,
      offline: { episodes: 3 },
    },
    "cfg",
  );
const plan = schedule(cfgOf(1), family);

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const newDir = () => {
  const root = mkdtempSync(join(tmpdir(), "hexa-pipeline-"));
  roots.push(root);
  return RunDir.create(root, "run", runConfigYaml(cfgOf(1)), new Date(0));
};

/** The slow level's episodes take 40–56 ms, the fast one's 0–16 ms; later seeds of a round finish first. */
const delayOf = (job: EpisodeJob) => (job.level === SLOW ? 40 : 0) + (2 - (plan.get(job.level)!.rounds.flat().indexOf(job.seed) % 3)) * 8;

/**
 * Episodes are deterministic given their bank, so each (episode, bank) is played once for real and then answered
 * from the cache: the delays, not the physics, decide the order they finish in. A wrong bank misses the cache and
 * plays for real, so it still shows in the files.
 */
const played = new Map<string, EpisodeResult>();
const paced = (concurrency: number, onStart: (job: EpisodeJob) => void = () => undefined): EpisodeBackend => {
  const local = localBackend(cfgOf(concurrency), { family, now: clock });
  // The slow level's round 1 holds until the fast level starts round 3, or for 3 s: a lockstep loop never gets there.
  let fastAhead: () => void = () => undefined;
  const ahead = new Promise<void>((resolve) => (fastAhead = resolve));
  return {
    play: async (job, onUsage) => {
      onStart(job);
      if (job.level === FAST && job.round === 3) fastAhead();
      const key = `${job.id} ${JSON.stringify(job.bank)}`;
      const result = played.get(key) ?? (await local.play(job, onUsage));
      played.set(key, result);
      const ms = delayOf(job);
      await new Promise((r) => setTimeout(r, ms));
      if (concurrency > 1 && job.level === SLOW && job.round === 1) await Promise.race([ahead, new Promise((r) => setTimeout(r, 3000))]);
      return { ...result, trajectory: { ...result.trajectory, wallMs: ms, steps: result.trajectory.steps.map((s) => ({ ...s, ms: 0 })) } };
    },
  };
};

/** Every file the loop writes, as bytes. */
const filesOf = (dir: RunDir): Record<string, string> => {
  const read = (f: string) => readFileSync(join(dir.path, f), "utf8");
  const banks = readdirSync(join(dir.path, "banks")).map((f) => [`banks/${f}`, read(`banks/${f}`)] as const);
  return {
    "episodes.jsonl": read("episodes.jsonl"),
    "bank-events.jsonl": read("bank-events.jsonl"),
    "metrics.json": read("metrics.json"),
    ...Object.fromEntries(banks),
  };
};
const lines = (text: string) => text.split("\n").filter(Boolean);
const commitsOf = (text: string) =>
  lines(text).flatMap((l) => {
    const x = JSON.parse(l) as { level: string; commit?: { round: number } };
    return x.commit ? [`${x.level}@${x.commit.round}`] : [];
  });

/** The order a sequential run writes: offline episodes level by level, then per round each level's seeds. */
const sequentialIds = [
  ...LEVELS.flatMap((l) => plan.get(l)!.offline.map((s) => episodeId("offline", l, 0, s))),
  ...[1, 2, 3].flatMap((r) => LEVELS.flatMap((l) => plan.get(l)!.rounds[r - 1]!.map((s) => episodeId("stream", l, r, s)))),
];
const sequentialCommits = [0, 1, 2, 3].flatMap((r) => LEVELS.map((l) => `${l}@${r}`));

const whole = async (concurrency: number, starts: string[] = []) => {
  const dir = newDir();
  await runLoop(cfgOf(concurrency), { family, dir, now: clock, episodes: paced(concurrency, (job) => starts.push(job.id)) });
  return filesOf(dir);
};
const one = whole(1);

describe("levels pipelined over a shared pool", () => {
  it("with four episodes in flight, the fast level runs rounds ahead, and the files are byte for byte those of one at a time", async () => {
    const sequential = await one;
    const starts: string[] = [];
    const four = await whole(4, starts);
    // Pipelined: the fast level's round 3 starts before the slow level's round 2 does (lockstep never allows it).
    const first = (prefix: string) => starts.findIndex((id) => id.startsWith(prefix));
    expect(first(`stream/${FAST}/r3/`)).toBeGreaterThanOrEqual(0);
    expect(first(`stream/${FAST}/r3/`)).toBeLessThan(first(`stream/${SLOW}/r2/`));
    expect(Object.keys(four).sort()).toEqual(Object.keys(sequential).sort());
    for (const [f, text] of Object.entries(sequential)) expect(four[f], f).toBe(text);
  });

  it("writes episodes and bank commits in the order of a sequential, lockstep run", async () => {
    const sequential = await one;
    expect(lines(sequential["episodes.jsonl"]!).map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(sequentialIds);
    expect(commitsOf(sequential["bank-events.jsonl"]!)).toEqual(sequentialCommits);
    // The banks learned something, so a bank shown to the wrong round would change the files.
    const final = JSON.parse(sequential["banks/round-03.json"]!) as { banks: Record<string, { skills: unknown[] }> };
    for (const l of LEVELS) expect(final.banks[l]!.skills.length, l).toBeGreaterThan(0);
  });

  it("stopped while the levels are at different rounds, keeps each level's progress, and a resume ends with the same run", async () => {
    const dir = newDir();
    const ctl = new AbortController();
    const reason = new Error("interrupted");
    // Stopped as the fast level starts round 3: the slow one is still playing round 1.
    const stopAhead = (job: EpisodeJob) => job.level === FAST && job.round === 3 && ctl.abort(reason);
    const run = runLoop(cfgOf(4), { family, dir, now: clock, episodes: paced(4, stopAhead), signal: ctl.signal });
    await expect(run).rejects.toBe(reason);
    const committed = [...dir.bankLog({ repair: false }).done];
    const roundsOf = (level: string) => committed.filter((k) => k.startsWith(`${level}@`)).length;
    expect(roundsOf(FAST)).toBeGreaterThan(roundsOf(SLOW));
    expect(existsRound(dir, 3)).toBe(false);

    await runLoop(cfgOf(4), { family, dir, now: clock, episodes: paced(4) });
    const resumed = filesOf(dir);
    const sequential = await one;
    for (const f of Object.keys(sequential).filter((f) => f.startsWith("banks/") || f === "metrics.json")) expect(resumed[f], f).toBe(sequential[f]);
    const sorted = (text: string) => lines(text).sort();
    expect(sorted(resumed["episodes.jsonl"]!)).toEqual(sorted(sequential["episodes.jsonl"]!));
    const ofLevel = (text: string, level: string) => lines(text).filter((l) => (JSON.parse(l) as { level: string }).level === level);
    for (const l of LEVELS) expect(ofLevel(resumed["bank-events.jsonl"]!, l), l).toEqual(ofLevel(sequential["bank-events.jsonl"]!, l));
  });
});

const existsRound = (dir: RunDir, round: number) => readdirSync(join(dir.path, "banks")).includes(`round-${String(round).padStart(2, "0")}.json`);
