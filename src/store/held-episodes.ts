import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../util/canonical-json.ts";
import { writeJsonAtomic } from "./jsonl.ts";
import { EpisodeRecord } from "./run-records.ts";

/**
 * The spool of finished episodes that wait to be written in the run's order (docs/ARCHITECTURE.md §4, §6):
 * `held/<episode id, URI-encoded>.json` in the run directory, one file per episode, written atomically the moment
 * the episode finishes and removed once its line is in episodes.jsonl. A process killed outright leaves them, and a
 * resume takes each that matches what it would play instead of playing it again.
 */
export const HELD_DIR = "held";

/** What an episode was played under: a resume uses a held episode only when both match what it would play now. */
export const PlayedWith = z.object({
  bank: z.string().describe("sha256 of the bank the episode was shown (its schema-parsed canonical JSON)"),
  job: z.string().describe("sha256 of the rest of its job: id, phase, level, round, seed, agent, bank round, budget share"),
});
export type PlayedWith = z.infer<typeof PlayedWith>;

const HeldFile = z.object({
  schemaVersion: z.literal(1),
  playedWith: PlayedWith,
  recordSha256: z.string().describe("sha256 of the record's canonical JSON: an edited or damaged record is not used"),
  record: z.unknown(),
});

/** A held episode as read back. */
export interface HeldEpisode {
  playedWith: PlayedWith;
  /** The record, parsed. */
  record: EpisodeRecord;
  /** The record exactly as spooled: what episodes.jsonl gets, so its line is the one the first process would have written. */
  line: EpisodeRecord;
}

/** A held file that could not be read as one, and why; it is never used. */
interface UnreadableHeld {
  file: string;
  problem: string;
}

const fileOf = (id: string) => `${encodeURIComponent(id)}.json`;

const issueOf = (error: z.ZodError) => `${error.issues[0]!.path.join(".") || "(file)"}: ${error.issues[0]!.message}`;

/** A held file's episode, or why it is not one to use. */
const parseHeld = (file: string, name: string): HeldEpisode | string => {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return `not valid JSON (${(e as Error).message})`;
  }
  const held = HeldFile.safeParse(raw);
  if (!held.success) return issueOf(held.error);
  const record = EpisodeRecord.safeParse(held.data.record);
  if (!record.success) return `record.${issueOf(record.error)}`;
  if (sha256Hex(held.data.record) !== held.data.recordSha256) return "its record does not match its checksum (edited or damaged)";
  if (fileOf(record.data.id) !== name) return `holds episode ${record.data.id}, not the one its name says`;
  return { playedWith: held.data.playedWith, record: record.data, line: held.data.record as EpisodeRecord };
};

/** The spool of one run directory. */
export class HeldEpisodes {
  constructor(readonly path: string) {}

  /** Flushes one finished episode to disk before it waits for its turn. */
  hold(record: EpisodeRecord, playedWith: PlayedWith): void {
    mkdirSync(this.path, { recursive: true });
    writeJsonAtomic(join(this.path, fileOf(record.id)), { schemaVersion: 1, playedWith, recordSha256: sha256Hex(record), record });
  }

  /** The episode's line is in episodes.jsonl (or its held file is not used): the file goes. */
  release(id: string): void {
    rmSync(join(this.path, fileOf(id)), { force: true });
  }

  /** Removes a held file that is not used. */
  discard(file: string): void {
    rmSync(file, { force: true });
  }

  /** Every held file, read and checked; one that is not a whole, unedited held episode is reported apart. */
  read(): { held: HeldEpisode[]; unreadable: UnreadableHeld[] } {
    const held: HeldEpisode[] = [];
    const unreadable: UnreadableHeld[] = [];
    for (const name of this.names()) {
      const file = join(this.path, name);
      const parsed = parseHeld(file, name);
      if (typeof parsed === "string") unreadable.push({ file, problem: parsed });
      else held.push(parsed);
    }
    return { held, unreadable };
  }

  /** How many episodes the spool holds (its temporary files aside). */
  count(): number {
    return this.names().length;
  }

  /** Removes the spool's folder once it holds nothing, so a finished run has none. */
  removeIfEmpty(): void {
    if (existsSync(this.path) && readdirSync(this.path).length === 0) rmdirSync(this.path);
  }

  private names(): string[] {
    return existsSync(this.path)
      ? readdirSync(this.path)
          .filter((n) => n.endsWith(".json"))
          .sort()
      : [];
  }
}
