import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { CONFIG_MAX_BYTES, parseYamlText, readConfigText, readYamlMapping } from "./yaml-file.ts";

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

describe("parseYamlText", () => {
  it("names the source, the line and column, the parser's reason and the line itself", () => {
    expect(() => parseYamlText("levels: [a\nrounds: 2", "x.yaml")).toThrow(
      expect.objectContaining({
        name: "ConfigError",
        message:
          'x.yaml: not valid YAML at line 2, column 1: Flow sequence in block collection must be sufficiently indented and end with a ] (got "rounds: 2"); fix that line, or compare with a file under configs/',
      }),
    );
  });

  it("refuses a document that expands its aliases without bound, naming the source", () => {
    const bomb = ["a: &a [1]", ...Array.from({ length: 200 }, (_, i) => `b${i}: [${Array(11).fill("*a").join(",")}]`)].join("\n");
    expect(() => parseYamlText(bomb, "bomb.yaml")).toThrow(/^bomb\.yaml: not valid YAML: Excessive alias count/);
  });
});

describe("readYamlMapping", () => {
  it("reads an empty file as no keys and refuses a list, naming the file", () => {
    const dir = tmp();
    writeFileSync(join(dir, "empty.yaml"), "");
    writeFileSync(join(dir, "list.yaml"), "- a\n- b\n");
    expect(readYamlMapping(join(dir, "empty.yaml"))).toEqual({});
    expect(() => readYamlMapping(join(dir, "list.yaml"))).toThrow(`${join(dir, "list.yaml")}: not a YAML mapping of keys (got a list)`);
  });
});
