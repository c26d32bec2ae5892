import type { AppContext } from "../../src/app/context.ts";
import { hexaCli } from "../../src/cli/hexa-cli.ts";
import { cell, generatedBanner, table } from "./markdown.ts";

/**
 * docs/reference/cli.md from the yargs declarations: every command's `--help`, rendered in-process with no
 * terminal wrapping (one option a line), parsed into a table per command; subcommands are found in each help's
 * Commands section and walked in turn.
 */

/** One command's help text, as `hexa <path> --help` prints it at an unlimited width. */
const helpOf = async (ctx: AppContext, path: readonly string[]): Promise<string> => {
  let output = "";
  await hexaCli(ctx, [...path, "--help"])
    .wrap(null)
    .exitProcess(false)
    .parseAsync([...path, "--help"], {}, (_err, _argv, out) => {
      output = out;
    });
  return output;
};

/** The lines of one section ("Options:", "Commands:" …) of a help text. */
const section = (help: string, title: string): string[] => {
  const lines = help.split("\n");
  const start = lines.indexOf(`${title}:`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim() === "");
  return lines.slice(start + 1, end < 0 ? undefined : end);
};

/** A help line's last tag: a type, "required", or "key: value" where the value may hold one level of brackets. */
const TAG = /\s*\[(boolean|string|number|array|count|required|deprecated|(?:default|choices|aliases): (?:[^[\]]|\[[^[\]]*\])*)\]$/;

interface Entry {
  name: string;
  description: string;
  tags: string[];
}

/** "  --name, -n  what it does  [string] [default: x]" as its parts (yargs puts two spaces between columns). */
const entryOf = (line: string): Entry => {
  let rest = line.trim();
  const tags: string[] = [];
  for (let m = TAG.exec(rest); m; m = TAG.exec(rest)) {
    tags.unshift(m[1] ?? "");
    rest = rest.slice(0, m.index).trimEnd();
  }
  const gap = rest.search(/\s{2,}/);
  return gap < 0 ? { name: rest, description: "", tags } : { name: rest.slice(0, gap), description: rest.slice(gap).trim(), tags };
};

const tagValue = (tags: readonly string[], key: string): string | undefined => tags.find((t) => t.startsWith(`${key}: `))?.slice(key.length + 2);

const TYPES = ["boolean", "string", "number", "array", "count"];

/** One row of a command's table: name, type (with its choices, and whether required), default, description. */
const row = (e: Entry, positional: boolean): string[] => {
  const type = e.tags.filter((t) => TYPES.includes(t)).join(" ");
  const choices = tagValue(e.tags, "choices");
  const kind = [type, choices ? `one of ${choices}` : "", e.tags.includes("required") ? "required" : ""].filter(Boolean).join(", ");
  const fallback = tagValue(e.tags, "default");
  const aliases = tagValue(e.tags, "aliases");
  const name = positional ? `<${e.name}>` : e.name;
  return [`\`${name}\`${aliases ? ` (${aliases})` : ""}`, kind || "—", fallback === undefined ? "—" : `\`${fallback}\``, e.description || "—"];
};

/** The subcommand names a help's Commands section lists under `path`. */
const subcommandsOf = (help: string, path: readonly string[]): string[] =>
  section(help, "Commands").map((line) => {
    const words = entryOf(line).name.split(/\s+/);
    return words[path.length + 1] ?? "";
  });

const GLOBAL = new Set(["--help", "--version"]);

/** A command's part of the page: heading, description, its arguments and options; then its subcommands'. */
const commandPage = async (ctx: AppContext, path: readonly string[]): Promise<string[]> => {
  const help = await helpOf(ctx, path);
  const [usage = "", , description = ""] = help.split("\n");
  const rows = [
    ...section(help, "Positionals").map((l) => row(entryOf(l), true)),
    ...section(help, "Options")
      .map(entryOf)
      .filter((e) => !GLOBAL.has(e.name.split(",")[0] ?? ""))
      .map((e) => row(e, false)),
  ];
  const subcommands = subcommandsOf(help, path);
  const body = [
    `${"#".repeat(Math.min(path.length + 1, 4))} \`${usage.trim()}\``,
    cell(description.trim()),
    ...(rows.length ? [table(["Argument or option", "Type", "Default", "Description"], rows)] : []),
    ...(subcommands.length ? [`Subcommands: ${subcommands.map((s) => `\`hexa ${[...path, s].join(" ")}\``).join(", ")}.`] : []),
  ];
  const nested = [];
  for (const s of subcommands) nested.push(...(await commandPage(ctx, [...path, s])));
  return [...body, ...nested];
};

/** The whole page, as committed to docs/reference/cli.md. */
export const cliReference = async (ctx: AppContext): Promise<string> => {
  const top = await helpOf(ctx, []);
  const commands = subcommandsOf(top, []);
  const pages = [];
  for (const c of commands) pages.push(...(await commandPage(ctx, [c])));
  return `${[
    generatedBanner("Command-line reference", "the yargs declarations of src/cli/ and each level family's commands"),
    "Every `hexa` command and subcommand, with its arguments and options. Every command also takes `--help`; `hexa --version` prints the version. Guides: [commands](../guides/commands.md).",
    ...pages,
  ].join("\n\n")}\n`;
};
