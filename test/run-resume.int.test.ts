import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { foldEvents, type BankEvent } from "../src/store/bank.ts";
import { BankLogLine, BankSnapshot, EpisodeRecord } from "../src/store/run-records.ts";

/**
 * The resume guarantee (docs/spec/method.md §10), tested on real `hexa run` child processes: after a kill -9
 * at any moment, `hexa run --resume` repeats no finished episode, loses or duplicates no bank event, and ends
 * with exactly the bank of an uninterrupted run (the heuristic agent and evolver are deterministic given seed
 * and bank).
 *
 * pass_the_parcel with a 5-turn budget fails its seeds (mistakes are added, revised and pruned at a cap of 2)
 * and two_body_problem is solved (skills added, revised, reweighted, pruned); every update changes the bank,
 * and later episodes are shown other entries than earlier ones. A full run is 16 episodes (~3 s of CPU).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LEVELS = ["pass_the_parcel", "two_body_problem"] as const;
const ROUNDS = 3;
const X = 2;
const OFFLINE = 2;
const TOTAL_EPISODES = LEVELS.length * (OFFLINE + ROUNDS * X);
const TOTAL_COMMITS = LEVELS.length * (ROUNDS + 1);
const CONFIG = `levels: [${LEVELS.join(", ")}]
agent: heuristic
evolver: heuristic
init: off2on
update: evolving
rounds: ${ROUNDS}
episodesPerRound: ${X}
offline:
  episodes: ${OFFLINE}
actor:
  maxTurns: 5
bank:
  maxSkills: 2
  maxMistakes: 2
`;

// ---- child processes ------------------------------------------------------------------------------------

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}
interface Proc {
  child: ChildProcess;
  exit: Promise<Exit>;
  exited: () => boolean;
}

/** At most two busy hexa processes at once (the machine has two cores); a stopped one keeps its slot. */
let free = 2;
const waiting: (() => void)[] = [];
const acquire = async () => {
  if (free > 0) free--;
  else await new Promise<void>((r) => waiting.push(r));
};
const releaseSlot = () => {
  const next = waiting.shift();
  if (next) next();
  else free++;
};

const live = new Set<ChildProcess>();

const spawnHexa = (args: string[], onExit?: () => void): Proc => {
  // One physics worker: episodes then finish one at a time, so each kill point lands between two of them, and a
  // process takes the one CPU slot it is counted as.
  const child = spawn(process.execPath, ["bin/hexa.js", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    // HEXA_LAUNCHER: the commands hexa prints read as a linked `hexa` prints them (src/cli/invocation.ts).
    env: { ...process.env, HEXA_PHYSICS_WORKERS: "1", HEXA_LAUNCHER: "hexa" },
  });
  live.add(child);
  let stdout = "";
  let stderr = "";
  let done = false;
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exit = new Promise<Exit>((res, rej) => {
    child.on("error", rej);
    child.on("close", (code, signal) => {
      done = true;
      live.delete(child);
      onExit?.();
      res({ code, signal, stdout, stderr });
    });
  });
  return { child, exit, exited: () => done };
};

/** A hexa process that takes one of the two CPU slots for its lifetime. */
const hexa = async (...args: string[]): Promise<Proc> => {
  await acquire();
  return spawnHexa(args, releaseSlot);
};
/** A short-lived check that must not wait for a slot (e.g. while a run is stopped holding one). */
const hexaNow = (...args: string[]): Promise<Exit> => spawnHexa(args).exit;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- reading a run directory ----------------------------------------------------------------------------

/** Complete lines only: a line a live writer has not finished yet is not counted. */
const completeLines = (path: string): string[] => {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  return text
    .slice(0, text.lastIndexOf("\n") + 1)
    .split("\n")
    .filter((l) => l !== "");
};

