import { styleText } from "node:util";
import { closestName } from "../util/closest-name.ts";

/** Where on the command line yargs refused the input: the command path given, and what was valid there. */
export interface UsageContext {
  /** The commands named so far, e.g. ["bank", "show"]; [] at the top. */
  path: readonly string[];
  /** The flags the command takes, without dashes. */
  flags: readonly string[];
  /** The subcommands it takes (at the top: hexa's commands). */
  commands: readonly string[];
}

const UNKNOWN = /^Unknown arguments?: (.+)$/;

/** "did you mean …?" for each unknown argument yargs names that is close to a flag or a subcommand. */
const suggestions = (message: string, c: UsageContext): string[] => {
  const names = UNKNOWN.exec(message)?.[1]?.split(", ") ?? [];
  return names.flatMap((name) => {
    const command = closestName(name, c.commands);
    const flag = command ? undefined : closestName(name, c.flags);
    const meant = command ?? (flag ? `--${flag}` : undefined);
    if (!meant) return [];
    return [names.length === 1 ? `did you mean ${meant}?` : `${name}: did you mean ${meant}?`];
  });
};

/** An error line as the CLI prints it: `hexa: MESSAGE`, red where the terminal shows colour. */
export const errorLine = (message: string, colour: boolean): string =>
  // The caller decided `colour` from stderr (hasColors: a terminal, NO_COLOR, FORCE_COLOR); styleText would look at stdout.
  colour ? styleText("red", `hexa: ${message}`, { validateStream: false }) : `hexa: ${message}`;

/**
 * A usage error as the CLI prints it: the error first, on one line (red where the terminal shows colour), with
 * what the user most likely meant, then a pointer to the command's help, never the help itself.
 */
export const usageErrorText = (message: string, c: UsageContext, launcher: string, colour: boolean): string => {
  const first = errorLine([message, ...suggestions(message, c)].join("; "), colour);
  return `${first}\nsee ${[launcher, ...c.path, "--help"].join(" ")}\n`;
};
