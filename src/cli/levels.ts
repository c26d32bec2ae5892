import type { Argv, CommandModule } from "yargs";
import { DEFAULT_BUDGET } from "../../families/interphyre/certify.ts";
import { getLevel, listLevels } from "../../families/interphyre/levels/index.ts";
import { getTask } from "../../families/reward-search/tasks/index.ts";
import { familyIds, getFamily } from "./families.ts";
import { ConfigError } from "../errors.ts";
import { runCertification } from "../../families/interphyre/cli/certify-runner.ts";
import { checkScenesCommand } from "../../families/interphyre/cli/check-scenes.ts";
import { readCertified } from "../../families/interphyre/certified-seeds.ts";
import { replayCommand } from "../../families/interphyre/cli/replay.ts";
import { showCommand } from "../../families/interphyre/cli/show.ts";

const positiveInt = (name: string) => (v: unknown) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new ConfigError(`--${name} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
};

const certify: CommandModule = {
  command: "certify <level>",
  describe: "find certified seeds by oracle search (resumes where it stopped); <level> may be 'all'",
  builder: (y: Argv) =>
    y
      .positional("level", { type: "string", demandOption: true })
      .option("seeds", { type: "number", default: 120, coerce: positiveInt("seeds"), describe: "certified seeds wanted" })
      .option("workers", { type: "number", default: 2, coerce: positiveInt("workers"), describe: "parallel processes" })
      .option("random", { type: "number", default: DEFAULT_BUDGET.random, describe: "random placements per seed" })
      .option("refine", { type: "number", default: DEFAULT_BUDGET.refine, describe: "refinements per seed" })
      .option("dir", { type: "string", describe: "where the certified files live (default: levels/interphyre/certified)" })
      .option("quiet", { type: "boolean", default: false }),
  handler: async (argv) => {
    const level = String(argv.level);
    const ids = level === "all" ? listLevels() : [getLevel(level).id];
    const budget = { ...DEFAULT_BUDGET, random: Number(argv.random), refine: Number(argv.refine) };
    for (const id of ids) {
      const data = await runCertification({
        level: id,
        target: Number(argv.seeds),
        budget,
        workers: Number(argv.workers),
        ...(argv.dir ? { dir: String(argv.dir) } : {}),
        progress: (line) => {
          if (!argv.quiet) process.stderr.write(`\r\x1b[K${line}`);
        },
      });
      process.stderr.write(`\r\x1b[K`);
      process.stdout.write(`${id}: ${data.seeds.length} certified, ${data.rejected.length} rejected\n`);
    }
  },
};

const shortDescription = (text: string, max = 100) => {
  const first = text.split(/(?<=\.)\s/)[0]!;
  return first.length <= max ? first : `${first.slice(0, max - 1).trimEnd()}…`;
};

const list: CommandModule = {
  command: "list",
  describe: "the levels: goal pair, certified seeds, a short description (--family reward-search: the tasks)",
  builder: (y: Argv) => y.option("family", { choices: familyIds(), default: "interphyre" }),
  handler: (argv) => {
    if (argv.family !== "interphyre") {
      const family = getFamily(String(argv.family));
      process.stdout.write(`${family.title}\n${"task".padEnd(26)} ${"solved at F ≥".padStart(13)}  description\n`);
      for (const id of family.listLevels()) {
        const t = getTask(id);
        process.stdout.write(`${id.padEnd(26)} ${String(t.fitness.solved).padStart(13)}  ${shortDescription(t.title, 110)}\n`);
      }
      return;
    }
    process.stdout.write(`${"level".padEnd(20)} ${"goal (3 s contact)".padEnd(30)} ${"seeds".padStart(5)}  description\n`);
    for (const id of listLevels()) {
      const def = getLevel(id);
      const n = readCertified(id)?.seeds.length ?? 0;
      process.stdout.write(`${id.padEnd(20)} ${def.goal.join(" ↔ ").padEnd(30)} ${String(n).padStart(5)}  ${shortDescription(def.description)}\n`);
    }
  },
};

export const levelsCommand: CommandModule = {
  command: "levels",
  describe: "Interphyre levels: list, show, certify seeds, check scenes, replay certified solutions",
  builder: (y: Argv) => y.command(list).command(showCommand).command(certify).command(checkScenesCommand).command(replayCommand).demandCommand(1),
  handler: () => {},
};
