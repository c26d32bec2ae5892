import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findTarget } from "./inspect-load.ts";

describe("findTarget on a path that is not a run", () => {
  it("says a file is a file and what to give instead", () => {
    const file = join(mkdtempSync(join(tmpdir(), "hexa-inspect-file-")), "quickstart.yaml");
    writeFileSync(file, "levels: [catapult]\n");
    expect(() => findTarget(file)).toThrow(/quickstart\.yaml: a file, not a directory; .*give its run directory \(runs\/<id>/);
  });

  it("says a missing path is missing", () => {
    expect(() => findTarget(join(tmpdir(), "hexa-no-such-run-dir"))).toThrow(/no such directory/);
  });
});