interface Progress {
  dir: string;
  runJson: boolean;
  episodes: number;
  commits: number;
  lockPid: number | undefined;
}
const progressOf = (dir: string): Progress => {
  const lock = join(dir, "run.lock");
  // The run removes its lock as it ends, so the file may go between a check and a read: read it once.
  let lockText = "";
  try {
    lockText = readFileSync(lock, "utf8").trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  return {
    dir,
    runJson: existsSync(join(dir, "run.json")),
    episodes: completeLines(join(dir, "episodes.jsonl")).length,
    commits: completeLines(join(dir, "bank-events.jsonl")).filter((l) => "commit" in (JSON.parse(l) as object)).length,
    lockPid: lockText ? Number(lockText) : undefined,
  };
};

/** The run directory: the single subdirectory of a scenario's own runs dir. */
const runDirIn = (runsDir: string): string | undefined => {
  const entries = existsSync(runsDir) ? readdirSync(runsDir) : [];
  return entries.length === 1 ? join(runsDir, entries[0]!) : undefined;
};

interface Commit {
  level: string;
  round: number;
  events: number;
}
interface RunView {
  episodes: EpisodeRecord[];
  episodesText: string;
  /** Event lines only, in file order (commit lines and their ms left out). */
  events: { level: string; event: BankEvent }[];
  commits: Commit[];
  lines: BankLogLine[];
}
const readRun = (dir: string): RunView => {
  const episodesText = readFileSync(join(dir, "episodes.jsonl"), "utf8");
  const bankText = readFileSync(join(dir, "bank-events.jsonl"), "utf8");
  expect(episodesText.endsWith("\n"), "episodes.jsonl ends with a complete line").toBe(true);
  expect(bankText.endsWith("\n"), "bank-events.jsonl ends with a complete line").toBe(true);
  const episodes = completeLines(join(dir, "episodes.jsonl")).map((l) => EpisodeRecord.parse(JSON.parse(l)));
  const lines = completeLines(join(dir, "bank-events.jsonl")).map((l) => BankLogLine.parse(JSON.parse(l)));
  const events: RunView["events"] = [];
  const commits: Commit[] = [];
  for (const l of lines) {
    if ("commit" in l) commits.push({ level: l.level, round: l.commit.round, events: l.commit.events });
    else events.push({ level: l.level, event: l.event });
  }
  return { episodes, episodesText, events, commits, lines };
};
const levelEvents = (v: RunView, level: string): BankEvent[] => v.events.filter((e) => e.level === level).map((e) => e.event);

/** An episode without its timings (tool ms, wall ms): what the seed and the bank decide. */
const decided = (e: EpisodeRecord) => ({
  ...e,
  trajectory: { ...e.trajectory, wallMs: 0, steps: e.trajectory.steps.map((s) => ({ ...s, ms: 0 })) },
});

const snapshotFiles = (dir: string) =>
  readdirSync(join(dir, "banks"))
    .filter((f) => /^round-\d+\.json$/.test(f))
    .sort();
const readSnapshot = (dir: string, file: string): BankSnapshot => BankSnapshot.parse(JSON.parse(readFileSync(join(dir, "banks", file), "utf8")));

/** Every file under a directory with its bytes. */
const treeOf = (dir: string): Map<string, string> => {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
};

// ---- the properties a finished run must have ------------------------------------------------------------

/** The bank log is whole updates: each commit follows exactly its own level's events of its round, once. */
const expectWellFormedLog = (v: RunView) => {
  let pending: { level: string; event: BankEvent }[] = [];
  const seen = new Set<string>();
  for (const l of v.lines) {
    if (!("commit" in l)) {
      pending.push(l);
      continue;
    }
    const key = `${l.level}@${l.commit.round}`;
    expect(seen.has(key), `commit ${key} appears twice`).toBe(false);
    seen.add(key);
    expect(pending.length, `commit ${key} counts its events`).toBe(l.commit.events);
    for (const e of pending) {
      expect(e.level, `an event before commit ${key}`).toBe(l.level);
      expect(e.event.round, `an event before commit ${key}`).toBe(l.commit.round);
    }
    pending = [];
  }
  expect(pending, "events after the last commit").toEqual([]);
  expect(seen.size).toBe(TOTAL_COMMITS);
};

/** Every banks/round-NN.json is the fold of that level's events up to round NN. */
const expectSnapshotsAreFolds = (dir: string, v: RunView) => {
  expect(snapshotFiles(dir)).toEqual(Array.from({ length: ROUNDS + 1 }, (_, r) => `round-${String(r).padStart(2, "0")}.json`));
  for (const file of snapshotFiles(dir)) {
    const snap = readSnapshot(dir, file);
    expect(snap.round).toBe(Number(file.slice(6, 8)));
    expect(Object.keys(snap.banks).sort()).toEqual([...LEVELS].sort());
    for (const level of LEVELS) {
      expect(snap.banks[level], `banks/${file}: ${level} is not its bank after round ${snap.round} (its events up to that round, folded)`).toEqual(
        foldEvents(levelEvents(v, level), snap.round),
      );
    }
  }
};

const expectSameAsReference = (dir: string, ref: RunView, refDir: string) => {
  const v = readRun(dir);
  // Episodes: none repeated, none missing, each decided by the same seed and bank as in the reference.
  const ids = v.episodes.map((e) => e.id);
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  expect(dupes, "episodes recorded twice").toEqual([]);
  expect([...ids].sort()).toEqual(ref.episodes.map((e) => e.id).sort());
  const refById = new Map(ref.episodes.map((e) => [e.id, e] as const));
  for (const e of v.episodes) expect(decided(e), e.id).toEqual(decided(refById.get(e.id)!));
  // Bank events: the same, in the same order, each update committed once.
  expectWellFormedLog(v);
  expect(v.events).toEqual(ref.events);
  expect(v.commits).toEqual(ref.commits);
  for (const level of LEVELS) expect(foldEvents(levelEvents(v, level)), `final ${level} bank`).toEqual(foldEvents(levelEvents(ref, level)));
  expect(existsSync(join(dir, "run.lock")), "run.lock is released").toBe(false);
  // Snapshots: each the bank after its own round, as in the reference.
  expectSnapshotsAreFolds(dir, v);
  for (const file of snapshotFiles(dir)) expect(readSnapshot(dir, file), file).toEqual(readSnapshot(refDir, file));
  return v;
};

// ---- killing a run at chosen points ---------------------------------------------------------------------

interface KillPoint {
  name: string;
  reached: (p: Progress, pid: number) => boolean;
  /** Runs while the process is stopped (SIGSTOP) at the point, before the kill. */
  whileStopped?: (dir: string, pid: number) => Promise<void>;
}

/** Polls the run directory every 10 ms and kills the process with SIGKILL once the point is reached. */
const killAt = async (proc: Proc, dirOf: () => string | undefined, point: KillPoint): Promise<Progress> => {
  const pid = proc.child.pid!;
  while (!proc.exited()) {
    const dir = dirOf();
    if (dir && point.reached(progressOf(dir), pid)) {
      if (point.whileStopped) {
        proc.child.kill("SIGSTOP");
        try {
          await point.whileStopped(dir, pid);
        } finally {
          proc.child.kill("SIGKILL");
        }
      } else proc.child.kill("SIGKILL");
      break;
    }
    await sleep(10);
  }
  const exit = await proc.exit;
  expect(exit.signal, `kill point '${point.name}' was not reached before the run ended (code ${exit.code})\n${exit.stderr}`).toBe("SIGKILL");
  return progressOf(dirOf()!);
};

/** A fresh run killed at the first point, resumed and killed at each later point, then resumed to the end. */
const crashAndResume = async (cfg: string, runsDir: string, points: KillPoint[]): Promise<{ dir: string; at: Progress[]; last: Exit }> => {
  mkdirSync(runsDir, { recursive: true });
  const dirOf = () => runDirIn(runsDir);
  const at: Progress[] = [];
  for (const [i, point] of points.entries()) {
    if (i > 0) expect(point.reached(progressOf(dirOf()!), -1), `kill point '${point.name}' was already passed`).toBe(false);
    const proc = i === 0 ? await hexa("run", cfg, "--runs-dir", runsDir) : await hexa("run", "--resume", dirOf()!);
    at.push(await killAt(proc, dirOf, point));
  }
  const last = await (await hexa("run", "--resume", dirOf()!)).exit;
  expect(last.code, last.stderr).toBe(0);
  expect(readdirSync(runsDir), "one run directory, however often it was resumed").toHaveLength(1);
  return { dir: dirOf()!, at, last };
};

// ---- the tests ------------------------------------------------------------------------------------------

let tmp: string;
let cfgPath: string;
let reference: Promise<{ dir: string; view: RunView; exit: Exit }>;

/** A copy of the finished reference run, to damage or resume. */
const copyOfReference = async (name: string) => {
  const ref = await reference;
  const dir = join(tmp, name, basename(ref.dir)); // a run's directory is named by its id
  cpSync(ref.dir, dir, { recursive: true });
  return { ref, dir };
};

/** The start of a line, cut inside a multi-byte character when the line has one (a torn write). */
const tornPrefix = (line: string): Buffer => {
  const buf = Buffer.from(line);
  const wide = buf.findIndex((b) => b >= 0x80);
  return buf.subarray(0, wide > 0 ? wide + 1 : Math.floor(buf.length / 2));
};

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "hexa-resume-"));
  cfgPath = join(tmp, "small.yaml");
  writeFileSync(cfgPath, CONFIG);
  const runsDir = join(tmp, "reference");
  reference = (async () => {
    const exit = await (await hexa("run", cfgPath, "--runs-dir", runsDir)).exit;
    if (exit.code !== 0) throw new Error(`the reference run failed (${exit.code}):\n${exit.stderr}`);
    const dir = runDirIn(runsDir)!;
    return { dir, view: readRun(dir), exit };
  })();
  reference.catch(() => {}); // reported by the tests that await it
});

