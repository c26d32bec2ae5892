import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { create as createTar, extract as extractTar } from "tar";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.ts";
import { filesUnder, sha256Hex } from "../../src/bundle/manifest.ts";
import { openBundle } from "../../src/bundle/open-bundle.ts";
import { prepareVerifyTarget } from "../../src/bundle/prepare-verify-target.ts";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { CANARY, CANARY_ENV, tinyRun } from "./tiny-run.ts";

/** `hexa bundle` as a user runs it, on a tiny heuristic run made with secrets in its config and environment. */

const temp = tempDirs("hexa-bundle-cli-");
let run: { config: string; runDir: string };
let bundle: string;
let printed: string;

beforeAll(async () => {
  run = await tinyRun(temp());
  bundle = join(temp(), "run.tar.gz");
  const out = await hexa(["bundle", run.runDir, "-o", bundle, "--config", run.config], { env: CANARY_ENV });
  expect(out.stderr).not.toMatch(/hexa: /);
  expect(out.status).toBe(0);
  printed = /manifest sha256 ([0-9a-f]{64})/.exec(out.stdout)![1]!;
});

const extracted = (file: string): string => {
  const dest = temp();
  extractTar({ file, cwd: dest, sync: true });
  return join(dest, basename(run.runDir));
};

/** A copy of the run under a folder of its own (the folder's name is the run's id, as a run directory needs). */
const copyOfRun = (): string => {
  const copy = join(temp(), basename(run.runDir));
  cpSync(run.runDir, copy, { recursive: true });
  return copy;
};

describe("hexa bundle RUN_DIR -o FILE.tar.gz", () => {
  it("packs the run's records, the config as given and the code version, each file in MANIFEST.json with its sha256", () => {
    const dir = extracted(bundle);
    const manifestText = readFileSync(join(dir, "MANIFEST.json"));
    const manifest = JSON.parse(manifestText.toString()) as { run: string; files: Record<string, { sha256: string; bytes: number }> };
    const files = filesUnder(dir).filter((f) => f !== "MANIFEST.json");
    expect(Object.keys(manifest.files).sort()).toEqual(files);
    for (const f of files) expect(manifest.files[f], f).toEqual({ sha256: sha256Hex(readFileSync(join(dir, f))), bytes: readFileSync(join(dir, f)).length });
    expect(files).toEqual(
      expect.arrayContaining(["run.json", "config.yaml", "episodes.jsonl", "bank-events.jsonl", "metrics.json", "writers.jsonl", "banks/round-01.json"]),
    );
    expect(files).toEqual(expect.arrayContaining(["bundle/code-version.json", "bundle/config-given.yaml"]));
    expect(files).not.toContain("report.html");
    expect(manifest.run).toBe(basename(run.runDir));
    const code = JSON.parse(readFileSync(join(dir, "bundle/code-version.json"), "utf8")) as { packedBy: { files: Record<string, string>; node: string } };
    expect(code.packedBy.files["src/cli/bundle.ts"]).toBe(sha256Hex(readFileSync("src/cli/bundle.ts")));
    expect(code.packedBy.node).toBe(process.version);
    expect(readFileSync(join(dir, "bundle/config-given.yaml"), "utf8")).toMatch(/levels:\s*\n?\s*- catapult|levels: \[catapult\]/);
    expect(sha256Hex(manifestText)).toBe(printed);
    const record = JSON.parse(readFileSync(join(run.runDir, "bundle.json"), "utf8")) as { manifestHash: string; file: string };
    expect(record).toMatchObject({ manifestHash: printed, file: bundle });
  });

  it("holds no secret of the run's config or environment anywhere in its bytes (the canary)", () => {
    const gz = readFileSync(bundle);
    const tarBytes = gunzipSync(gz);
    for (const secret of Object.values(CANARY)) {
      expect(tarBytes.includes(Buffer.from(secret)), secret).toBe(false);
      expect(gz.includes(Buffer.from(secret)), secret).toBe(false);
    }
  });

  it("refuses a run a file of which holds the environment's key, naming the file and the variable, never the value, and writes nothing", async () => {
    const copy = copyOfRun();
    writeFileSync(join(copy, "llm-log.jsonl"), `${JSON.stringify({ endpoint: "http://x", note: CANARY.env })}\n`);
    const out = join(temp(), "leak.tar.gz");
    const r = await hexa(["bundle", copy, "-o", out], { env: CANARY_ENV });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/llm-log\.jsonl: holds the value of environment variable HEXA_ACTOR_API_KEY/);
    expect(r.stderr).not.toContain(CANARY.env);
    expect(existsSync(out)).toBe(false);
  });

  it("refuses to replace an existing file without --force, and replaces it with --force", async () => {
    const out = join(temp(), "exists.tar.gz");
    writeFileSync(out, "keep me");
    const refused = await hexa(["bundle", run.runDir, "-o", out]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/already exists; add --force/);
    expect(readFileSync(out, "utf8")).toBe("keep me");
    const forced = await hexa(["bundle", run.runDir, "-o", out, "--force"]);
    expect(forced.status).toBe(0);
    expect(gunzipSync(readFileSync(out)).length).toBeGreaterThan(1024);
  });

  it("never follows a link out of the run directory: it is named and left out", async () => {
    const outside = join(temp(), "outside.txt");
    writeFileSync(outside, "OUTSIDE-THE-RUN-MARKER");
    const copy = copyOfRun();
    symlinkSync(outside, join(copy, "notes.txt"));
    const out = join(temp(), "linked.tar.gz");
    const r = await hexa(["bundle", copy, "-o", out]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/notes\.txt: a symbolic link to .*outside\.txt \(pointing outside the run directory\); not packed/);
    expect(gunzipSync(readFileSync(out)).includes(Buffer.from("OUTSIDE-THE-RUN-MARKER"))).toBe(false);
  });
});

