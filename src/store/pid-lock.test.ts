import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { takePidLock } from "./pid-lock.ts";

describe("takePidLock", () => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-pid-lock-"));
  const path = join(dir, "x.lock");
  const inUse = (holder: string) => `in use by ${holder}`;
  afterEach(() => rmSync(path, { force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes this pid, and the release removes the file", () => {
    const release = takePidLock(path, inUse);
    expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
    release();
    expect(existsSync(path)).toBe(false);
  });

  it("refuses a lock held by a live process, naming its pid", () => {
    writeFileSync(path, `${process.ppid}\n`);
    expect(() => takePidLock(path, inUse)).toThrow(`in use by process ${process.ppid}`);
  });

  it("takes over a lock left by a dead process, by its own earlier life, or with no pid", () => {
    for (const text of ["2147483646\n", `${process.pid}\n`, ""]) {
      writeFileSync(path, text);
      const release = takePidLock(path, inUse);
      expect(readFileSync(path, "utf8")).toBe(`${process.pid}\n`);
      release();
      expect(existsSync(path)).toBe(false);
    }
  });
});