afterAll(async () => {
  for (const c of live) c.kill("SIGKILL");
  await sleep(50);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("hexa run --resume after kill -9 (heuristic agent and evolver)", () => {
  it.concurrent("the uninterrupted reference run is whole, and its bank changes in every update", async () => {
    const { dir, view } = await reference;
    expect(view.episodes).toHaveLength(TOTAL_EPISODES);
    expect(new Set(view.episodes.map((e) => e.id)).size).toBe(TOTAL_EPISODES);
    expectWellFormedLog(view);
    expect(view.commits.every((c) => c.events > 0)).toBe(true);
    expectSnapshotsAreFolds(dir, view);
    // Both kinds of entry and several kinds of event, so a lost, repeated or reordered event shows.
    const types = new Set(view.events.map((e) => e.event.type));
    for (const t of ["add", "revise", "reweight", "prune"]) expect(types).toContain(t);
    for (const level of LEVELS)
      expect(foldEvents(levelEvents(view, level)).skills.length + foldEvents(levelEvents(view, level)).mistakes.length).toBeGreaterThan(0);
    const final = foldEvents(levelEvents(view, "pass_the_parcel"));
    expect(final.mistakes.length).toBeGreaterThan(0);
    expect(foldEvents(levelEvents(view, "two_body_problem")).skills.length).toBeGreaterThan(0);
    // Episodes of later rounds were shown bank entries (so a wrong bank on resume would show in them).
    expect(view.episodes.filter((e) => e.phase === "stream" && e.retrieved.length > 0).length).toBeGreaterThan(0);
  });

  it.concurrent("killed in offline (while a second resume is refused), after the first commit, mid-round and early in the last round", async () => {
    const lockCheck = async (dir: string, pid: number) => {
      const before = treeOf(dir);
      const second = await hexaNow("run", "--resume", dir);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(new RegExp(`in use by process ${pid}\\b`));
      expect(second.stderr).not.toMatch(/\bat .*\.ts:\d+/);
      expect(treeOf(dir), "a refused resume touches nothing").toEqual(before);
    };
    const points: KillPoint[] = [
      { name: "after the first offline episode", reached: (p) => p.episodes >= 1, whileStopped: lockCheck },
      { name: "after the first commit, during the second level's offline episodes", reached: (p) => p.commits >= 1 },
      { name: "mid round 1", reached: (p) => p.episodes >= 2 * OFFLINE + X },
      // Three episodes before the end: with fewer, the run can finish between the poll that sees the point and the kill.
      { name: "early in the last round", reached: (p) => p.episodes >= TOTAL_EPISODES - 3 },
    ];
    const { dir, at } = await crashAndResume(cfgPath, join(tmp, "chain-1"), points);
    // The last kill still left the run unfinished.
    expect(at.at(-1)!.commits).toBeLessThan(TOTAL_COMMITS);
    const ref = await reference;
    expectSameAsReference(dir, ref.view, ref.dir);
  }, 240_000);

  it.concurrent("killed before anything was played, at a resume's start, right after a commit, after a snapshot and mid-round", async () => {
    const points: KillPoint[] = [
      { name: "as soon as run.json exists", reached: (p) => p.runJson },
      { name: "as soon as the resumed process holds run.lock", reached: (p, pid) => p.lockPid === pid },
      { name: "right after round 1's first commit", reached: (p) => p.commits >= LEVELS.length + 1 },
      { name: "after banks/round-02.json is written", reached: (p) => existsSync(join(p.dir, "banks", "round-02.json")) },
      { name: "mid round 3", reached: (p) => p.episodes >= TOTAL_EPISODES - 2 },
    ];
    const { dir, at } = await crashAndResume(cfgPath, join(tmp, "chain-2"), points);
    expect(at[0]!.commits).toBe(0);
    expect(at.at(-1)!.commits).toBeLessThan(TOTAL_COMMITS);
    const ref = await reference;
    expectSameAsReference(dir, ref.view, ref.dir);
  }, 240_000);

  it.concurrent("repairs torn writes: half an episode line, a torn last commit, a missing last snapshot", async () => {
    const { ref, dir } = await copyOfReference("torn-1");
    const episodes = join(dir, "episodes.jsonl");
    const bank = join(dir, "bank-events.jsonl");
    const lastEpisode = completeLines(episodes).at(-1)!;
    appendFileSync(episodes, tornPrefix(lastEpisode));
    const lines = completeLines(bank);
    const lastCommit = lines.at(-1)!;
    expect(JSON.parse(lastCommit)).toHaveProperty("commit.round", ROUNDS);
    // The last update's events stay, its commit line is cut in half: the update is not done and is redone.
    writeFileSync(
      bank,
      Buffer.concat([
        Buffer.from(
          lines
            .slice(0, -1)
            .map((l) => `${l}\n`)
            .join(""),
        ),
        tornPrefix(lastCommit),
      ]),
    );
    rmSync(join(dir, "banks", `round-${String(ROUNDS).padStart(2, "0")}.json`));

    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    const v = expectSameAsReference(dir, ref.view, ref.dir);
    // Nothing was replayed: the torn tail is gone and the file is the reference's, byte for byte.
    expect(v.episodesText).toBe(ref.view.episodesText);
  });

  it.concurrent("repairs a crash in the middle of the last round: replays the missing episodes and redoes its updates once", async () => {
    const { ref, dir } = await copyOfReference("torn-2");
    const episodes = join(dir, "episodes.jsonl");
    const bank = join(dir, "bank-events.jsonl");
    const lines = completeLines(episodes);
    const [dropped, next] = [lines.slice(-2), lines.at(-3)!];
    for (const l of [...dropped, next]) expect(JSON.parse(l)).toMatchObject({ phase: "stream", round: ROUNDS });
    // Two episodes never finished and a third was torn while being written.
    writeFileSync(
      episodes,
      Buffer.concat([
        Buffer.from(
          lines
            .slice(0, -3)
            .map((l) => `${l}\n`)
            .join(""),
        ),
        tornPrefix(next),
      ]),
    );
    const bankLines = completeLines(bank);
    const roundOf = (l: string) => (JSON.parse(l) as { commit?: { round: number } }).commit?.round;
    const keep = bankLines.length - 1 - [...bankLines].reverse().findIndex((l) => roundOf(l) === ROUNDS - 1);
    expect(bankLines.slice(keep + 1).filter((l) => roundOf(l) !== undefined)).toHaveLength(LEVELS.length);
    writeFileSync(
      bank,
      bankLines
        .slice(0, keep + 1)
        .map((l) => `${l}\n`)
        .join(""),
    );
    rmSync(join(dir, "banks", `round-${String(ROUNDS).padStart(2, "0")}.json`));
    rmSync(join(dir, "metrics.json"));

    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    const v = expectSameAsReference(dir, ref.view, ref.dir);
    expect(v.episodes.slice(0, -3)).toEqual(ref.view.episodes.slice(0, -3));
    expect(existsSync(join(dir, "metrics.json"))).toBe(true);
  });

  it.concurrent("resuming a finished run changes nothing", async () => {
    const { dir } = await copyOfReference("finished");
    const before = treeOf(dir);
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    const after = treeOf(dir);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file), `${file} changed`).toBe(bytes);
  });

  it.concurrent("refuses a directory that is not a run, and touches nothing in it", async () => {
    const notRun = join(tmp, "not-a-run");
    mkdirSync(notRun, { recursive: true });
    writeFileSync(join(notRun, "notes.txt"), "not a run\n");
    const damaged = join(tmp, "damaged-run");
    mkdirSync(damaged, { recursive: true });
    writeFileSync(join(damaged, "run.json"), "{");
    writeFileSync(join(damaged, "episodes.jsonl"), '{"schemaVersion":1,"id":"of'); // a torn line must not be cut
    const before = [treeOf(notRun), treeOf(damaged)];

    const refused = (dir: string) => hexa("run", "--resume", dir).then((p) => p.exit);
    const [a, b] = await Promise.all([refused(notRun), refused(damaged)]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/not-a-run: not a hexa run \(no run\.json\)/);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/run\.json: not valid JSON/);
    for (const r of [a, b]) expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    expect([treeOf(notRun), treeOf(damaged)]).toEqual(before);
  });
});

