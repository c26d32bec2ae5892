import { lstatSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { BankEvent, foldEvents } from "../store/bank.ts";
import { readJsonl } from "../store/jsonl.ts";
import { carriedLessons } from "../store/lesson-carry.ts";
import type { Lesson } from "../store/lesson.ts";

/**
 * Lessons carried into a p2p search from earlier ones (docs/spec/method.md §3.1 Carried): each earlier search's
 * folder is read as a stranger's (no link followed, sizes bounded, bank-events.jsonl parsed with the bank's schema
 * and folded), its lessons renamed by the folder's name and merged over the union as `hexa transfer` carries them
 * (store/lesson-carry.ts). They enter the new search as `lesson_added` events of iteration 0 in its own
 * bank-events.jsonl, so a resume and `hexa verify` read them from the search itself, never from the sources.
 */

const FLAG = "--lessons-from";
/** What a carried lesson's event says (bank-events.jsonl's `reason`), followed by the sources' names. */
const CARRIED_REASON = "carried from ";
/** A search.json is a few hundred bytes; a bank log of a capped bank with its history stays well under this. */
const MAX_HEADER_BYTES = 64 * 1024;
const MAX_BANK_LOG_BYTES = 8 * 1024 * 1024;
const LABEL_MAX = 40;

const SearchJson = z.object({ strategy: z.string(), task: z.string() });

/** A path inside the source, as a plain file of at most `max` bytes (never a link), or undefined when absent. */
const plainFile = (dir: string, name: string, max: number): string | undefined => {
  const path = join(dir, name);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!st.isFile()) throw new ConfigError(`${FLAG} ${dir}: ${name} is ${st.isSymbolicLink() ? "a link" : "not a plain file"}; links are not followed`);
  if (st.size > max) throw new ConfigError(`${FLAG} ${dir}: ${name} holds ${st.size} bytes, over ${max}; not a p2p search's`);
  return path;
};

/** The source folder, checked to be a p2p search's (a real folder with a search.json of strategy p2p). */
const checkedSource = (dir: string): string => {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dir);
  } catch {
    throw new ConfigError(`${FLAG}: no such folder (got ${JSON.stringify(dir)}); name an earlier p2p search's folder`);
  }
  if (!st.isDirectory()) throw new ConfigError(`${FLAG} ${dir}: ${st.isSymbolicLink() ? "a link (not followed)" : "not a folder"}; name a p2p search's folder`);
  const header = plainFile(dir, "search.json", MAX_HEADER_BYTES);
  if (!header) throw new ConfigError(`${FLAG} ${dir}: no search.json; not a search folder (name one that hexa search --strategy p2p wrote)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(header, "utf8"));
  } catch (e) {
    throw new ConfigError(`${header}: not valid JSON (${(e as Error).message}); the file was edited or damaged`);
  }
  const parsed = SearchJson.safeParse(raw);
  if (!parsed.success) throw new ConfigError(`${header}: ${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  if (parsed.data.strategy !== "p2p")
    throw new ConfigError(`${FLAG} ${dir}: search.json's strategy: ${parsed.data.strategy}; lessons are kept by p2p searches only`);
  return header;
};

/** The name a source's lessons are prefixed by: its folder's name, in id characters. */
const labelOf = (dir: string): string =>
  basename(resolve(dir))
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .slice(0, LABEL_MAX) || "search";

/** One source's bank as its log folds: refused (file, line, field) when a line does not parse or the events do not apply. */
const sourceBank = (dir: string) => {
  checkedSource(dir);
  const log = plainFile(dir, "bank-events.jsonl", MAX_BANK_LOG_BYTES);
  const events = log ? readJsonl(log, BankEvent, { repair: false, input: true }) : [];
  try {
    return foldEvents(events);
  } catch (e) {
    throw new ConfigError(`${log}: ${(e as Error).message}; the file was edited or damaged`);
  }
};

/** The `lesson_added` events (iteration 0) that carry the lessons of the p2p searches in `dirs` into a new one; none when they hold none. */
export const readCarriedLessons = async (dirs: readonly string[]): Promise<BankEvent[]> => {
  const labels = dirs.map(labelOf);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice) throw new ConfigError(`${FLAG}: two folders named ${twice}; their lessons' ids would collide (rename one)`);
  const lessons = await carriedLessons(dirs.map((dir, i) => ({ level: labels[i]!, bank: sourceBank(dir) })));
  return carriedEvents(lessons, labels);
};

export const carriedEvents = (lessons: readonly Lesson[], labels: readonly string[]): BankEvent[] =>
  lessons.map((entry) => BankEvent.parse({ schemaVersion: 1, type: "lesson_added", round: 0, entry, reason: `${CARRIED_REASON}${labels.join(", ")}` }));

export const isCarriedEvent = (e: BankEvent): boolean => e.type === "lesson_added" && e.round === 0 && e.reason.startsWith(CARRIED_REASON);

/** The carried events a search's own bank-events.jsonl holds (what `hexa verify` replays, without the sources). */
export const loggedCarriedEvents = (events: readonly BankEvent[]): BankEvent[] => events.filter(isCarriedEvent);

/** The carried events of the search in `dir`, from its own bank-events.jsonl (read, never repaired). */
export const recordedCarriedEvents = (dir: string): BankEvent[] => loggedCarriedEvents(readJsonl(join(dir, "bank-events.jsonl"), BankEvent, { repair: false }));
