import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSceneFile, type SceneFile } from "../../levels/interphyre/scene-check.ts";

/** Interphyre's certified scenes stay in ../shared (their data, not ours); a user's clone may not have them. */
export const FIXTURES_DIR = join(process.cwd(), "..", "shared", "fixtures", "interphyre");

export const fixturesPresent = existsSync(FIXTURES_DIR);

export const loadFixtureFiles = (): SceneFile[] =>
  readdirSync(FIXTURES_DIR)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => parseSceneFile(JSON.parse(readFileSync(join(FIXTURES_DIR, f), "utf8")), f));

export const noticeIfAbsent = (what: string): void => {
  if (!fixturesPresent) console.warn(`[skip] ${what}: ${FIXTURES_DIR} is absent (a clone without ../shared)`);
};
