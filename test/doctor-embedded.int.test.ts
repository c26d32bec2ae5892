import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";

const tmp = tempDirs("hexa-doctor-gguf-");

describe("hexa doctor --model FILE.gguf", () => {
  it("loads the model and reports what it is, its speed here, whether a grammar-held tool call parses, and a config", async () => {
    const path = writeTinyGguf(tmp());
    const out = await hexa(["doctor", "--model", path]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain("hexa doctor: llm.actor (embedded)");
    expect(out.stdout).toMatch(/^architecture +llama$/m);
    expect(out.stdout).toMatch(/^quantisation +F32$/im);
    expect(out.stdout).toMatch(/^generation +\d+\.\d tokens\/s$/m);
    expect(out.stdout).toMatch(/^tool call held to a grammar +parses$/m);
    expect(out.stdout).toContain("provider: llama-cpp");
  });

  it("names the flag's field, the path and what is wrong with a file that is not there", async () => {
    const missing = join(tmp(), "gone.gguf");
    const out = await hexa(["doctor", "--model", missing]);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(`llm.actor.model: cannot be read (ENOENT) (got ${JSON.stringify(missing)})`);
  });
});
