import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REFERENCES } from "../scripts/reference/pages.ts";

/**
 * docs/reference/ is generated from the code (the yargs declarations, the run config's zod schema); a flag or a
 * config key added, renamed or redescribed without `npm run docs:reference` leaves the committed page stale.
 */
const ROOT = fileURLToPath(new URL("..", import.meta.url));

describe("the generated references under docs/reference/", () => {
  for (const page of REFERENCES) {
    it(`${page.path} matches what the code generates`, async () => {
      const committed = readFileSync(join(ROOT, page.path), "utf8");
      const generated = await page.generate();
      if (committed !== generated) expect.fail(`${page.path} is stale: run npm run docs:reference`);
    });
  }

  it("lists every command, subcommand, option and config key it is generated from", async () => {
    const cli = readFileSync(join(ROOT, "docs/reference/cli.md"), "utf8");
    for (const heading of [
      "## `hexa run [config]`",
      "### `hexa levels certify <level>`",
      "### `hexa trainer check`",
      "## `hexa search [task]`",
      "## `hexa bench <suite>`",
    ])
      expect(cli).toContain(heading);
    expect(cli).toMatch(/\| `--runs-dir` \| string \| `"runs"` \| where new run directories are made \|/);
    const config = readFileSync(join(ROOT, "docs/reference/config.md"), "utf8");
    expect(config).toMatch(/\| `rounds` \| integer \(≥ 1\) \| `17` \| R: rounds per level \|/);
    expect(config).toMatch(/\| `apiKey` \| [^|]+ \| [^|]+ \| secret: from the environment\. /);
    expect(config).toContain("## `rewardSearch`");
  });
});
