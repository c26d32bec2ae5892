import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { CONFIG_MAX_BYTES, readConfigText } from "./config-file.ts";

const tmp = tempDirs("hexa-config-file-");

describe("readConfigText", () => {
  it("reads a file of exactly the limit and refuses one byte more, naming the file, its size and the limit", () => {
    const dir = tmp();
    const at = join(dir, "at.yaml");
    const over = join(dir, "over.yaml");
    writeFileSync(at, "#".repeat(CONFIG_MAX_BYTES));
    writeFileSync(over, "#".repeat(CONFIG_MAX_BYTES + 1));
    expect(readConfigText(at)).toHaveLength(CONFIG_MAX_BYTES);
    expect(() => readConfigText(over)).toThrow(
      expect.objectContaining({
        name: "ConfigError",
        message: expect.stringMatching(new RegExp(`^${over}: 1,000,001 bytes, over the 1,000,000-byte limit of a config file`)),
      }),
    );
  });

  it("names a missing file with the caller's message and a folder as a folder", () => {
    const dir = tmp();
    mkdirSync(join(dir, "sub"));
    expect(() => readConfigText(join(dir, "none.yaml"), "none.yaml: not there")).toThrow("none.yaml: not there");
    expect(() => readConfigText(join(dir, "sub"))).toThrow(`${join(dir, "sub")}: a folder, not a config file`);
  });
});
