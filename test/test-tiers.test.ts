import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { integrationReasons, ownStarts, testFiles } from "./support/test-tiers.ts";
import { SLOW_TESTS } from "./slow-tests.ts";

describe("the test tiers (CONTRIBUTING.md, Tests)", () => {
  it("finds the starts it looks for, in a test's test/ helpers too", () => {
    expect(integrationReasons("test/support/hexa-cli.ts")).toEqual(["test/support/hexa-cli.ts imports node:child_process: a child process"]);
    expect(integrationReasons("test/support/hostile-worker.ts").join("\n")).toMatch(/bullmq: Redis[\s\S]*hexa-cli\.ts imports node:child_process/);
    expect(integrationReasons("test/support/browser.ts")).toEqual(["test/support/browser.ts imports playwright-core: a browser"]);
    expect(integrationReasons("test/support/fake-openai-server.ts")).toEqual([]);
  });

  it("sees a start however it is imported, and not a type or a client-only name", () => {
    // The examples are built from parts, so that this file does not itself read as one that starts a process.
    const [i, q] = ["import", '"'];
    const starts = (text: string) => ownStarts("x.test.ts", text).map((r) => r.replace(/^x\.test\.ts imports /, ""));
    expect(starts(`${i} http from ${q}node:http${q};\nconst s = http.createServer();`)).toEqual(["node:http: a server"]);
    expect(starts(`${i} * as net from ${q}net${q};\nnew net.Server();`)).toEqual(["net: a server"]);
    expect(starts(`const { spawn } = await ${i}(${q}node:child_process${q});`)).toEqual(["node:child_process: a child process"]);
    expect(starts(`export { execa } from ${q}execa${q};`)).toEqual(["execa: a child process (execa)"]);
    expect(starts(`${i} ${q}playwright-core${q};`)).toEqual(["playwright-core: a browser"]);
    expect(starts(`${i} {\n  Queue,\n} from ${q}bullmq${q};`)).toEqual(["bullmq: Redis"]);
    expect(starts(`const bin = join(ROOT, ${q}dist${q}, ${q}bin.js${q});`)).toEqual(["x.test.ts reads dist/"]);
    expect(starts(`${i} type { ChildProcess } from ${q}node:child_process${q};\n${i} { request } from ${q}node:http${q};`)).toEqual([]);
    expect(starts(`${i} http from ${q}node:http${q};\nhttp.request(url);`)).toEqual([]);
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