// ---- resumes that must not record what did not happen -------------------------------------------

/** Every replayed record cites only entries of the bank it says it saw (banks/round-<bankRound>.json). */
const expectRetrievedInOwnRound = (dir: string, v: RunView) => {
  for (const e of v.episodes) {
    if (e.bankRound === null) {
      expect(e.retrieved, e.id).toEqual([]);
      continue;
    }
    const bank = readSnapshot(dir, `round-${String(e.bankRound).padStart(2, "0")}.json`).banks[e.level]!;
    const ids = new Set([...bank.skills, ...bank.mistakes].map((x) => x.id));
    for (const id of e.retrieved) expect(ids.has(id), `${e.id} cites ${id}, absent from its round-${e.bankRound} bank`).toBe(true);
  }
};

// Ten scenarios share two CPU slots with the tests above, so each may wait minutes for its turn on a busy machine.
describe("hexa run --resume after damage by hand", { timeout: 300_000 }, () => {
  it.concurrent("episodes.jsonl deleted after a finished run: every episode, offline ones too, is replayed with the bank of its own round", async () => {
    const { ref, dir } = await copyOfReference("lost-all");
    rmSync(join(dir, "episodes.jsonl"));
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(
      new RegExp(`lacks ${TOTAL_EPISODES} episode\\(s\\) whose round's bank update is already committed .*replaying each with the bank of its own round`),
    );
    const v = expectSameAsReference(dir, ref.view, ref.dir);
    expectRetrievedInOwnRound(dir, v);
    // The process that replayed them is on record beside the one that made the run.
    const writers = completeLines(join(dir, "writers.jsonl")).map((l) => JSON.parse(l) as { command: string; code: { version: string } });
    expect(writers.map((w) => w.command)).toEqual(["run", "run --resume"]);
  });

  it.concurrent("episodes.jsonl cut in the middle of a line: the rest is replayed with each episode's own bank", async () => {
    const { ref, dir } = await copyOfReference("lost-tail");
    const episodes = join(dir, "episodes.jsonl");
    const lines = completeLines(episodes);
    writeFileSync(
      episodes,
      Buffer.concat([
        Buffer.from(
          lines
            .slice(0, 3)
            .map((l) => `${l}\n`)
            .join(""),
        ),
        tornPrefix(lines[3]!),
      ]),
    );
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(new RegExp(`lacks ${TOTAL_EPISODES - 3} episode\\(s\\)`));
    expectRetrievedInOwnRound(dir, expectSameAsReference(dir, ref.view, ref.dir));
  });

  it.concurrent("an edited config.yaml is refused, naming the changed keys, and nothing is touched", async () => {
    const { dir } = await copyOfReference("edited-config");
    const path = join(dir, "config.yaml");
    writeFileSync(
      path,
      readFileSync(path, "utf8")
        .replace(`episodesPerRound: ${X}`, `episodesPerRound: ${X + 1}`)
        .replace("maxTurns: 5", "maxTurns: 6"),
    );
    const before = treeOf(dir);
    const exit = await hexaNow("run", "--resume", dir);
    expect(exit.code, exit.stderr).toBe(2);
    expect(exit.stderr).toMatch(/^hexa: .*config\.yaml: edited since the run started \(changed: actor\.maxTurns, episodesPerRound\)/m);
    expect(exit.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    const printed = await hexaNow("run", "--print-config", "--resume", dir);
    expect(printed.code, "--print-config --resume refuses it too").toBe(2);
    expect(treeOf(dir)).toEqual(before);
  });

  it.concurrent("a run made before run.json kept a config hash resumes, saying so once", async () => {
    const { dir } = await copyOfReference("old-run-json");
    const meta = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(dir, "run.json"), JSON.stringify({ schemaVersion: 1, kind: meta.kind, id: meta.id, createdAt: meta.createdAt }));
    rmSync(join(dir, "writers.jsonl"));
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr.match(/records no config hash/g)).toHaveLength(1);
  });

  it.concurrent("a resume by another hexa version warns, and the writers are on record", async () => {
    const { dir } = await copyOfReference("other-version");
    appendFileSync(
      join(dir, "writers.jsonl"),
      `${JSON.stringify({ schemaVersion: 1, at: "2026-01-01T00:00:00.000Z", pid: 1, command: "run --resume", code: { version: "0.0.9", commit: "deadbeefcafe0000" } })}\n`,
    );
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/warning: this run was written by hexa 0\.0\.9 \(commit deadbeefcafe\); this process is hexa .*mix code versions/);
  });

  it.concurrent("a run.json copied from another run is refused", async () => {
    const { ref } = await copyOfReference("copied-meta");
    const other = join(tmp, "copied-meta", "another-run");
    cpSync(ref.dir, other, { recursive: true });
    const before = treeOf(other);
    const exit = await hexaNow("run", "--resume", other);
    expect(exit.code, exit.stderr).toBe(2);
    expect(exit.stderr).toMatch(/run\.json: belongs to run .*, not to this directory \(another-run\)/);
    expect(treeOf(other)).toEqual(before);
  });

  it.concurrent("temporary files a kill left between write and rename are removed; a deleted banks/ is rebuilt from the log", async () => {
    const { ref, dir } = await copyOfReference("leftovers");
    rmSync(join(dir, "banks"), { recursive: true });
    mkdirSync(join(dir, "banks"));
    writeFileSync(join(dir, "banks", "round-01.json.tmp-4242"), "{");
    writeFileSync(join(dir, "metrics.json.tmp-4242"), "{");
    const exit = await (await hexa("run", "--resume", dir)).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/removed 2 temporary file\(s\)/);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
    expectSameAsReference(dir, ref.view, ref.dir);
    rmSync(join(dir, "banks"), { recursive: true });
    const again = await (await hexa("run", "--resume", dir)).exit;
    expect(again.code, again.stderr).toBe(0);
    expectSameAsReference(dir, ref.view, ref.dir);
  });

  it.concurrent("a deleted config.yaml is refused with a hexa: message", async () => {
    const { dir } = await copyOfReference("no-config");
    rmSync(join(dir, "config.yaml"));
    const exit = await hexaNow("run", "--resume", dir);
    expect(exit.code, exit.stderr).toBe(2);
    expect(exit.stderr).toMatch(/^hexa: .*config\.yaml: missing; the run directory was damaged/m);
    expect(exit.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it.concurrent("--print-config --resume prints the run's config, parsed; an empty --resume is refused", async () => {
    const { dir } = await copyOfReference("print-config");
    const printed = await hexaNow("run", "--print-config", "--resume", dir);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`episodesPerRound: ${X}`);
    const empty = await hexaNow("run", "--print-config", "--resume");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^hexa: --resume needs a run directory/m);
  });

  it.concurrent("a duplicated episode line: eval and metrics.json agree (each episode counted once), with a warning", async () => {
    const { dir } = await copyOfReference("duplicate-line");
    const episodes = join(dir, "episodes.jsonl");
    const win = completeLines(episodes).find(
      (l) => (JSON.parse(l) as EpisodeRecord).phase === "stream" && (JSON.parse(l) as EpisodeRecord).trajectory.success,
    )!;
    appendFileSync(episodes, `${win}\n`);
    const level = (JSON.parse(win) as EpisodeRecord).level;
    const metrics = JSON.parse(readFileSync(join(dir, "metrics.json"), "utf8")) as { levels: Record<string, { successes: number; episodes: number }> };
    const exit = await (await hexa("eval", dir, "--count", "1")).exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/has 1 duplicated line\(s\)/);
    const m = metrics.levels[level]!;
    expect(exit.stdout).toMatch(new RegExp(`^${level}\\s+${m.successes}/${m.episodes} `, "m"));
  });
});

