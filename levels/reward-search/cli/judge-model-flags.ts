import type { Argv } from "yargs";
import { positiveIntFlag } from "../../../src/cli-kit/flags.ts";

/**
 * The judges' model flags `hexa judge` and `hexa search --intent` share: llm.judge and llm.vision by name and
 * endpoint, and what the vision server takes; each command says what its judge model and vision model do.
 */
export const judgeModelFlags = <T>(y: Argv<T>, does: { judge: string; vision: string }) =>
  y
    .option("judge-model", { type: "string", describe: `llm.judge: ${does.judge}` })
    .option("judge-base-url", {
      type: "string",
      describe: "llm.judge: its OpenAI-compatible endpoint (else OPENAI_BASE_URL); key: HEXA_JUDGE_API_KEY or OPENAI_API_KEY",
    })
    .option("vision-model", { type: "string", describe: `llm.vision: ${does.vision} (needs chromium)` })
    .option("vision-base-url", {
      type: "string",
      describe: "llm.vision: its OpenAI-compatible endpoint (else OPENAI_BASE_URL); key: HEXA_VISION_API_KEY or OPENAI_API_KEY",
    })
    .option("vision-max-images", {
      type: "number",
      coerce: positiveIntFlag("vision-max-images"),
      describe: "llm.vision.maxImages: images its server takes in one request (hexa doctor --role vision measures it)",
    });
