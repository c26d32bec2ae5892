import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { integrationReasons, testFiles } from "./support/test-tiers.ts";
import { SLOW_TESTS } from "./slow-tests.ts";

describe("the test tiers (CONTRIBUTING.md, Tests)", () => {
  it("finds the starts it looks for, in a test's test/ helpers too", () => {
    expect(integrationReasons("test/support/hexa-cli.ts")).toEqual(["test/support/hexa-cli.ts imports node:child_process: a child process"]);
    expect(integrationReasons("test/support/hostile-worker.ts").join("\n")).toMatch(/bullmq: Redis[\s\S]*hexa-cli\.ts imports node:child_process/);
    expect(integrationReasons("test/support/browser.ts")).toEqual(["test/support/browser.ts imports playwright-core: a browser"]);
    expect(integrationReasons("test/support/fake-openai-server.ts")).toEqual([]);
  });

  it("names every test that starts a process, a server or a browser, or reads dist/, *.int.test.ts", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const misnamed = files.filter((f) => !f.endsWith(".int.test.ts")).flatMap((f) => integrationReasons(f));
    expect(misnamed).toEqual([]);
  });

  it("lists only in-process tests that exist as slow", () => {
    expect(SLOW_TESTS.filter((f) => f.endsWith(".int.test.ts") || !existsSync(new URL(`../${f}`, import.meta.url)))).toEqual([]);
  });

  it("mocks no module in a fast test: its files share their worker's modules (vitest.config.ts), so a mock would reach some other files and miss its own", () => {
    const fast = testFiles().filter((f) => !f.endsWith(".int.test.ts") && !SLOW_TESTS.includes(f));
    const mocking = fast.filter((f) => /\bvi\.(mock|doMock|unmock|resetModules)\(/.test(readFileSync(new URL(`../${f}`, import.meta.url), "utf8")));
    expect(mocking).toEqual([]);
  });
});
