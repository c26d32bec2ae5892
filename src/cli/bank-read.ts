import { existsSync, readdirSync, statSync } from "node:fs";
import type { FamilyRegistry } from "../app/families.ts";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { SkillIndexConfig, type RunConfig } from "../loop/run-config.ts";
import { byWeight, foldEvents, type Bank, type BankEntry, type BankEvent } from "../store/bank.ts";
import { lessonsText } from "../report/lessons-text.ts";
import type { EmbeddingConfig } from "../store/embedding.ts";
import { updateKey } from "../store/run-dir.ts";
import { terminalText } from "../util/terminal-text.ts";
import { openSkillIndex } from "../app/run-setup.ts";
import { lastCommitted, openRun } from "./run-open.ts";
import { readerConfig } from "./run-config-trust.ts";

import type { HistoryArgs, QueryArgs, ReindexArgs, ShowArgs } from "./bank.ts";

/** What `hexa bank` (src/cli/bank.ts) prints; these only read a run (`repair: false`). */
const levelsOf = (cfg: RunConfig, level: unknown): string[] => {
  if (level === undefined) return cfg.levels;
  if (!cfg.levels.includes(String(level)))
    throw new ConfigError(`--level: not a level of this run (got ${String(level)}); use one of ${cfg.levels.join(", ")}`);
  return [String(level)];
};

const list = (xs: readonly (string | number)[]) => (xs.length ? xs.join(", ") : "none");
const meanR = (e: BankEntry) => (e.evidence.count ? (e.evidence.sumR / e.evidence.count).toFixed(2) : "–");

const entryLines = (e: BankEntry): string[] => [
  `  ${e.id}  weight ${e.weight.toFixed(2)}  evidence ${e.evidence.count} trajectories (mean r ${meanR(e)})  generation ${e.generation}  source seeds ${list(e.sourceSeeds)}  parents ${list(e.parents)}${e.kind === "skill" ? `  [${e.sourceType}]` : ""}`,
  ...(e.kind === "skill"
    ? [`    title:     ${e.title}`, `    principle: ${e.principle}`, `    when:      ${e.whenToApply}`, ...(e.example ? [`    example:   ${e.example}`] : [])]
    : [`    what goes wrong: ${e.description}`, `    root cause:      ${e.rootCause}`, `    correction:      ${e.correction}`]),
];

const bankText = (level: string, round: number, bank: Bank): string =>
  [
    `${level}: bank after round ${round} (${bank.skills.length} skills, ${bank.mistakes.length} mistakes${bank.lessons ? `, ${bank.lessons.length} lessons` : ""})`,
    "skills, heaviest first:",
    ...(bank.skills.length ? byWeight(bank.skills).flatMap(entryLines) : ["  (none)"]),
    "mistakes, heaviest first:",
    ...(bank.mistakes.length ? byWeight(bank.mistakes).flatMap(entryLines) : ["  (none)"]),
    ...(bank.lessons ? lessonsText(bank.lessons) : []),
  ].join("\n");

const titleOf = (e: BankEntry) => (e.kind === "skill" ? e.title : e.description);

/** One line per event: what changed, and the evolver's reason. */
export const eventLine = (e: BankEvent): string => {
  const head = `r${String(e.round).padEnd(3)} ${e.type.padEnd(9)}`;
  const why = e.reason ? ` — ${e.reason}` : "";
  switch (e.type) {
    case "add":
      return `${head} ${e.entry.id} (${e.entry.kind}: ${titleOf(e.entry)})${why}`;
    case "merge":
      return `${head} ${e.from.join(" + ")} → ${e.entry.id} (${e.entry.kind}: ${titleOf(e.entry)})${why}`;
    case "revise":
      return `${head} ${e.entry.id} (${e.entry.kind}: ${titleOf(e.entry)})${why}`;
    case "reweight":
      return `${head} ${e.id} → weight ${e.weight.toFixed(2)} (evidence ${e.evidenceState.count})${why}`;
    case "prune":
      return `${head} ${e.id} (${e.why})${why}`;
    case "evolver_failure":
      return `${head} ${e.error}`;
    case "lesson_added":
      return `${head} ${e.entry.id} (lesson, ${e.entry.tier}: ${e.entry.text})${why}`;
    case "lesson_tier_changed":
      return `${head} ${e.id} ${e.from} → ${e.to} by ${e.by} — ${e.reason}`;
    case "lessons_merged":
      return `${head} ${e.from.join(" + ")} → ${e.entry.id} (lesson, ${e.entry.tier}: ${e.entry.text})${why}`;
  }
};

/** The runs named, or every run directory under runsDir. */
const runsToIndex = (named: readonly string[], runsDir: string): string[] => {
  if (named.length) return [...named];
  if (!existsSync(runsDir) || !statSync(runsDir).isDirectory())
    throw new ConfigError(`--runs-dir: no such directory (got ${runsDir}); name the runs or the folder hexa run wrote them to`);
  const found = readdirSync(runsDir)
    .map((name) => join(runsDir, name))
    .filter((p) => existsSync(join(p, "run.json")))
    .sort();
  if (!found.length) throw new ConfigError(`--runs-dir: no run directories in ${runsDir} (got none with a run.json); run hexa run first or name the runs`);
  return found;
};

