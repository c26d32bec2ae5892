import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { readFlagFile } from "./flag-file.ts";

const tmp = tempDirs("hexa-flag-file-");

describe("a file a flag names", () => {
  it("reads it whole when it fits, and refuses a missing file, a folder or one too big, naming the flag", () => {
    const d = tmp();
    const ok = join(d, "ok.txt");
    writeFileSync(ok, "land softer\n");
    expect(readFlagFile("correct-file", ok, 64)).toBe("land softer\n");
    expect(() => readFlagFile("intent-file", join(d, "none.txt"), 64)).toThrow(/^--intent-file: .*none\.txt: no such file$/);
    mkdirSync(join(d, "folder"));
    expect(() => readFlagFile("criteria", join(d, "folder"), 64)).toThrow(/^--criteria: .*folder is not a file$/);
    expect(() => readFlagFile("judge", ok, 4)).toThrow(/^--judge: .*ok\.txt is 12 bytes, more than 4; not a judge file$/);
    expect(() => readFlagFile("intent-file", ok, 4, "an intent is a few sentences")).toThrow(/more than 4; an intent is a few sentences$/);
  });
});