describe("opening a bundle for hexa verify", () => {
  it("gives the run folder and the manifest hash hexa bundle printed, and removes the extraction on cleanup", async () => {
    const target = await prepareVerifyTarget(bundle, { strict: true });
    expect(target.manifestHash).toBe(printed);
    expect(readFileSync(join(target.runDir, "episodes.jsonl"))).toEqual(readFileSync(join(run.runDir, "episodes.jsonl")));
    expect(target.warnings).toEqual([]);
    target.cleanup();
    expect(existsSync(target.runDir)).toBe(false);
    expect(await prepareVerifyTarget(run.runDir, { strict: true })).toMatchObject({ runDir: run.runDir, warnings: [] });
  });

  it("refuses a path that is neither, and an archive hexa bundle did not make", async () => {
    await expect(prepareVerifyTarget(join(temp(), "missing.tar.gz"), { strict: false })).rejects.toThrow(/no such run directory or bundle/);
    const dir = join(temp(), "some-run");
    mkdirSync(dir);
    writeFileSync(join(dir, "episodes.jsonl"), "{}\n");
    const plain = join(temp(), "plain.tar.gz");
    await createTar({ gzip: true, file: plain, cwd: join(dir, "..") }, ["some-run"]);
    await expect(openBundle(plain, { strict: false })).rejects.toThrow(/no MANIFEST\.json in the bundle; it was not made by hexa bundle/);
  });

  it("catches a one-byte change of a bundled file and names it", async () => {
    const dir = extracted(bundle);
    const episodes = readFileSync(join(dir, "episodes.jsonl"));
    const at = episodes.indexOf('"success":true');
    expect(at).toBeGreaterThan(0);
    episodes.write("f", at + '"success":'.length);
    writeFileSync(join(dir, "episodes.jsonl"), Buffer.concat([episodes.subarray(0, at + 10), Buffer.from("f"), episodes.subarray(at + 11)]));
    const tampered = join(temp(), "tampered.tar.gz");
    await createTar({ gzip: true, file: tampered, cwd: join(dir, "..") }, [basename(dir)]);
    await expect(openBundle(tampered, { strict: false })).rejects.toThrow(ConfigError);
    await expect(openBundle(tampered, { strict: false })).rejects.toThrow(/does not match its MANIFEST\.json: episodes\.jsonl: changed since packing/);
  });

  it("names a file added to or removed from a bundle", async () => {
    const dir = extracted(bundle);
    writeFileSync(join(dir, "extra.jsonl"), "{}\n");
    rmSync(join(dir, "metrics.json"));
    const tampered = join(temp(), "added.tar.gz");
    await createTar({ gzip: true, file: tampered, cwd: join(dir, "..") }, [basename(dir)]);
    await expect(openBundle(tampered, { strict: false })).rejects.toThrow(
      /extra\.jsonl: in the bundle but not in its MANIFEST\.json.*metrics\.json: listed in MANIFEST\.json but missing/,
    );
  });

  it("warns of other code with the per-file list, and refuses it with strict", async () => {
    const checkout = temp();
    mkdirSync(join(checkout, "src", "cli"), { recursive: true });
    writeFileSync(join(checkout, "package.json"), '{"version":"0.0.1"}\n');
    writeFileSync(join(checkout, "src", "cli", "bundle.ts"), "// another bundle command\n");
    const opened = await openBundle(bundle, { strict: false, root: checkout });
    try {
      expect(opened.codeVersionReport.same).toBe(false);
      const differences = opened.codeVersionReport.differences;
      expect(differences.slice(0, 3)).toEqual(["package-lock.json: other dependency versions", "package.json: changed", "src/cli/bundle.ts: changed"]);
      expect(differences).toContain("agents/actor.ts: only in the code that ran");
      expect(differences.at(-1)).toMatch(/^… and \d+ more$/);
    } finally {
      opened.cleanup();
    }
    await expect(openBundle(bundle, { strict: true, root: checkout })).rejects.toThrow(/--strict: .* packed by hexa .*\n {2}.*src\/cli\/bundle\.ts: changed/s);
  });
});
