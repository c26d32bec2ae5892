/**
 * Strict flags for the bench scripts that drive the CLI: `--name value` for each name the script declares, plus
 * `--write-page` (bench/page.ts). An unknown flag, a missing value or a malformed number stops the script with
 * status 2 and a message naming the flag, before anything runs.
 */
import { WRITE_PAGE_FLAG } from "./page.ts";

/** Print a user mistake and exit 2 (no stack). */
export const failFlag = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(2);
};

/** The declared flags' values (each defaulting to `defaults`), or exit 2 on anything else in `argv`. */
export const parseFlags = <T extends Record<string, string>>(script: string, defaults: T, argv: readonly string[] = process.argv.slice(2)): T => {
  const values: Record<string, string> = { ...defaults };
  const known = Object.keys(defaults).map((k) => `--${k}`);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === WRITE_PAGE_FLAG) continue;
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (name === undefined || !(name in defaults))
      failFlag(`${script}: unknown argument ${JSON.stringify(arg)} (known: ${[...known, WRITE_PAGE_FLAG].join(", ")})`);
    const value = argv[i + 1];
    if (value === undefined || value.startsWith("--")) failFlag(`${script}: --${name} needs a value`);
    values[name!] = value!;
    i++;
  }
  return values as T;
};

/** A whole number ≥ `min` from a flag's text, or exit 2 naming the flag. */
export const intFlag = (script: string, name: string, text: string, min = 1): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    failFlag(`${script}: --${name} must be a whole number ≥ ${min} (got ${JSON.stringify(text)})`);
  return n;
};

/** A comma-separated list, each item one of `allowed`, or exit 2 naming the flag and the bad item. */
export const listFlag = (script: string, name: string, text: string, allowed: readonly string[]): string[] => {
  const items = text.split(",").filter((s) => s !== "");
  if (items.length === 0) failFlag(`${script}: --${name} is empty`);
  for (const item of items) {
    if (!allowed.includes(item)) failFlag(`${script}: --${name}: unknown ${JSON.stringify(item)} (one of: ${allowed.join(", ")})`);
  }
  return items;
};
