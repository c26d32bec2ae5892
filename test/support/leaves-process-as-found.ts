import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { processSnapshot } from "./process-state.ts";

/**
 * A setup file of the fast tier (vitest.config.ts): its test files share a worker process and its modules one
 * after another, so what one file leaves changed in the process would reach the files after it. A file that
 * leaves any of what processSnapshot watches changed fails, naming it, and the process is put back for the next.
 */
const restore = processSnapshot();

afterAll(() => {
  const left = restore();
  if (left.length > 0) {
    const file = relative(process.cwd(), expect.getState().testPath ?? "this test file");
    throw new Error(`${file} left ${left.join(", ")} changed for the test files after it: restore them in its afterEach or afterAll`);
  }
});
