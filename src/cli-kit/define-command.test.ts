import yargs from "yargs";
import { describe, expect, it } from "vitest";
import { defineCommand } from "./define-command.ts";
import { intFlag } from "./flags.ts";

describe("defineCommand", () => {
  it("hands the handler the flags its builder declares, parsed and coerced", async () => {
    const seen: unknown[] = [];
    const cmd = defineCommand({
      command: "go <level>",
      describe: "a test command",
      builder: (y) =>
        y
          .positional("level", { type: "string", demandOption: true })
          .option("seeds", { type: "string", default: 3, coerce: intFlag("seeds", 1, 10) })
          .option("mode", { choices: ["a", "b"] as const, default: "a" as const }),
      handler: (argv) => {
        const level: string = argv.level;
        const seeds: number = argv.seeds;
        const mode: "a" | "b" = argv.mode;
        seen.push(level, seeds, mode);
      },
    });
    await yargs(["go", "catapult", "--seeds", "7", "--mode", "b"]).command(cmd).strict().parseAsync();
    expect(seen).toEqual(["catapult", 7, "b"]);
  });

  it("rejects a flag value outside its range with the flag's name", async () => {
    const cmd = defineCommand({
      command: "go",
      describe: "a test command",
      builder: (y) => y.option("seeds", { type: "string", default: 3, coerce: intFlag("seeds", 1, 10) }),
      handler: () => {},
    });
    await expect((async () => yargs(["go", "--seeds", "11"]).command(cmd).fail(false).parseAsync())()).rejects.toThrow(
      /--seeds must be an integer in \[1, 10\]/,
    );
  });
});
