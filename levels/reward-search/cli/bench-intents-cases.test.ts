import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { benchCases, csvRecords, P2P_CASES_FILE, readP2pCases } from "./bench-intents-cases.ts";

const dir = mkdtempSync(join(tmpdir(), "hexa-intents-cases-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const csv = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("the intents bench's cases", () => {
  it("reads P2P's CSV as published: 15 intents, 5 per environment, their categories and difficulties", () => {
    const cases = readP2pCases();
    expect(cases).toHaveLength(15);
    const count = (k: "task" | "category", v: string) => cases.filter((c) => c[k] === v).length;
    expect([count("task", "ant"), count("task", "half_cheetah"), count("task", "humanoid")]).toEqual([5, 5, 5]);
    expect(["acrobatic", "pose", "locomotion", "balance", "style"].map((c) => count("category", c))).toEqual([6, 3, 2, 2, 2]);
    // A quoted instruction with commas inside stays one field.
    expect(cases[10]!.intent).toMatch(/^Perform a plank by extending the legs behind the body and supporting weight through the arms and feet, while/);
    expect(cases[0]).toMatchObject({ id: "p2p-01-ant", difficulty: "medium", source: "p2p" });
    expect(readFileSync(P2P_CASES_FILE, "utf8").split("\n")[0]).toBe("env_id,instruction,category,difficulty");
  });

  it("refuses an environment hexa does not run, naming the row, and a header that is not P2P's", () => {
    const walker = csv("w.csv", 'env_id,instruction,category,difficulty\nAnt-v5,"Walk, then stop",locomotion,easy\nWalker2d-v5,Walk,locomotion,easy\n');
    expect(() => readP2pCases(walker)).toThrow(/row 3: env_id "Walker2d-v5" is not one hexa runs; known: Ant-v5, HalfCheetah-v5, Humanoid-v5/);
    const header = csv("h.csv", "env,instruction,category,difficulty\nAnt-v5,Walk,locomotion,easy\n");
    expect(() => readP2pCases(header)).toThrow(/its header is "env,instruction,category,difficulty", not env_id,instruction,category,difficulty/);
    const short = csv("s.csv", "env_id,instruction,category,difficulty\nAnt-v5,Walk,locomotion\n");
    expect(() => readP2pCases(short)).toThrow(/row 2 has 3 fields, not 4/);
  });

  it("parses quoted fields with doubled quotes and CRLF line ends", () => {
    expect(csvRecords('a,"b ""c"", d"\r\ne,f\r\n')).toEqual([
      ["a", 'b "c", d'],
      ["e", "f"],
    ]);
  });

  it("picks cases by id, P2P's and the F-backed ones, and refuses an unknown id with the list", () => {
    expect(benchCases(["f-hopper", "p2p-12-humanoid"]).map((c) => [c.task, c.source])).toEqual([
      ["hopper", "f-backed"],
      ["humanoid", "p2p"],
    ]);
    expect(benchCases(undefined)).toHaveLength(18);
    expect(() => benchCases(["nope"])).toThrow(/--cases: no case "nope"; the cases are p2p-01-ant, /);
  });
});
