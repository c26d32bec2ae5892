import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { writeJsonAtomic } from "../store/jsonl.ts";
import { CodeVersion } from "../store/run-records.ts";

/**
 * `search-config.json` of a search directory (docs/guides/verify.md): the search as its command resolved it,
 * every setting spelled out, so that `hexa verify` can run it again from the directory alone. The family that
 * made it owns `settings`; the rest is generic. Written when a search starts; a resume keeps `startedAt`.
 */

export const SEARCH_RECORD_FILE = "search-config.json";

export const SearchRecord = z.object({
  schemaVersion: z.literal(1),
  /** The family whose command made the search, and whose replay runs it again. */
  family: z.string().min(1),
  /** When the search first started: a trainer result stored before then was already cached for it. */
  startedAt: z.iso.datetime(),
  code: CodeVersion.describe("the hexa that last started or resumed the search"),
  /** Whether the search was resumed: its model log may then hold exchanges of candidates cut short and proposed again. */
  resumed: z.boolean().optional(),
  /** The family's settings of the search, as resolved (no secret: keys come from the environment). */
  settings: z.record(z.string(), z.unknown()),
});
export type SearchRecord = z.infer<typeof SearchRecord>;

/** The directory's search record; undefined when it has none (a search made before hexa wrote one). */
export const readSearchRecord = (dir: string): SearchRecord | undefined => {
  const path = join(dir, SEARCH_RECORD_FILE);
  if (!existsSync(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: not valid JSON (${(e as Error).message.split("\n")[0]})`);
  }
  const parsed = SearchRecord.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${issue.path.join(".") || "(file)"}: ${issue.message}; not a search record this hexa reads`);
  }
  return parsed.data;
};

export const writeSearchRecord = (dir: string, record: SearchRecord): void => writeJsonAtomic(join(dir, SEARCH_RECORD_FILE), record);
