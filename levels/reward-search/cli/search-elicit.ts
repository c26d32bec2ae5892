/**
 * Criteria elicitation at a terminal (docs/guides/prompt-to-policy.md, "Criteria you accept"), as Prompt-to-Policy
 * elicits an intent: the vision judge's proposed criteria shown numbered; the user drops, edits or adds lines and
 * confirms 5–10 of them. The accepted list is recorded as `--criteria FILE`'s is, so a resume or `hexa verify`
 * never asks again.
 */
import { createInterface } from "node:readline";
import { ConfigError } from "../../../src/errors.ts";
import { terminalLine } from "../../../src/util/terminal-text.ts";
import { MAX_USER_CRITERIA } from "../judging/vision-criteria.ts";
import { MIN_USER_CRITERIA, UserCriteria } from "./search-criteria.ts";

/** Where the questions go and the answers come from: the terminal, or a test's streams. */
export interface ElicitIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** Turns the proposed criteria into the list the user accepts; refused (ConfigError) when the user quits. */
export type Elicit = (proposed: readonly string[]) => Promise<string[]>;

const HELP = `Enter: accept these · d N: drop line N · e N TEXT: replace line N · a TEXT: add a line · q: quit (nothing is trained)`;

const listText = (criteria: readonly string[]): string => `${criteria.map((c, i) => `  ${String(i + 1).padStart(2)}. ${terminalLine(c)}`).join("\n")}\n`;

/** Why the list cannot be accepted yet, or undefined when it can. */
const refusalOf = (criteria: readonly string[]): string | undefined => {
  const r = UserCriteria.safeParse(criteria);
  if (r.success) return undefined;
  if (criteria.length < MIN_USER_CRITERIA || criteria.length > MAX_USER_CRITERIA)
    return `${criteria.length} criteria: accept ${MIN_USER_CRITERIA}–${MAX_USER_CRITERIA} (Prompt-to-Policy's range); ${criteria.length < MIN_USER_CRITERIA ? "add lines with a TEXT" : "drop lines with d N"}`;
  const i = r.error.issues[0]!;
  return `line ${Number(i.path[0]) + 1}: ${i.message}; each criterion is a sentence of 3–300 characters`;
};

/** The line number N of a command, or a message why it names no line. */
const lineOf = (word: string | undefined, criteria: readonly string[]): number | string => {
  const n = Number(word);
  return Number.isInteger(n) && n >= 1 && n <= criteria.length ? n - 1 : `no line ${JSON.stringify(word ?? "")}; lines are 1–${criteria.length}`;
};

/** One command applied: the new list, or a message to show with the list unchanged. */
export const applyCommand = (criteria: readonly string[], line: string): string[] | string => {
  const [verb, ...rest] = line.trim().split(/\s+/);
  if (verb === "a") return rest.length ? [...criteria, rest.join(" ")] : "a TEXT: give the criterion to add";
  if (verb !== "d" && verb !== "e") return HELP;
  const at = lineOf(rest[0], criteria);
  if (typeof at === "string") return at;
  if (verb === "d") return criteria.filter((_, i) => i !== at);
  const text = rest.slice(1).join(" ");
  return text ? criteria.map((c, i) => (i === at ? text : c)) : "e N TEXT: give line N's new text";
};

/** The criteria the user accepts, asked through `io`; a ConfigError when they quit or the input ends first. */
export const elicitCriteria = async (proposed: readonly string[], io: ElicitIo): Promise<string[]> => {
  const rl = createInterface({ input: io.input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const say = (t: string) => io.output.write(t);
  let criteria = [...proposed];
  say(`The vision judge proposes these criteria for the intent; accept ${MIN_USER_CRITERIA}–${MAX_USER_CRITERIA} of them.\n${HELP}\n`);
  try {
    for (;;) {
      say(`${listText(criteria)}> `);
      const next = await lines.next();
      if (next.done || next.value.trim() === "q") throw new ConfigError("criteria: none accepted; nothing was trained (give --criteria FILE, or run again)");
      if (next.value.trim() === "") {
        const refusal = refusalOf(criteria);
        if (refusal === undefined) return criteria.map((c) => c.trim());
        say(`${refusal}\n`);
        continue;
      }
      const changed = applyCommand(criteria, next.value);
      if (typeof changed === "string") say(`${changed}\n`);
      else criteria = changed;
    }
  } finally {
    rl.close();
  }
};

/** The command's standard input and output, each a terminal or not (process.stdin and process.stdout, or a test's). */
export interface Terminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
}

/** The terminal's elicitation when stdin and stdout are both a terminal, else none (the vision judge's criteria are taken as proposed). */
export const terminalElicit = (t: Terminal): Elicit | undefined =>
  t.stdin.isTTY && t.stdout.isTTY ? (proposed) => elicitCriteria(proposed, { input: t.stdin, output: t.stdout }) : undefined;
