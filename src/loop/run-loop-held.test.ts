import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { RunDir } from "../store/run-dir.ts";
import { localBackend, type EpisodeBackend, type EpisodeJob, type EpisodeResult } from "./episode-backend.ts";
import { parseRunConfig, runConfigYaml } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";

/**
 * Finished episodes held for the run's order survive a kill -9 (docs/ARCHITECTURE.md §4). A fast level runs rounds
 * ahead of a slow one; the moment it starts round 3, the run directory is copied: every write of the loop is
 * synchronous and flushed, so the copy is exactly what a process killed at that moment leaves. A resume of the copy
 * must write the held episodes without playing them again and end with the files of an uninterrupted run.
 */

const SLOW = "two_body_problem";
const FAST = "down_to_earth";
const family = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
const clock = () => 0;
const cfgOf = (concurrency: number) =>
  parseRunConfig(
    {
      family: "interphyre",
      levels: [SLOW, FAST],
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

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));
const newRoot = () => {
  const root = mkdtempSync(join(tmpdir(), "hexa-held-"));
  roots.push(root);
  return root;
};
const newDir = () => RunDir.create(newRoot(), "run", runConfigYaml(cfgOf(1)), new Date(0));
/** What a kill -9 at this moment leaves: a copy of the run directory (a run's directory is named by its id). */
const killedCopy = (dir: RunDir): RunDir => {
  const path = join(newRoot(), "run");
  cpSync(dir.path, path, { recursive: true });
  return RunDir.open(path);
};

/**
 * Each (episode, bank) plays once for real, then comes from this cache, with its clock readings zeroed so the files
 * compare byte for byte; a wrong bank misses the cache and shows in the files.
 */
const played = new Map<string, EpisodeResult>();
/** The slow level's round 1 holds until the fast level starts round 3 (or 3 s): the fast one runs ahead. */
const paced = (onStart: (job: EpisodeJob) => void = () => undefined): EpisodeBackend => {
  const local = localBackend(cfgOf(4), { family, now: clock });
  let fastAhead: () => void = () => undefined;
  const ahead = new Promise<void>((resolve) => (fastAhead = resolve));
  return {
    play: async (job, onUsage) => {
      onStart(job);
      if (job.level === FAST && job.round === 3) fastAhead();
      const key = `${job.id} ${JSON.stringify(job.bank)}`;
      const result = played.get(key) ?? (await local.play(job, onUsage));
      played.set(key, result);
      await new Promise((r) => setTimeout(r, job.level === SLOW ? 20 : 0));
      if (job.level === SLOW && job.round === 1) await Promise.race([ahead, new Promise((r) => setTimeout(r, 3000))]);
      return { ...result, trajectory: { ...result.trajectory, wallMs: 0, steps: result.trajectory.steps.map((s) => ({ ...s, ms: 0 })) } };
    },
  };
};

/** Every file the loop writes, as bytes (a held/ folder included, which a finished run must not have). */
const filesOf = (dir: RunDir): Record<string, string> => {
  const read = (f: string) => readFileSync(join(dir.path, f), "utf8");
  const under = (d: string) => (existsSync(join(dir.path, d)) ? readdirSync(join(dir.path, d)).map((f) => [`${d}/${f}`, read(`${d}/${f}`)] as const) : []);
  return {
    "episodes.jsonl": read("episodes.jsonl"),
    "bank-events.jsonl": read("bank-events.jsonl"),
    "metrics.json": read("metrics.json"),
    ...Object.fromEntries([...under("banks"), ...under("held")]),
  };
};

const sequential = (async () => {
  const dir = newDir();
  await runLoop(cfgOf(1), { family, dir, now: clock, episodes: paced() });
  return filesOf(dir);
})();

/** A run with four episodes in flight, killed (copied) as the fast level starts round 3; the original runs on to its end. */
const killedAhead = (async () => {
  const dir = newDir();
  let killed: RunDir | undefined;
  const kill = (job: EpisodeJob) => {
    if (!killed && job.level === FAST && job.round === 3) killed = killedCopy(dir);
  };
  await runLoop(cfgOf(4), { family, dir, now: clock, episodes: paced(kill) });
  return { whole: filesOf(dir), killed: killed! };
})();

const heldIds = (dir: RunDir) => dir.held.read().held.map((h) => h.record.id);

const resume = async (dir: RunDir) => {
  const starts: string[] = [];
  const log: string[] = [];
  await runLoop(cfgOf(4), { family, dir, now: clock, episodes: paced((job) => starts.push(job.id)), log: (l) => log.push(l) });
  return { starts, log, files: filesOf(dir) };
};

const expectSameFiles = (got: Record<string, string>, want: Record<string, string>) => {
  expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
  for (const [f, text] of Object.entries(want)) expect(got[f], f).toBe(text);
};

