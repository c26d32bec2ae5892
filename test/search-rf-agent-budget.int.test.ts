import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SearchConfig } from "../src/search/config.ts";
import { noTreeNote } from "../src/search/config.ts";
import { spawnHexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

const tempDir = tempDirs("hexa-rf-budget-");

describe("RF-Agent with a budget too small for a tree", () => {
  it("hexa search says so before it trains, with a budget that builds one", async () => {
    const out = join(tempDir(), "search");
    const { done } = spawnHexa(["search", "cartpole", "--method", "rf-agent", "--budget", "4", "--train-steps", "1000", "--out", out], {
      // Stopped once the search says what it will train: the note comes before that line.
      onStderr: (err, child) => void (/candidates of [\d,]+ env steps/.test(err) && child.kill("SIGKILL")),
    });
    const { stderr } = await done;
    expect(stderr).toMatch(
      /note: RF-Agent builds no tree: its budget of 4 candidates .*search\.rfAgent\.initial 4, --initial.*e\.g\. 12 \(4 first designs and one expansion of 8\)/,
    );
  });

  it("says nothing once the budget reaches past the first designs, nor for eureka", () => {
    const c = SearchConfig.parse({});
    expect(noTreeNote("rf-agent", c, 5)).toBeUndefined();
    expect(noTreeNote("eureka", c, 4)).toBeUndefined();
    expect(noTreeNote("rf-agent", c, 4)).toMatch(/^note: RF-Agent builds no tree/);
  });
});
