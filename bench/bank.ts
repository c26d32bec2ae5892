/**
 * The skill bank's costs: bank update time (heuristic evolver, LLM-evolver bookkeeping with an instant model,
 * caps, folding event logs), retrieval from a library of 10,000 skills (+2,500 mistakes) across the 25 levels
 * (in-memory rule and Chroma semantic query on an embedded server started here), and the quickstart's wall
 * time split into simulation / agent / bank / the rest. Progress goes to stderr, the tables to stdout.
 * Run: npm run bench:bank [-- --quick]   (--quick: fewer samples, 100 skills per level, a 3-round quickstart)
 */
import { execa } from "execa";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readYamlMapping } from "../src/util/yaml-file.ts";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify as stringifyYaml } from "yaml";
import { distil, evolve } from "../agents/evolver.ts";
import { labelTrajectories, type Labelled } from "../agents/evolver-labels.ts";
import { placementOf } from "../levels/interphyre/action.ts";
import { INTERPHYRE_WORDS } from "../levels/interphyre/family.ts";
import { evolveHeuristic } from "../levels/interphyre/heuristic/evolver.ts";
import { renderSkillBlock, retrieve, type RetrieverConfig } from "../agents/retriever.ts";
import type { Trajectory } from "../src/store/trajectory.ts";
import { listLevels } from "../levels/interphyre/levels/index.ts";
import { createInstance } from "../levels/interphyre/instance.ts";
import { createRng } from "../src/util/rng.ts";
import { countBy } from "../src/util/stats.ts";
import { capEvents, EMPTY_BANK, foldEvents, type Bank, type BankEvent, type Mistake, type Skill } from "../src/store/bank.ts";
import { chromaClient, SkillIndex } from "../src/store/chroma-index.ts";
import { startChroma } from "../src/store/chroma-server.ts";
import { localEmbedder } from "../src/store/embedding.ts";
import {
  eventLog,
  evolveAnswer,
  fullBank,
  instantModel,
  libraryEntry,
  mistakeText,
  overCap,
  QUERIES,
  realTrajectories,
  skillText,
  type Tagged,
} from "./bank-fixtures.ts";
import { ms, oneOff, printSections, sample, sampleAsync, type Row } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("bank");

const QUICK = process.argv.includes("--quick");
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LEVEL = "down_to_earth"; // a fast HExA level (one of the CLI tests' shared run, test/fixtures/two-levels.yaml)
const CAPS = { skills: 10, mistakes: 5 };
const RETRIEVER: RetrieverConfig = { topSkills: 6, topMistakes: 4 };
const SKILLS_PER_LEVEL = QUICK ? 100 : 400;
const MISTAKES_PER_LEVEL = SKILLS_PER_LEVEL / 4;
const BATCH = 500;
const N = { update: QUICK ? 40 : 200, micro: QUICK ? 200 : 1000, fold10k: QUICK ? 2 : 3, query: QUICK ? 20 : 100, memory: QUICK ? 50 : 300 };

const note = (s: string) => process.stderr.write(`${s}\n`);

const sections: { title: string; rows: Row[] }[] = [];
const section = (title: string) => {
  const s = { title, rows: [] as Row[] };
  sections.push(s);
  return s.rows;
};

// ---------------------------------------------------------------- 3. the quickstart (run first, on a quiet machine)

