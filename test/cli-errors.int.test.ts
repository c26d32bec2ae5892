import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa, type Out, ROOT } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

const tempDir = tempDirs("hexa-cli-errors-");

/** hexa as a fresh clone's user starts it: the ./hexa script, with nothing saying how it was called. */
const dotHexa = (args: readonly string[]): Promise<Out> =>
  new Promise((ok, fail) => {
    const env = { ...process.env };
    delete env.HEXA_LAUNCHER;
    delete env.npm_command;
    // Through sh, as a shell runs the script: its $0 is then ./hexa, as typed.
    const child = spawn("sh", ["./hexa", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let [stdout, stderr] = ["", ""];
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", fail);
    child.once("close", (status, signal) => ok({ status, signal, stdout, stderr }));
  });

describe("a usage error: the error first, what was meant, a pointer to --help", () => {
  it("a mistyped flag: one line naming the flag it meant, then where the help is; no help text", async () => {
    const r = await dotHexa(["run", "--runsdir", "x"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("hexa: Unknown argument: runsdir; did you mean --runs-dir?\nsee ./hexa run --help\n");
  });

  it("a mistyped command names the command it meant", async () => {
    const r = await hexa(["rn"], { env: { HEXA_LAUNCHER: "npx hexa" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("hexa: Unknown argument: rn; did you mean run?\nsee npx hexa --help\n");
  });

  it("a mistyped config key names the key it meant", async () => {
    const config = join(tempDir(), "typo.yaml");
    writeFileSync(config, "levels: [catapult]\nagent: heuristic\nevolver: heuristic\nepisodesPerRund: 3\n");
    const r = await hexa(["run", config, "--runs-dir", tempDir()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^hexa: .*typo\.yaml: episodesPerRund: unknown key; .* \(did you mean episodesPerRound\?\)$/m);
  });
});

describe("the commands hexa prints work where the user stands", () => {
  it("spells them as the user started hexa: ./hexa", async () => {
    const r = await dotHexa(["run", "--resume", ""]);
    expect(r.stderr).toContain("e.g. ./hexa run --resume runs/<id>");
  });

  it("spells them node bin/hexa.js when node was given the file", async () => {
    const r = await hexa(["run", "--resume", ""], { env: { HEXA_LAUNCHER: "", npm_command: "" } });
    expect(r.stderr).toContain("e.g. node bin/hexa.js run --resume runs/<id>");
  });
});
