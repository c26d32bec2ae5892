import type { Argv, CommandModule } from "yargs";
import type { AppContext } from "../app/context.ts";
import { defineCommand } from "../cli-kit/define-command.ts";
import { asYargsCommand } from "../cli-kit/lazy-command.ts";

const shortDescription = (text: string, max = 100) => {
  const first = text.split(/(?<=\.)\s/)[0]!;
  return first.length <= max ? first : `${first.slice(0, max - 1).trimEnd()}…`;
};

/** Columns padded to their widest cell (numbers right-aligned); the last one shortened to fit a line. */
const table = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = header.slice(0, -1).map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^-?[\d.,]+$/.test(r[i] ?? "")));
  const line = (cells: readonly string[], shorten: boolean) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? (shorten ? shortDescription(c, 110) : c) : numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ");
  return [line(header, false), ...rows.map((r) => line(r, true))].join("\n") + "\n";
};

const list = (ctx: AppContext) =>
  defineCommand({
    command: "list",
    describe: "a family's levels (tasks) with what the family shows of them",
    builder: (y) => y.option("family", { choices: ctx.families.ids(), default: ctx.families.ids()[0]!, describe: "the level family" }),
    handler: async (argv) => {
      const family = ctx.families.modules().find((m) => m.id === argv.family)!;
      const { header, rows } = await family.listing();
      if (family.id !== ctx.families.ids()[0]) process.stdout.write(`${family.title}\n`);
      process.stdout.write(table(header, rows));
    },
  });

export const levelsCommand = (ctx: AppContext): CommandModule => ({
  command: "levels",
  describe: "the levels of each family: list them, and each family's own level commands (certify, show, check-scenes ...)",
  builder: (y: Argv) =>
    ctx.families
      .modules()
      .reduce((acc, m) => (m.levelCommands ?? []).reduce((a, c) => a.command(asYargsCommand(c)), acc), y.command(list(ctx)))
      .demandCommand(1),
  handler: () => {},
});
