import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { p2pSearch } from "./fixtures/p2p-search.ts";
import { rewardSearchModule } from "../module.ts";
import type { FamilyHost } from "../../../src/family/host.ts";
import type { FamilyRegistry } from "../../../src/app/families.ts";
import { familyPageDirs, writeFamilyPages } from "../../../src/app/inspect-report.ts";

/** A run directory that holds a p2p search (as `hexa run --method p2p` writes one): `hexa inspect` of the run reaches its page. */

const root = mkdtempSync(join(tmpdir(), "hexa-family-pages-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Only the modules are read: the pages ask nothing of a built family or the host.
const families = { modules: () => [rewardSearchModule({} as FamilyHost)] } as unknown as FamilyRegistry;

let search = "";
beforeAll(async () => {
  mkdirSync(join(root, "search"));
  search = await p2pSearch(join(root, "search"), "cartpole");
  symlinkSync(search, join(root, "linked"));
});

describe("the pages of a family's folders inside a run", () => {
  it("finds the p2p search, not the folders inside it, and follows no link", () => {
    expect(familyPageDirs(families, root)).toEqual([search]);
  });

  it("writes the search's own page beside it and says so", async () => {
    const lines = await writeFamilyPages(families, root);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wrote .*search\/cartpole\/report\.html \(\d+ KiB: p2p search on cartpole: 3 iterations/);
    expect(readFileSync(join(search, "report.html"), "utf8")).toContain("<html");
  });
});