/** One value the runs agree on (data dir, embedding), or an error naming the flag that settles it. */
const agreed = (what: string, values: string[], fix: string): string => {
  const distinct = [...new Set(values)];
  if (distinct.length > 1) throw new ConfigError(`${what}: the runs differ (got ${distinct.join(" | ")}); ${fix}`);
  return distinct[0]!;
};

/** `hexa bank show`: a run's bank after a round, skills and mistakes by weight. */
export const showBank = (families: FamilyRegistry, argv: ShowArgs): void => {
  const path = argv.run;
  const { dir, cfg } = openRun(families, path);
  const log = dir.bankLog({ repair: false });
  const asked = argv.round;
  if (asked !== undefined && asked > cfg.rounds) throw new ConfigError(`--round: the run has rounds 0–${cfg.rounds} (got ${asked}); pick one of them`);
  const parts = levelsOf(cfg, argv.level).map((level) => {
    const last = lastCommitted(log, cfg, level);
    if (last < 0) return `${level}: no bank update committed yet`;
    if (asked !== undefined && asked > last)
      throw new ConfigError(`--round: ${level} has committed rounds 0–${last} so far (got ${asked}); pick a round ≤ ${last} or let the run finish`);
    const round = asked ?? last;
    return bankText(level, round, foldEvents(log.events.get(level) ?? [], round));
  });
  process.stdout.write(terminalText(`run ${dir.meta.id}\n\n${parts.join("\n\n")}\n`));
};

/** `hexa bank history`: every committed bank event of a run, one a line. */
export const bankHistory = (families: FamilyRegistry, argv: HistoryArgs): void => {
  const { dir, cfg } = openRun(families, argv.run);
  const log = dir.bankLog({ repair: false });
  const parts = levelsOf(cfg, argv.level).map((level) => {
    const events = log.events.get(level) ?? [];
    const last = lastCommitted(log, cfg, level);
    return [`${level}: ${events.length} events, committed through round ${last < 0 ? "– (none yet)" : last}`, ...events.map(eventLine)].join("\n");
  });
  process.stdout.write(terminalText(`run ${dir.meta.id}\n\n${parts.join("\n\n")}\n`));
};

/** `hexa bank reindex`: the Chroma skill index rebuilt from the runs' bank events. */
export const reindexRuns = async (families: FamilyRegistry, argv: ReindexArgs): Promise<void> => {
  const runs = runsToIndex(argv.runs ?? [], argv["runs-dir"]);
  const note = (line: string) => process.stderr.write(`${line}\n`);
  // The runs may be strangers': their index folder and embedding endpoint are used only when the reader says so.
  const opened = runs.map((p) => {
    const { dir, cfg } = openRun(families, p);
    return { path: p, dir, cfg: readerConfig(cfg, { trust: argv["trust-run-config"], where: `${p}/config.yaml`, note, families: families.all() }) };
  });
  const dataDir =
    argv["data-dir"] ??
    agreed(
      "skillIndex.dataDir",
      opened.map((r) => r.cfg.skillIndex.dataDir),
      "pass --data-dir",
    );
  const embedding = agreed(
    "skillIndex.embedding",
    opened.map((r) => JSON.stringify(r.cfg.skillIndex.embedding)),
    "index runs with one embedding at a time",
  );
  const { index, url, stop } = await openSkillIndex(dataDir, JSON.parse(embedding) as EmbeddingConfig);
  try {
    for (const { dir, cfg } of opened) {
      const log = dir.bankLog({ repair: false });
      const status = cfg.levels.every((l) => log.done.has(updateKey(l, cfg.rounds))) ? "final" : "running";
      const counts = cfg.levels.map((level) => {
        const bank = foldEvents(log.events.get(level) ?? []);
        return { level, n: bank.skills.length + bank.mistakes.length };
      });
      await index.rebuildFromEvents(cfg.levels.map((level) => ({ level, run: dir.meta.id, status, events: log.events.get(level) ?? [] })));
      const total = counts.reduce((s, c) => s + c.n, 0);
      process.stdout.write(terminalText(`${dir.meta.id}: indexed ${total} entries (${counts.map((c) => `${c.level} ${c.n}`).join(", ")}), ${status}\n`));
    }
    process.stdout.write(`index: ${await index.count()} entries in all (${process.env.CHROMA_URL?.trim() ? url : dataDir})\n`);
  } finally {
    await stop();
  }
};

/** `hexa bank query`: the index entries closest to a text, best first. */
export const queryIndex = async (argv: QueryArgs): Promise<void> => {
  // The index is queried with the default embedding, the one `reindex` uses for runs on the default config.
  const defaults = SkillIndexConfig.parse({});
  const dataDir = argv["data-dir"] ?? defaults.dataDir;
  const { index, stop } = await openSkillIndex(dataDir, defaults.embedding);
  try {
    const hits = await index.query(argv.text, {
      limit: argv.limit,
      ...(argv.level !== undefined ? { level: argv.level } : {}),
      ...(argv.kind !== undefined ? { kind: argv.kind } : {}),
    });
    if (!hits.length) {
      process.stdout.write(`no matching entries in the index at ${dataDir}; build it with hexa bank reindex\n`);
      return;
    }
    for (const h of hits) {
      process.stdout.write(
        terminalText(`${h.score.toFixed(3)}  ${h.entry.kind.padEnd(7)} ${h.level.padEnd(18)} ${h.run} (${h.status}) ${h.entry.id}: ${titleOf(h.entry)}\n`),
      );
    }
  } finally {
    await stop();
  }
};
