import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { toyFamily } from "../../examples/toy-family/family.ts";
import { tempDirs } from "./temp-files.ts";
import type { LevelFamily } from "../../src/family/family.ts";
import type { AssistantTurn, Message } from "../../src/llm/chat-model.ts";
import type { RoleModel } from "../../src/llm/ask.ts";
import { answeredBy } from "../../src/llm/openai-chat.ts";
import type { Bank } from "../../src/store/bank.ts";
import { RunDir } from "../../src/store/run-dir.ts";
import { BankLogLine } from "../../src/store/run-records.ts";
import { localBackend, type EpisodeBackend } from "../../src/loop/episode-backend.ts";
import { referenceLoop, type ReferenceRun } from "../../src/loop/reference-loop.ts";
import { parseRunConfig, runConfigYaml, type RunConfig } from "../../src/loop/run-config.ts";
import { runLoop } from "../../src/loop/run-loop.ts";

/**
 * The concurrent round loop (src/loop/run-loop.ts, what `hexa run` runs) against the reference loop
 * (src/loop/reference-loop.ts) on the same config, seeds and models, over the toy family: the same episode records in
 * the same order, the same bank updates, and every episode shown the same bank (heuristic actor) or sent the same
 * prompts (model actor). Four episodes at once, a batch's later seeds started sooner: the pool finishes them out of
 * the run's order and levels run ahead of each other.
 */

const tmp = tempDirs("hexa-reference-");
const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 16);
const LEVELS = ["guess_small", "guess_large"];

/** What each episode was shown, keyed by level and seed (offline and stream seeds never overlap). */
type Seen = Map<string, string[]>;
const seen = (): Seen => new Map();
const see = (s: Seen, level: string, seed: number, what: unknown) => s.set(`${level}/${seed}`, [...(s.get(`${level}/${seed}`) ?? []), hash(what)]);
const sorted = (s: Seen) => Object.fromEntries([...s].sort(([a], [b]) => a.localeCompare(b)));

/** The toy family, each task's prompt naming its level and seed, and each heuristic episode's shown bank noted. */
const watchedToy = (shown: Seen): LevelFamily => {
  const toy = toyFamily();
  return {
    ...toy,
    openEnv: async (task, config, maxTurns) => {
      const env = await toy.openEnv(task, config, maxTurns);
      return { ...env, prompt: { ...env.prompt, task: `${env.prompt.task} [${task.level} seed ${task.seed}]` } };
    },
    heuristics: {
      ...toy.heuristics!,
      play: (r) => {
        see(shown, r.task.level, r.task.seed, r.shown satisfies Bank);
        return toy.heuristics!.play(r);
      },
    },
  };
};

/**
 * An actor model that bisects the range when its prompt holds the toy's bisection skill and counts up from 8
 * otherwise, so what the bank says changes what the episode does; each request is noted under its task.
 */
const toyActor = (prompts: Seen): RoleModel =>
  answeredBy("toy-actor", async (messages: Message[]): Promise<AssistantTurn> => {
    const [, level, seed] = /\[(\w+) seed (\d+)\]/.exec(messages.map((m) => m.content).join("\n"))!;
    see(prompts, level!, Number(seed), messages);
    const probes = messages.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => (c.args as { x: number }).x) : []));
    const answers = messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
    let [lo, hi] = [0, 63];
    probes.forEach((x, i) => {
      if (answers[i]?.includes("higher")) lo = x + 1;
      else if (answers[i]?.includes("lower")) hi = x - 1;
    });
    const bisects = messages[0]!.content.includes("Bisect the range");
    const x = bisects ? Math.floor((lo + hi) / 2) : 8 + probes.length;
    const toolCalls = [{ id: `call_${probes.length}`, name: "probe", args: { x }, rawArgs: JSON.stringify({ x }) }];
    return { text: "probe", toolCalls, usage: { input: 50, output: 5, cached: 0 }, model: "toy-actor", latencyMs: 1, fromCache: false };
  });

/** The local backend, a batch's later seeds started sooner: episodes finish out of the run's order. */
const jittered = (inner: EpisodeBackend, finished: string[]): EpisodeBackend => ({
  play: async (job, onUsage) => {
    await new Promise((done) => setTimeout(done, 3 * (7 - (job.seed % 8))));
    const out = await inner.play(job, onUsage);
    finished.push(job.id);
    return out;
  },
});

/** The run directory's bank log as updates: each commit line closes the events before it. */
const updatesOf = (dir: RunDir): ReferenceRun["updates"] => {
  const lines = readFileSync(dir.file("bank"), "utf8").trim().split("\n");
  const out: ReferenceRun["updates"] = [];
  let events: ReferenceRun["updates"][number]["events"] = [];
  for (const line of lines.map((l) => BankLogLine.parse(JSON.parse(l)))) {
    if ("event" in line) events.push(line.event);
    else [out[out.length], events] = [{ level: line.level, round: line.commit.round, events }, []];
  }
  return out;
};

interface Both {
  cfg: RunConfig;
  loop: ReferenceRun & { seen: Seen; finished: string[] };
  reference: ReferenceRun & { seen: Seen };
}

export const runBoth = async (settings: Record<string, unknown>): Promise<Both> => {
  const cfg = parseRunConfig({ family: "toy", levels: LEVELS, concurrency: 4, toy: { size: 16 }, ...settings }, "reference", [toyFamily()]);
  const model = cfg.agent !== "heuristic";
  const [loopSeen, referenceSeen, finished] = [seen(), seen(), [] as string[]];
  const family = watchedToy(loopSeen);
  const actorModel = model ? toyActor(loopSeen) : undefined;
  const dir = RunDir.create(tmp(), "loop", runConfigYaml(cfg), new Date(0));
  const now = () => 0;
  const local = localBackend(cfg, { family, ...(actorModel ? { actorModel } : {}), now });
  await runLoop(cfg, { family, dir, ...(actorModel ? { actorModel } : {}), now, episodes: jittered(local, finished) });
  const refFamily = watchedToy(referenceSeen);
  const reference = await referenceLoop(cfg, { family: refFamily, ...(model ? { actorModel: toyActor(referenceSeen) } : {}), now });
  return {
    cfg,
    loop: { episodes: dir.episodes(), updates: updatesOf(dir), seen: loopSeen, finished },
    reference: { ...reference, seen: referenceSeen },
  };
};

export const expectEqual = ({ cfg, loop, reference }: Both) => {
  const perLevel = cfg.rounds * cfg.episodesPerRound + (cfg.init === "online" ? 0 : cfg.offline.episodes);
  expect(reference.episodes).toHaveLength(LEVELS.length * perLevel);
  // The pool really finished a batch out of seed order (else this compares two sequential runs).
  const [batchOf, seedOf] = [(id: string) => id.replace(/\/s\d+$/, ""), (id: string) => Number(/\d+$/.exec(id)![0])];
  const laterFirst = (id: string, i: number, ids: string[]) => i > 0 && batchOf(ids[i - 1]!) === batchOf(id) && seedOf(ids[i - 1]!) > seedOf(id);
  expect(loop.finished.some(laterFirst)).toBe(true);
  expect(loop.episodes.map((e) => e.id)).toEqual(reference.episodes.map((e) => e.id));
  expect(loop.episodes).toEqual(reference.episodes);
  expect(loop.updates).toEqual(reference.updates);
  expect(reference.seen.size).toBe(LEVELS.length * perLevel);
  expect(sorted(loop.seen)).toEqual(sorted(reference.seen));
};
