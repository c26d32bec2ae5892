import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { FamilyRegistry } from "../app/families.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedFile } from "../family/replay.ts";
import type { SearchRecord } from "../search/search-record.ts";
import { finishedSearch, openSearchReplay } from "./verify-search.ts";

/** Whether a directory is a `hexa search` directory (and not a run that holds searches). */
export const isSearchDirectory = (dir: string): boolean => existsSync(join(dir, "search.json")) && !existsSync(join(dir, "run.json"));

/**
 * What `hexa bundle` packs beside a search directory's own files (docs/guides/publishing.md): the files its
 * replay reads outside it (reward search: the trainer cache entries of its trainings). They are found by
 * replaying the search as `hexa verify` does, which trains nothing; a replay that ends early is noted, and
 * the bundle holds what it read.
 */
export const searchReplayFiles = async (
  families: FamilyRegistry,
  dir: string,
  note: (line: string) => void,
): Promise<{ record: SearchRecord; files: RecordedFile[] }> => {
  const record = finishedSearch(dir);
  const work = mkdtempSync(join(tmpdir(), "hexa-bundle-search-"));
  try {
    const replay = await openSearchReplay(families, dir, record, work, "own");
    try {
      const failed = await replay.execute(join(work, "search"));
      const problem = replay.family.missing() ?? failed?.message;
      if (problem) note(`note: a replay of the search to find what it reads ended early (${problem}); hexa verify of this bundle will say what it lacks`);
      return { record, files: replay.family.recordedFiles() };
    } finally {
      await replay.family.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
