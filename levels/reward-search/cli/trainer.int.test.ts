import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const hexa = fileURLToPath(new URL("../../../bin/hexa.js", import.meta.url));
const fake = fileURLToPath(new URL("../trainer/fixtures/fake-trainer.ts", import.meta.url));

describe("hexa trainer check", () => {
  it("passes a conforming trainer given after --, and exits 0", async () => {
    const r = await execa(process.execPath, [hexa, "trainer", "check", "--", process.execPath, "--import", "tsx", fake, "ok"], { reject: false });
    expect(r.stdout).toMatch(/all 9 checks passed/);
    expect(r.stdout).toMatch(/pass\s+a broken reward is an error with the fault/);
    expect(r.exitCode).toBe(0);
  });

  it("fails a command that does not exist, naming it, and exits 1", async () => {
    const r = await execa(process.execPath, [hexa, "trainer", "check", "--", "/no/such/trainer", "--flag"], { reject: false });
    expect(r.stdout).toMatch(/FAIL\s+starts and says hello .*\/no\/such\/trainer --flag.*not found/);
    expect(r.stdout).toMatch(/9 of 9 checks failed/);
    expect(r.exitCode).toBe(1);
  });
});