const runQuickstart = async (tmp: string) => {
  let config = join(ROOT, "configs", "quickstart.yaml");
  if (QUICK) {
    const cfg = readYamlMapping(config);
    config = join(tmp, "quickstart-quick.yaml");
    writeFileSync(config, stringifyYaml({ ...cfg, rounds: 3 }));
  }
  const runsDir = join(tmp, "runs");
  const spawnTimed = async (args: string[]): Promise<number> => {
    const t0 = performance.now();
    const r = await execa(process.execPath, args, { cwd: ROOT, stdin: "ignore", stdout: "ignore", reject: false });
    if (r.exitCode !== 0) throw new Error(`bench: ${args.join(" ")} exited with ${r.exitCode ?? r.shortMessage}:\n${r.stderr.slice(-2000)}`);
    return performance.now() - t0;
  };
  const startupMs = await spawnTimed([join("bin", "hexa.js"), "--help"]);
  note(`quickstart${QUICK ? " (3 rounds)" : ""} …`);
  const wallMs = await spawnTimed([join("bin", "hexa.js"), "run", config, "--runs-dir", runsDir]);
  const [id] = readdirSync(runsDir);
  const dir = join(runsDir, id!);
  const metrics = JSON.parse(readFileSync(join(dir, "metrics.json"), "utf8")) as { time: { simulationMs: number; agentMs: number; bankMs: number } };
  const lines = readFileSync(join(dir, "bank-events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { level: string; event?: BankEvent; commit?: { ms: number } });
  const commits = lines.flatMap((l) => (l.commit ? [l.commit.ms] : []));
  const levelLog = lines.filter((l) => l.level === LEVEL && l.event).map((l) => l.event!);
  return { startupMs, wallMs, time: metrics.time, commits, levelLog };
};

// ---------------------------------------------------------------- main

const tmp = mkdtempSync(join(tmpdir(), "hexa-bench-bank-"));
let chroma: { stop(): Promise<void> } | undefined;
try {
  const t0 = performance.now();
  const qs = await runQuickstart(tmp);

  // 1. bank update
  note("bank update …");
  const rows1 = section("1. bank update (one level, caps 10 skills / 5 mistakes)");
  const trajectories = realTrajectories(LEVEL);
  const labelled: Labelled[] = labelTrajectories(trajectories, ["t1", "t2", "t3"]);
  const inst0 = createInstance(LEVEL, trajectories[0]!.seed);
  const a = placementOf(trajectories[0]!.action)!;
  const goalObj = inst0.scene[inst0.goal[0]]!;
  const bank = fullBank(inst0, { dx: a.x - goalObj.x, dy: a.y - goalObj.y, radius: a.radius });
  const outcome = trajectories.map((t) => (t.success ? `ok/${t.steps.length}` : `fail/${t.steps.length}`)).join(", ");
  const instanceOf = (t: Trajectory) => createInstance(t.level, t.seed);
  const heurEvents = evolveHeuristic({ round: 5, level: LEVEL, bank, labelled, instanceOf, caps: CAPS });
  const kinds = (es: BankEvent[]) =>
    countBy(es.map((e) => e.type))
      .map(([k, v]) => `${v} ${k}`)
      .join(", ");
  rows1.push(
    sample(
      "heuristic evolver, bank 10+5, 3 trajectories",
      N.update,
      () => evolveHeuristic({ round: 5, level: LEVEL, bank, labelled, instanceOf, caps: CAPS }),
      { note: `episodes ${outcome}; → ${kinds(heurEvents)}` },
    ),
  );
  rows1.push(
    sample("heuristic evolver, distil into empty bank", N.update, () =>
      evolveHeuristic({ round: 0, level: LEVEL, bank: EMPTY_BANK, labelled, instanceOf, caps: CAPS }),
    ),
  );
  rows1.push({
    what: "heuristic update inside the quickstart run",
    n: qs.commits.length,
    samples: qs.commits,
    total: qs.commits.reduce((s, x) => s + x, 0),
    note: "from bank-events.jsonl commits; the slowest is round 0 (cold JIT)",
  });
  const ids = labelled.map((l) => l.id);
  const evolveOut = await evolve({
    words: INTERPHYRE_WORDS,
    model: instantModel([evolveAnswer(bank, ids)]),
    round: 5,
    level: LEVEL,
    bank,
    labelled,
    caps: CAPS,
  });
  if (evolveOut.some((e) => e.type === "evolver_failure")) throw new Error(`bench: the scripted evolve answer was refused: ${JSON.stringify(evolveOut[0])}`);
  rows1.push(
    await sampleAsync(
      "LLM evolve bookkeeping, instant model",
      N.update,
      () => evolve({ words: INTERPHYRE_WORDS, model: instantModel([evolveAnswer(bank, ids)]), round: 5, level: LEVEL, bank, labelled, caps: CAPS }),
      { note: `prompt + validation + events → ${kinds(evolveOut)}` },
    ),
  );
  const distilAnswers = () => [
    { skills: [1, 2, 3, 4, 5].map((i) => skillText(`Skill ${i}`, ids.slice(0, 1 + (i % 2)))) },
    { mistakes: [1, 2, 3].map((i) => mistakeText(i, [ids[2]!])), partial_skills: [skillText("Partial", [ids[2]!])] },
  ];
  const distilOut = await distil({ words: INTERPHYRE_WORDS, model: instantModel(distilAnswers()), round: 0, level: LEVEL, labelled, caps: CAPS });
  if (distilOut.some((e) => e.type === "evolver_failure")) throw new Error(`bench: the scripted distil answers were refused: ${JSON.stringify(distilOut[0])}`);
  rows1.push(
    await sampleAsync(
      "LLM distil bookkeeping, instant model",
      N.update,
      () => distil({ words: INTERPHYRE_WORDS, model: instantModel(distilAnswers()), round: 0, level: LEVEL, labelled, caps: CAPS }),
      { note: `2 passes → ${kinds(distilOut)}` },
    ),
  );
  const big = overCap(bank);
  rows1.push(sample("capEvents, 20+10 → 10+5", N.micro, () => capEvents(big, CAPS, 5), { note: `${capEvents(big, CAPS, 5).length} prunes` }));
  const rng = createRng(7);
  rows1.push(sample(`foldEvents, quickstart log (${LEVEL})`, N.micro, () => foldEvents(qs.levelLog), { note: `${qs.levelLog.length} events, real` }));
  const log17 = eventLog(18, rng, bank);
  rows1.push(sample("foldEvents, 17 rounds × 20 events", N.micro, () => foldEvents(log17), { note: `${log17.length} events, ~15 live entries` }));
  const log10k = eventLog(Math.ceil((10_000 - 15) / 20) + 1, rng, bank);
  rows1.push(sample("foldEvents, 10,000 events", N.fold10k * 10, () => foldEvents(log10k), { warm: 2, note: `${log10k.length} events, ~15 live entries` }));
  const adds10k: BankEvent[] = Array.from({ length: 10_000 }, (_, i) => ({
    schemaVersion: 1,
    round: Math.floor(i / 20),
    evidence: [],
    reason: "",
    type: "add",
    entry: { ...bank.skills[i % 10]!, id: `a${i}` },
  }));
  rows1.push(sample("foldEvents, 10,000 adds", N.fold10k, () => foldEvents(adds10k), { warm: 1, note: "a 10,000-entry bank: quadratic" }));

  // 2. retrieval
  note("retrieval …");
  const levels = listLevels();
  const lrng = createRng(11);
  const library: Tagged[] = levels.flatMap((level) => [
    ...Array.from({ length: SKILLS_PER_LEVEL }, (_, k) => ({ level, entry: libraryEntry(level, "skill", k, lrng) })),
    ...Array.from({ length: MISTAKES_PER_LEVEL }, (_, k) => ({ level, entry: libraryEntry(level, "mistake", k, lrng) })),
  ]);
  const nSkills = SKILLS_PER_LEVEL * levels.length;
  const size = `${nSkills.toLocaleString("en")} skills + ${(MISTAKES_PER_LEVEL * levels.length).toLocaleString("en")} mistakes, ${levels.length} levels`;
  const rows2 = section(`2. retrieval (${size}; top ${RETRIEVER.topSkills} skills / ${RETRIEVER.topMistakes} mistakes)`);
  const bankOfLevel = (level: string): Bank => {
    const mine = library.filter((t) => t.level === level).map((t) => t.entry);
    return { skills: mine.filter((e): e is Skill => e.kind === "skill"), mistakes: mine.filter((e): e is Mistake => e.kind === "mistake") };
  };
  let q = 0;
  const nextLevel = () => levels[q++ % levels.length]!;
  rows2.push(sample("rule: filter level from flat list + retrieve", N.memory, () => retrieve(bankOfLevel(nextLevel()), RETRIEVER)));
  rows2.push(
    sample("rule: filter + renderSkillBlock", N.memory, () => renderSkillBlock(bankOfLevel(nextLevel()), RETRIEVER), {
      note: `${renderSkillBlock(bankOfLevel(LEVEL), RETRIEVER).length} chars`,
    }),
  );
  const perLevel = new Map(levels.map((l) => [l, bankOfLevel(l)] as const));
  rows2.push(
    sample(`rule: retrieve from one level's bank (${SKILLS_PER_LEVEL + MISTAKES_PER_LEVEL})`, N.memory, () => retrieve(perLevel.get(nextLevel())!, RETRIEVER)),
  );
  rows2.push(sample("rule: retrieve from a full bank (10+5)", N.micro, () => retrieve(bank, RETRIEVER), { note: "what the loop does per episode" }));

  note("chroma: start …");
  let t = performance.now();
  const server = await startChroma({ dataDir: join(tmp, "chroma") });
  chroma = server;
  rows2.push(oneOff("chroma: start the embedded server", performance.now() - t));
  const embedder = localEmbedder(384);
  const index = await SkillIndex.open(chromaClient(server.url), embedder);
  // The embedding share of indexing, measured apart (upsert embeds again inside).
  const texts = library.map((x) =>
    x.entry.kind === "skill"
      ? [x.entry.title, x.entry.principle, x.entry.whenToApply, x.entry.example ?? ""].join("\n")
      : [x.entry.description, x.entry.rootCause, x.entry.correction].join("\n"),
  );
  t = performance.now();
  await embedder.embed(texts);
  const embedMs = performance.now() - t;
  note(`chroma: index ${library.length} entries …`);
  const batchMs: number[] = [];
  t = performance.now();
  for (const level of levels) {
    const mine = library.filter((x) => x.level === level).map((x) => x.entry);
    for (let i = 0; i < mine.length; i += BATCH) {
      const b0 = performance.now();
      await index.upsert(mine.slice(i, i + BATCH), { level, run: "bench", status: "final" });
      batchMs.push(performance.now() - b0);
    }
  }
  const indexMs = performance.now() - t;
  const count = await index.count();
  if (count !== library.length) throw new Error(`bench: chroma holds ${count} entries, expected ${library.length}`);
  rows2.push({
    what: `chroma: index ${library.length.toLocaleString("en")} entries (upsert)`,
    n: batchMs.length,
    samples: batchMs,
    total: indexMs,
    note: `per batch of ≤${BATCH}; local embedder alone ${ms(embedMs)} ms in all`,
  });
  const qtext = (i: number) => `${QUERIES[((i % QUERIES.length) + QUERIES.length) % QUERIES.length]} (${i})`;
  const qlevel = (i: number) => levels[(((i * 7) % levels.length) + levels.length) % levels.length]!;
  let hits = 0;
  rows2.push(
    await sampleAsync(
      "chroma: query, level filter, limit 6",
      N.query,
      async (i) => {
        const r = await index.query(qtext(i), { level: qlevel(i), limit: 6 });
        hits += r.length;
      },
      { note: "embed + HTTP + parse hits" },
    ),
  );
  if (hits < 6 * N.query) throw new Error(`bench: level-filtered queries returned ${hits} hits, expected ${6 * N.query}`);
  rows2.push(
    await sampleAsync("chroma: query, level + kind skill, limit 6", N.query, (i) => index.query(qtext(i), { level: qlevel(i), kind: "skill", limit: 6 })),
  );
  rows2.push(await sampleAsync("chroma: query, unfiltered, limit 6", N.query, (i) => index.query(qtext(i), { limit: 6 })));
  rows2.push(sample("local embedder, one query text", N.micro, () => embedder.embed([qtext(3)])));
  t = performance.now();
  await server.stop();
  chroma = undefined;
  rows2.push(oneOff("chroma: stop", performance.now() - t));

  // 3. quickstart
  const rows3 = section(`3. quickstart wall time (node bin/hexa.js run configs/quickstart.yaml${QUICK ? ", rounds: 3" : ""})`);
  const { simulationMs, agentMs, bankMs } = qs.time;
  const share = (v: number) => `${((100 * v) / qs.wallMs).toFixed(1)}% of wall`;
  // Episodes and the levels' bank updates run at once (the physics workers), so their times add up past the wall
  // time: each is shown as a multiple of it, and nothing is subtracted from the wall to make a remainder.
  const summed = (v: number) => `${(v / qs.wallMs).toFixed(2)}× wall, summed over work done at once`;
  rows3.push(oneOff("total wall (spawn → exit)", qs.wallMs, "100%"));
  rows3.push(oneOff("simulation (tool calls)", simulationMs, summed(simulationMs)));
  rows3.push(oneOff("agent (episode time outside tools)", agentMs, summed(agentMs)));
  rows3.push(oneOff("bank (updates)", bankMs, summed(bankMs)));
  rows3.push(oneOff("CLI startup (hexa --help)", qs.startupMs, share(qs.startupMs)));

  printSections(sections);
  console.log(
    `\nbench total ${((performance.now() - t0) / 1000).toFixed(1)} s${QUICK ? " (--quick)" : ""}; ${process.platform}/${process.arch}, node ${process.version}`,
  );
} finally {
  await chroma?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
