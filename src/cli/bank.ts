import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { ConfigError } from "../errors.ts";
import { SkillIndexConfig, type RunConfig } from "../loop/run-config.ts";
import { byWeight, foldEvents, type Bank, type BankEntry, type BankEvent } from "../store/bank.ts";
import type { EmbeddingConfig } from "../store/embedding.ts";
import { updateKey } from "../store/run-dir.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { openSkillIndex } from "./run-setup.ts";
import { lastCommitted, openRun } from "./run-open.ts";

/**
 * `hexa bank`: read a run's skill bank (show, history) and the cross-run Chroma index (reindex, query).
 * These commands only read a run (`repair: false`): a live run may be writing its files, so a torn last line
 * is skipped here, never cut off as it is on resume.
 */

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
    `${level}: bank after round ${round} (${bank.skills.length} skills, ${bank.mistakes.length} mistakes)`,
    "skills, heaviest first:",
    ...(bank.skills.length ? byWeight(bank.skills).flatMap(entryLines) : ["  (none)"]),
    "mistakes, heaviest first:",
    ...(bank.mistakes.length ? byWeight(bank.mistakes).flatMap(entryLines) : ["  (none)"]),
  ].join("\n");

const show = defineCommand({
  command: "show <run>",
  describe: "a run's bank after a round (default: the last committed), skills and mistakes by weight",
  builder: (y) =>
    y
      .positional("run", { type: "string", demandOption: true, describe: "a run directory, e.g. runs/<id>" })
      .option("level", { type: "string", describe: "only this level" })
      .option("round", {
        type: "string",
        describe: "the bank after this round (0: the initial bank)",
        coerce: (v) => (v === undefined ? v : intFlag("round", 0, 10_000)(v)),
      }),
  handler: (argv) => {
    const path = argv.run;
    const { dir, cfg } = openRun(path);
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
    process.stdout.write(`run ${dir.meta.id}\n\n${parts.join("\n\n")}\n`);
  },
});

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
  }
};

const history = defineCommand({
  command: "history <run>",
  describe: "every committed bank event, one a line (round, type, ids, reason): how the skills evolved",
  builder: (y) =>
    y
      .positional("run", { type: "string", demandOption: true, describe: "a run directory, e.g. runs/<id>" })
      .option("level", { type: "string", describe: "only this level" }),
  handler: (argv) => {
    const { dir, cfg } = openRun(argv.run);
    const log = dir.bankLog({ repair: false });
    const parts = levelsOf(cfg, argv.level).map((level) => {
      const events = log.events.get(level) ?? [];
      const last = lastCommitted(log, cfg, level);
      return [`${level}: ${events.length} events, committed through round ${last < 0 ? "– (none yet)" : last}`, ...events.map(eventLine)].join("\n");
    });
    process.stdout.write(`run ${dir.meta.id}\n\n${parts.join("\n\n")}\n`);
  },
});

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

const reindex = defineCommand({
  command: "reindex [runs..]",
  describe: "rebuild the Chroma skill index from the runs' bank-events.jsonl (default: every run under --runs-dir)",
  builder: (y) =>
    y
      .positional("runs", { type: "string", array: true, describe: "run directories" })
      .option("runs-dir", { type: "string", default: "runs", describe: "where to look for runs when none is named" })
      .option("data-dir", { type: "string", describe: "the embedded Chroma server's data directory (default: the runs' skillIndex.dataDir)" }),
  handler: async (argv) => {
    const runs = runsToIndex(argv.runs ?? [], argv["runs-dir"]);
    const opened = runs.map((p) => ({ path: p, ...openRun(p) }));
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
        process.stdout.write(`${dir.meta.id}: indexed ${total} entries (${counts.map((c) => `${c.level} ${c.n}`).join(", ")}), ${status}\n`);
      }
      process.stdout.write(`index: ${await index.count()} entries in all (${process.env.CHROMA_URL?.trim() ? url : dataDir})\n`);
    } finally {
      await stop();
    }
  },
});

const query = defineCommand({
  command: "query <text>",
  describe: "the index entries closest to a text, best first (score = cosine similarity)",
  builder: (y) =>
    y
      .positional("text", { type: "string", demandOption: true })
      .option("level", { type: "string", describe: "only entries learned on this level" })
      .option("kind", { choices: ["skill", "mistake"] as const, describe: "only skills or only mistakes" })
      .option("limit", { type: "string", default: 5, coerce: intFlag("limit", 1, 1000), describe: "hits to print" })
      .option("data-dir", { type: "string", describe: `the embedded Chroma server's data directory (default: ${SkillIndexConfig.parse({}).dataDir})` }),
  handler: async (argv) => {
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
          `${h.score.toFixed(3)}  ${h.entry.kind.padEnd(7)} ${h.level.padEnd(18)} ${h.run} (${h.status}) ${h.entry.id}: ${titleOf(h.entry)}\n`,
        );
      }
    } finally {
      await stop();
    }
  },
});

export const bankCommand: CommandModule = {
  command: "bank",
  describe: "a run's skill bank (show, history) and the cross-run skill index (reindex, query)",
  builder: (y: Argv) => y.command(show).command(history).command(reindex).command(query).demandCommand(1, "name a bank subcommand; see hexa bank --help"),
  handler: () => {},
};
