import { totalmem } from "node:os";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { writeTinyGguf } from "../../../test/support/tiny-gguf.ts";
import { ConfigError } from "../../errors.ts";
import { LlamaCppModelConfig } from "./config.ts";
import { LlamaModels } from "./loaded-models.ts";

const tempDir = tempDirs("hexa-loaded-models-");

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("LlamaModels", () => {
  it("refuses a model whose context does not fit in the free memory on node-llama-cpp's estimate, before allocating it, naming the file and what to lower", async () => {
    const path = writeTinyGguf(tempDir());
    const config = LlamaCppModelConfig.parse({ provider: "llama-cpp", model: path, gpu: false, threads: 1, contextSize: 512 });
    // The whole RAM held back from what the checks see: a machine with no free memory, without a huge file.
    const models = new LlamaModels({ ramPadding: totalmem() });
    try {
      const e = await models.acquire(config, "llm.actor").then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(
        new RegExp(
          `^llm\\.actor\\.model: ${escaped(path)} does not fit in the free memory \\(got .*available RAM.*\\); use a smaller quantisation or model, or lower llm\\.actor\\.contextSize$`,
        ),
      );
    } finally {
      await models.close();
    }
  }, 60_000);
});