describe("Ctrl-C in a heuristic run", { timeout: 300_000 }, () => {
  // Long enough (8 rounds × 3) that a signal after the first episode lands well before the end.
  const LONG = "levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 8\nepisodesPerRound: 3\noffline: {episodes: 2}\n";
  const LONG_TOTAL = 2 + 8 * 3;

  it.concurrent.each(["SIGINT", "SIGTERM"] as const)(
    "%s stops at the next episode boundary, says interrupted, exits 130 and leaves a resumable run",
    async (signal) => {
      const root = join(tmp, `signal-${signal}`);
      mkdirSync(root, { recursive: true });
      const cfg = join(root, "long.yaml");
      writeFileSync(cfg, LONG);
      const runs = join(root, "runs");
      const proc = await hexa("run", cfg, "--runs-dir", runs);
      while (!proc.exited()) {
        const dir = runDirIn(runs);
        if (dir && progressOf(dir).episodes >= 1) break;
        await sleep(10);
      }
      proc.child.kill(signal);
      const exit = await proc.exit;
      expect(exit.code, exit.stderr).toBe(130);
      expect(exit.stderr).toMatch(/\ninterrupted; nothing finished is lost\. Continue with: hexa run --resume \S+/);
      const dir = runDirIn(runs)!;
      const stopped = progressOf(dir);
      expect(stopped.episodes).toBeLessThan(LONG_TOTAL);
      expect(stopped.lockPid, "run.lock is released").toBeUndefined();
      if (signal === "SIGTERM") return;
      const resumed = await (await hexa("run", "--resume", dir)).exit;
      expect(resumed.code, resumed.stderr).toBe(0);
      const ids = readRun(dir).episodes.map((e) => e.id);
      expect(new Set(ids).size).toBe(LONG_TOTAL);
      expect(ids).toHaveLength(LONG_TOTAL);
    },
  );
});
