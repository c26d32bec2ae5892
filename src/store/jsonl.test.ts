import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appendJsonl, readJsonl, writeJsonAtomic } from "./jsonl.ts";

const Rec = z.object({ n: z.number().int() });
const dir = () => mkdtempSync(join(tmpdir(), "hexa-jsonl-"));

describe("JSONL and atomic files", () => {
  it("appends and reads back records in order", () => {
    const f = join(dir(), "e.jsonl");
    appendJsonl(f, [{ n: 1 }, { n: 2 }]);
    appendJsonl(f, [{ n: 3 }]);
    expect(readJsonl(f, Rec)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(readJsonl(join(dir(), "missing.jsonl"), Rec)).toEqual([]);
  });

  it("cuts a torn last line (a crash mid-write) and keeps appending after it", () => {
    const f = join(dir(), "e.jsonl");
    appendJsonl(f, [{ n: 1 }]);
    appendFileSync(f, '{"n": 2');
    expect(readJsonl(f, Rec)).toEqual([{ n: 1 }]);
    expect(readFileSync(f, "utf8")).toBe('{"n":1}\n');
    appendJsonl(f, [{ n: 3 }]);
    expect(readJsonl(f, Rec)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it("names the file and line of a damaged record", () => {
    const f = join(dir(), "e.jsonl");
    writeFileSync(f, '{"n":1}\n{"n":"two"}\n');
    expect(() => readJsonl(f, Rec)).toThrow(/e\.jsonl:2: n: Invalid input: expected number/);
    writeFileSync(f, "{oops}\n");
    expect(() => readJsonl(f, Rec)).toThrow(/e\.jsonl:1: not valid JSON/);
  });

  it("writes whole files atomically, leaving no temporary file", () => {
    const d = dir();
    writeJsonAtomic(join(d, "m.json"), { a: 1 });
    writeJsonAtomic(join(d, "m.json"), { a: 2 });
    expect(JSON.parse(readFileSync(join(d, "m.json"), "utf8"))).toEqual({ a: 2 });
    expect(readdirSync(d)).toEqual(["m.json"]);
  });
});
