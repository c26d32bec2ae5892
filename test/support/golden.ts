import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";

const GOLDEN = join(import.meta.dirname, "..", "golden");

/**
 * Compares a rendered text with test/golden/<folder>/<name> (prompts by default), so that a change to a prompt or
 * a trajectory is a visible diff in review; UPDATE_GOLDEN=1 rewrites the file instead. A missing file fails.
 */
export const expectGolden = (name: string, text: string, folder = "prompts"): void => {
  const file = join(GOLDEN, folder, name);
  if (process.env.UPDATE_GOLDEN === "1") {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return;
  }
  if (!existsSync(file)) throw new Error(`${file} is missing: run the test with UPDATE_GOLDEN=1 to write it`);
  expect(text, `${file} differs; if the change is meant, rerun with UPDATE_GOLDEN=1 and review the diff`).toBe(readFileSync(file, "utf8"));
};
