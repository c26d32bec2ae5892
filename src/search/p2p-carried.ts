import { lstatSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { BankEvent, EMPTY_BANK, foldEvents, type Bank } from "../store/bank.ts";
import { readJsonl } from "../store/jsonl.ts";
import { carriedLessons } from "../store/lesson-carry.ts";
import type { Lesson } from "../store/lesson.ts";
import { readShippedBank } from "../store/shipped-bank.ts";

/**
 * Lessons carried into a p2p search from earlier ones (docs/spec/method.md §3.1 Carried): each earlier search's
 * folder is read as a stranger's (no link followed, sizes bounded, bank-events.jsonl parsed with the bank's schema
 * and folded), or a bank file as `hexa transfer` writes one (its entries checked); the lessons renamed by the folder's name
 * (the bank's level) and merged over the union as `hexa transfer` carries them
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

/** A p2p search's bank as its log folds: refused (file, line, field) when a line does not parse or the events do not apply. */
const searchBank = (dir: string): Bank => {
  checkedSource(dir);
  const log = plainFile(dir, "bank-events.jsonl", MAX_BANK_LOG_BYTES);
  const events = log ? readJsonl(log, BankEvent, { repair: false, input: true }) : [];
  try {
    return foldEvents(events);
  } catch (e) {
    throw new ConfigError(`${log}: ${(e as Error).message}; the file was edited or damaged`);
  }
};

/** A source: a p2p search's folder (named by the folder), or a bank file as `hexa transfer` writes one (named by its level). */
const sourceOf = (path: string): { level: string; bank: Bank } => {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    throw new ConfigError(`${FLAG}: no such folder or file (got ${JSON.stringify(path)}); name an earlier p2p search's folder or a bank file`);
  }
  if (st.isSymbolicLink()) throw new ConfigError(`${FLAG} ${path}: a link (not followed); name the folder or file itself`);
  if (st.isDirectory()) return { level: labelOf(path), bank: searchBank(path) };
  if (!st.isFile()) throw new ConfigError(`${FLAG} ${path}: neither a folder nor a plain file`);
  if (st.size > MAX_BANK_LOG_BYTES) throw new ConfigError(`${FLAG} ${path}: ${st.size} bytes, over ${MAX_BANK_LOG_BYTES}; not a bank file`);
  const b = readShippedBank(path);
  return { level: labelOf(b.level), bank: { ...EMPTY_BANK, ...(b.lessons ? { lessons: b.lessons } : {}) } };
};

/**
 * The `lesson_added` events (iteration 0) that carry the lessons of `paths` (p2p search folders, bank files) into a
 * new search; none when they hold none.
 */
export const readCarriedLessons = async (paths: readonly string[]): Promise<BankEvent[]> => {
  const sources = paths.map(sourceOf);
  const labels = sources.map((s) => s.level);
  const twice = labels.find((l, i) => labels.indexOf(l) !== i);
  if (twice) throw new ConfigError(`${FLAG}: two sources named ${twice}; their lessons' ids would collide (rename a folder, or give one bank per level)`);
  return carriedEvents(await carriedLessons(sources), labels);
};

const carriedEvents = (lessons: readonly Lesson[], labels: readonly string[]): BankEvent[] =>
  lessons.map((entry) => BankEvent.parse({ schemaVersion: 1, type: "lesson_added", round: 0, entry, reason: `${CARRIED_REASON}${labels.join(", ")}` }));

export const isCarriedEvent = (e: BankEvent): boolean => e.type === "lesson_added" && e.round === 0 && e.reason.startsWith(CARRIED_REASON);

/** The carried events a search's own bank-events.jsonl holds (what `hexa verify` replays, without the sources). */
const loggedCarriedEvents = (events: readonly BankEvent[]): BankEvent[] => events.filter(isCarriedEvent);

/** The carried events of the search in `dir`, from its own bank-events.jsonl (read, never repaired). */
export const recordedCarriedEvents = (dir: string): BankEvent[] => loggedCarriedEvents(readJsonl(join(dir, "bank-events.jsonl"), BankEvent, { repair: false }));