describe("finished episodes held for the run's order, after a kill -9", () => {
  it("a run that finishes leaves no spool, and its files are a sequential run's", async () => {
    const { whole } = await killedAhead;
    expect(Object.keys(whole).filter((f) => f.startsWith("held"))).toEqual([]);
    expectSameFiles(whole, await sequential);
  });

  it("are on disk at the kill, and a resume writes them without playing them again", async () => {
    const { killed } = await killedAhead;
    const dir = killedCopy(killed);
    const held = heldIds(dir);
    // The fast level's rounds 1 and 2 finished while the slow level's round 1 was still playing.
    expect(held.filter((id) => id.startsWith(`stream/${FAST}/r1/`))).toHaveLength(3);
    expect(held.filter((id) => id.startsWith(`stream/${FAST}/r2/`))).toHaveLength(3);
    const inFile = dir.episodes({ repair: false }).map((e) => e.id);
    expect(held.filter((id) => inFile.includes(id))).toEqual([]);

    const { starts, files } = await resume(dir);
    expect(starts.filter((id) => held.includes(id))).toEqual([]);
    expect(starts).toHaveLength(2 * (3 + 3 * 3) - inFile.length - held.length);
    expectSameFiles(files, await sequential);
    expect(existsSync(join(dir.path, "held"))).toBe(false);
  });

  it("an edited held record and one played with another bank are discarded with a notice and played again", async () => {
    const { killed } = await killedAhead;
    const dir = killedCopy(killed);
    const held = heldIds(dir);
    const fileOf = (id: string) => join(dir.held.path, `${encodeURIComponent(id)}.json`);
    const [edited, otherBank] = [held.find((id) => id.includes("/r1/"))!, held.find((id) => id.includes("/r2/"))!];
    const rewrite = (id: string, change: (x: { playedWith: { bank: string }; record: { r: number } }) => void) => {
      const x = JSON.parse(readFileSync(fileOf(id), "utf8")) as { playedWith: { bank: string }; record: { r: number } };
      change(x);
      writeFileSync(fileOf(id), JSON.stringify(x));
    };
    // A careless hand "fixing" a score, and a spool left by a run whose evolver wrote another bank.
    rewrite(edited, (x) => (x.record.r = x.record.r + 1));
    rewrite(otherBank, (x) => (x.playedWith.bank = "0".repeat(64)));

    const { starts, log, files } = await resume(dir);
    expect(starts.filter((id) => held.includes(id)).sort()).toEqual([edited, otherBank].sort());
    expect(log.some((l) => l.includes(fileOf(edited)) && l.includes("does not match its checksum"))).toBe(true);
    expect(log.some((l) => l.includes(`held episode ${otherBank} was played with another bank`))).toBe(true);
    expectSameFiles(files, await sequential);
    expect(existsSync(join(dir.path, "held"))).toBe(false);
  });

  it("a held file of an episode already written, and one of no episode of this run, go without being used", async () => {
    const { killed } = await killedAhead;
    const dir = killedCopy(killed);
    const [written] = dir.episodes({ repair: false });
    // Killed between the write to episodes.jsonl and the spool's release; and a spool entry from another config.
    dir.held.hold(written!, { bank: "0".repeat(64), job: "0".repeat(64) });
    const stranger = { ...written!, id: `stream/${FAST}/r9/s1`, phase: "stream" as const, round: 9, seed: 1 };
    dir.held.hold(stranger, { bank: "0".repeat(64), job: "0".repeat(64) });

    const { log, files } = await resume(dir);
    expect(log.filter((l) => l.includes(written!.id))).toEqual([]);
    expect(log).toContain(`held episode ${stranger.id} is not an episode this run plays; discarded`);
    expectSameFiles(files, await sequential);
    expect(existsSync(join(dir.path, "held"))).toBe(false);
  });

  it("a Ctrl-C writes what was held and leaves no spool folder", async () => {
    const dir = newDir();
    const ctl = new AbortController();
    let heldAtStop = 0;
    const stop = (job: EpisodeJob) => {
      if (ctl.signal.aborted || job.level !== FAST || job.round !== 3) return;
      heldAtStop = dir.held.count();
      ctl.abort(new Error("interrupted"));
    };
    await expect(runLoop(cfgOf(4), { family, dir, now: clock, episodes: paced(stop), signal: ctl.signal })).rejects.toThrow("interrupted");
    expect(heldAtStop).toBeGreaterThan(0);
    expect(dir.episodes({ repair: false }).filter((e) => e.id.startsWith(`stream/${FAST}/r2/`))).toHaveLength(3);
    expect(existsSync(join(dir.path, "held"))).toBe(false);
  });
});
