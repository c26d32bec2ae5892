import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { appendJsonl, readJsonl, writeJsonAtomic } from "../store/jsonl.ts";
import { CandidateRecord, SearchHeader, type CandidateLog } from "./candidates.ts";

/**
 * A search directory: `search.json` (what the search is) and `candidates.jsonl` (its lineage, one line per
 * evaluated candidate). The same directory again resumes the search; one holding another search is refused.
 */

/** candidates.jsonl of a search directory, read with torn-line recovery, appended one flushed line per candidate. */
export const jsonlCandidateLog = (dir: string): CandidateLog => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "candidates.jsonl");
  return { read: () => readJsonl(path, CandidateRecord), append: (r) => appendJsonl(path, [r]) };
};

/** Writes search.json, or checks that an existing one (a resume) describes the same search. */
export const openSearchDir = (dir: string, header: SearchHeader): CandidateLog => {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "search.json");
  if (existsSync(path)) {
    const old = SearchHeader.parse(JSON.parse(readFileSync(path, "utf8")));
    const a = JSON.stringify(old);
    const b = JSON.stringify(SearchHeader.parse(header));
    if (a !== b) throw new ConfigError(`${path}: this directory holds another search (${a}; asked for ${b}); give a new --out or the same settings to resume`);
  } else {
    writeJsonAtomic(path, header);
  }
  return jsonlCandidateLog(dir);
};
