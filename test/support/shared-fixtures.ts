import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** A folder that lives as long as one `vitest run`, for fixtures its files build once and share (e.g. test/support/inspect-runs.ts). */
    sharedFixtures: string;
  }
}

/** A global setup of the int tier (vitest.config.ts): the folder of the fixtures its files share, removed when the run ends. */
export default function sharedFixtures(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "hexa-int-shared-"));
  project.provide("sharedFixtures", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
